// pyhearts web table: the table page's shared state. One object, ``live``, holds what the
// table's modules share (each module keeps its own private variables to itself); with it the
// questions asked of the state on screen, and the two things any part may ask for.
//
//   import { live, seatName, seatLabel, isMyTurn, redraw, hurry, holding } from "./state.js";
//   live.state              // the state on screen (the server's "state" message), or null
//   seatName(s)             // "Ann", or "Seat 3" for a seat without a name
//   seatLabel(s)            // with a bot's level: "Ada (hard)"
//   isMyTurn(m)             // the state ``m`` waits for me (to pass or to play)
//   redraw()                // the table is drawn again (table.js gives its render: onRedraw)
//   hurry()                 // the pauses end: the player acted, or a whole new state came
//   holding()               // a finished trick is still on screen for its pause
import * as anim from "./anim.js";
import { _ } from "./i18n.js";
import { levelName } from "./ui.js";

export const live = {
  tableId: null,
  token: null,               // this browser's seat token, from the invite link or the storage
  watching: false,           // a spectator (/t/ID#watch, no token): the public view only
  state: null,               // the state on screen; later ones wait in pacing.js's queue
  selected: new Set(),       // the cards marked to pass
  reviewing: false,          // the last trick is shown (L)
  keyboardPlay: false,       // the last card was played or marked by a key: the hand keeps the focus
  focusIndex: 0,             // the hand's card that had the focus last
  // The turn timer: when each seat's time runs out (performance.now() milliseconds), from the
  // seconds left that the last state gave; ticked down on the page every quarter second.
  deadlines: {},
  hint: null,                // the hint on screen (its message), for one position (seq)
  asked: null,               // the hint asked and not yet come: the decision it is for (seq, action type, round)
  rematch: null,             // the rematch someone asked for (its message)
  wantRematch: false,        // I asked for one: I join it when it comes
  lastRound: null,           // the round just ended, who took what (rounds.js: roundRecord)
  shownGameOver: false,      // the game-over dialog opened by itself once
  sentName: null,            // the name I asked the table for, until it is mine (then my profile's, if I had none)
  holdUntil: 0,              // a finished trick stays on screen until then (performance.now())
  releaseSummary: () => {},  // a round's summary holds the next round back until it closes
};

export const seatName = (s) => live.state.table.names[s] || _("Seat {n}", { n: s + 1 });
// A seat's name with a bot's level: "Ada (hard)".
export const seatLabel = (s) => {
  const t = live.state.table, name = seatName(s), level = t.kinds[s] === "bot" ? t.bots[s] : null;
  return level && !name.endsWith(")") ? name + " (" + levelName(level) + ")" : name;
};
export const isMyTurn = (m) => m.you !== null && (m.view.must_pass || m.view.to_move === m.you);

let renderer = () => {};
export const onRedraw = (fn) => { renderer = fn; };
export const redraw = () => renderer();

// Ends the pauses: the player acted, or a whole new state came.
export function hurry() { live.holdUntil = 0; anim.hurry(); live.releaseSummary(); }
export const holding = () => live.holdUntil > performance.now();
