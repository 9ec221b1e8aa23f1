// pyhearts web table: the position as the server sends it — a whole "state" on hello, watch
// and sync, then numbered "event" messages, each holding only the fields of the view and of
// the table's facts that changed (docs/protocol.md). Plain functions, no page: the load
// benchmark's Node.js clients use them too. A list of the view grown at its end (the round's
// tricks, at a trick's end) comes as its new items, in the event's "more".
//
//   import { applyEvent } from "./events.js";
//   const next = applyEvent(state, m);  // a new state (``state`` is left as it was), or null when
//                                       // ``m`` does not follow it: ask to sync

export function applyEvent(state, m) {
  if (!state || m.n !== state.n + 1) return null;
  const view = { ...state.view, ...m.view };
  for (const [field, items] of Object.entries(m.more || {})) view[field] = [...view[field], ...items];
  return {
    ...state, reason: m.reason, n: m.n, seq: m.seq, event: m.event,
    view, table: { ...state.table, ...m.table },
  };
}
