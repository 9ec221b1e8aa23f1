// pyhearts web table: a round's end, who took what. The round's result with the point cards
// each seat took, from the tricks the page saw (the summary and the game-over dialogs).
//
//   roundRecord(ended, m)   // {round, result, taken}: ``m``'s last round; ``taken`` the point
//                           // cards of each seat (highest first), or null when not known
const DECK = { 3: 51, 4: 52, 5: 50, 6: 48 };  // R1.2: cards dealt in a round
const RANK_ORDER = "23456789TJQKA";

// The last round of the state ``m`` (its table's last result) with the point cards each seat
// took, from the round's tricks as the state ``ended`` showed them, or ``m`` itself (the
// game's end: its view holds the last round); null cards when neither holds every trick.
export function roundRecord(ended, m) {
  const t = m.table, round = t.results.length;
  const tricks = [ended, m].map((s) => (s.view.round_number === round - 1 ? roundTricks(s, t.last_trick) : null));
  const known = tricks.findIndex((x) => x !== null);
  return { round, result: t.results[round - 1], taken: known < 0 ? null : pointCards(tricks[known], [ended, m][known].view) };
}

// The tricks of the round ``ended`` showed, its last one included (null if some are missing).
function roundTricks(ended, last) {
  const tricks = [...ended.view.tricks];
  const cards = (t) => (t ? t.plays.map((p) => p.card).join() : "");
  if (last && cards(tricks[tricks.length - 1]) !== cards(last)) tricks.push(last);
  const played = tricks.reduce((k, t) => k + t.plays.length, 0);
  return played === DECK[ended.view.players] ? tricks : null;
}

// The point cards each seat took in ``tricks`` (hearts, the Q♠, the K♠ and A♠ under Black
// Maria's spades, R4.5, the J♦ when the rules count it), highest first; null when the tricks
// are not known.
const FIRST = { QS: 22, KS: 21, AS: 20, JD: 19 }; // the cards ordered before the hearts
function pointCards(tricks, v) {
  if (!tricks) return null;
  const spades = (c) => (c === "KS" || c === "AS") && v.rules.spade_penalties;
  const counts = (c) => c[1] === "H" || c === "QS" || spades(c) || (c === "JD" && v.rules.jack_of_diamonds);
  const order = (c) => (c in FIRST ? FIRST[c] : RANK_ORDER.indexOf(c[0]));
  const taken = Array.from({ length: v.players }, () => []);
  for (const t of tricks) for (const p of t.plays) if (counts(p.card)) taken[t.winner].push(p.card);
  return taken.map((cards) => cards.sort((a, b) => order(b) - order(a)));
}
