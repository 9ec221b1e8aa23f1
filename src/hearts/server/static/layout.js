// pyhearts web table: where the seats sit around the table for 3 to 6 players, shared by the
// live table (table.js) and the replay viewer (replay.js). A seat is placed by how many seats
// clockwise from the bottom one it is (``k``: 0 is the bottom seat, yours at the table).
//
//   seatPos(n, k)    // "bottom", "left", "tl", "top", "tr" or "right"
//   POS_WORDS[pos]   // the place in words: "on your left", "across", …
//   trickAt(n, k)    // [x, y]: where that seat's card lies in the trick, as fractions of the
//                    // trick area's free width and height
const SEAT_POS = {
  3: ["left", "right"],
  4: ["left", "top", "right"],
  5: ["left", "tl", "tr", "right"],
  6: ["left", "tl", "top", "tr", "right"],
};
import { _ } from "./i18n.js";

export const POS_WORDS = { left: _("on your left"), right: _("on your right"), top: _("across"), tl: _("across, left"), tr: _("across, right"), bottom: _("at the bottom") };
const TRICK_AT = {
  3: [[0.5, 1], [0, 0.3], [1, 0.3]],
  4: [[0.5, 1], [0, 0.5], [0.5, 0], [1, 0.5]],
  5: [[0.5, 1], [0, 0.74], [0.18, 0], [0.82, 0], [1, 0.74]],
  6: [[0.5, 1], [0, 0.78], [0, 0], [0.5, 0], [1, 0], [1, 0.78]],
};

export const seatPos = (n, k) => (k === 0 ? "bottom" : (SEAT_POS[n] || SEAT_POS[4])[k - 1] || "top");
export const trickAt = (n, k) => TRICK_AT[n][k];
