// pyhearts web table: the position as the server sends it — a whole "state" on hello, watch
// and sync, then numbered "event" messages, each holding only the fields of the view and of
// the table's facts that changed (docs/protocol.md). Plain functions, no page: the load
// benchmark's Node.js clients use them too.
//
//   import { applyEvent } from "./events.js";
//   const next = applyEvent(state, m);  // a new state (``state`` is left as it was), or null when
//                                       // ``m`` does not follow it: ask to sync

export function applyEvent(state, m) {
  if (!state || m.n !== state.n + 1) return null;
  return {
    ...state, reason: m.reason, n: m.n, seq: m.seq, event: m.event,
    view: { ...state.view, ...m.view }, table: { ...state.table, ...m.table },
  };
}
