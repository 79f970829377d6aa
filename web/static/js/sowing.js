// Replays a move's sowing trace on the board, seed by seed and lap by lap:
// the lift (the hole empties into the hand), one seed into each following
// hole (the origin is not skipped on long laps), the relay pickup where a
// lap ends in an occupied hole, and the capture flying to the mover's pile.

import { sideOfMove } from "./notation.js";
import { sleep } from "./ui.js";

// Milliseconds per seed dropped, and the most a whole move may take: a
// move of hundreds of laps speeds up rather than keeping people waiting.
// Normal is brisk (a lap of six seeds in about half a second); slow is for
// learning. Long relays speed up lap by lap (ACCEL), down to FLOOR of the
// first lap's pace.
const PER_SEED = { slow: 380, normal: 70, fast: 28 };
const BUDGET = { slow: 40000, normal: 4000, fast: 1500 };
const ACCEL = { slow: 1, normal: 0.88, fast: 0.85 };
const FLOOR = 0.3;
// An opponent's move arriving online is shown briskly, about a tenth of a
// second a lap at normal speed: the receiver's clock is running.
const BRISK_PER_SEED = { slow: 150, normal: 35, fast: 18 };
const BRISK_BUDGET = { slow: 5000, normal: 1200, fast: 600 };

/**
 * Animates sowing (the API's sowing view) on board, which shows before
 * (a parsed position). onLap(lap, laps, inHand) reports progress, and
 * onCapture(), if given, the moment captured seeds fly; brisk paces it
 * for a move that someone waits to answer. Returns early, leaving the
 * board for the caller to snap, when speed is instant, there is no
 * sowing, or signal aborts (Skip).
 */
export async function animateSowing(board, before, sowing, { speed, signal, onLap, onCapture, brisk = false }) {
  if (speed === "instant" || !sowing || !sowing.laps.length || signal.aborted) return;
  const n = 2 * before.holes;
  const counts = before.board.slice();
  const pace = (idx) => Math.max(FLOOR, ACCEL[speed] ** idx);
  const drops = sowing.laps.reduce((a, l, idx) => a + (l.seeds + 3) * pace(idx), 0);
  const [perSeed, budget] = brisk ? [BRISK_PER_SEED, BRISK_BUDGET] : [PER_SEED, BUDGET];
  const base = Math.max(4, Math.min(perSeed[speed], budget[speed] / drops));
  const laps = sowing.laps.length;
  let per = base;

  for (const [idx, lap] of sowing.laps.entries()) {
    if (signal.aborted) return;
    per = Math.max(3, base * pace(idx));
    onLap(idx + 1, laps, lap.seeds);
    // The lift: the hole empties into the hand. A relay lifts the hole the
    // last lap ended in, the seed just sown included.
    counts[lap.from] = 0;
    board.setCount(lap.from, 0);
    board.showHand(lap.from, lap.seeds);
    await sleep(per * 1.6, signal);
    let i = lap.from;
    for (let k = 1; k <= lap.seeds; k++) {
      if (signal.aborted) return;
      i = (i + 1) % n;
      counts[i]++;
      board.setCount(i, counts[i], true);
      board.showHand(i, lap.seeds - k);
      onLap(idx + 1, laps, lap.seeds - k);
      await sleep(per, signal);
    }
    await sleep(per * (idx + 1 < laps ? 1.4 : 0.8), signal);
  }
  board.hideHand();

  if (sowing.captureFrom >= 0 && !signal.aborted) {
    const mover = sideOfMove(sowing.move);
    const end = sowing.laps[laps - 1].to;
    const fromOpposite = counts[sowing.captureFrom];
    await sleep(base * 2, signal);
    counts[sowing.captureFrom] = 0;
    counts[end] = 0;
    board.setCount(sowing.captureFrom, 0);
    board.setCount(end, 0);
    const flight = Math.min(700, Math.max(250, base * 4));
    if (onCapture) onCapture();
    await Promise.all([
      board.fly(sowing.captureFrom, mover, fromOpposite, flight, signal),
      board.fly(end, mover, 1, flight, signal),
    ]);
    board.setPile(mover, before.captured[mover] + sowing.captured);
    await sleep(base * 2, signal);
  }
}
