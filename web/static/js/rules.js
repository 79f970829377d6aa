// Tracing a sowing lap by lap, for replaying old moves whose traces the API
// does not keep. The server stays the judge of legality.

import { indexOf, sideOfMove, ownerOf } from "./notation.js";

/**
 * Traces the move letter in pos like the API's sowing view:
 * {move, laps:[{from, seeds, to}], captureFrom, captured}, or null if the
 * move is empty or does not end within maxLaps laps.
 */
export function traceMove(pos, letter, variant = "standard", maxLaps = 1000) {
  const h = pos.holes;
  const n = 2 * h;
  const b = pos.board.slice();
  let from = indexOf(letter, h);
  if (from < 0 || b[from] === 0) return null;
  const mover = sideOfMove(letter);
  const laps = [];
  for (;;) {
    if (laps.length === maxLaps) return null; // endless: not a legal move
    const seeds = b[from];
    b[from] = 0;
    let i = from;
    for (let k = 0; k < seeds; k++) {
      i = (i + 1) % n;
      b[i]++;
    }
    laps.push({ from, seeds, to: i });
    if (b[i] === 1) break; // the last seed fell into an empty hole
    from = i;
  }
  const end = laps[laps.length - 1].to;
  const opposite = n - 1 - end;
  const own = ownerOf(end, h) === mover;
  let captureFrom = -1;
  let captured = 0;
  if ((own || variant === "cross") && b[opposite] > 0) {
    captureFrom = opposite;
    captured = b[opposite] + 1;
  }
  return { move: letter, laps, captureFrom, captured };
}
