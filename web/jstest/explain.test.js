import { test } from "node:test";
import assert from "node:assert/strict";
import { useLanguage } from "./page.js";
import {
  moveSentence, playedSentence, sowingOf, endSentence, resultSentence, offBoardEnd, playerName, playerLabel,
  listResult, hintSentence, evalText, hasReview,
} from "../static/js/explain.js";

const lap = (from, seeds, to) => ({ from, seeds, to });
// South's c on a 6-hole board: two laps, then 7 seeds captured from North's C.
const capture = { move: "c", laps: [lap(2, 4, 6), lap(6, 5, 11)], captureFrom: 8, captured: 7 };
const quiet = { move: "D", laps: [lap(9, 3, 0)], captureFrom: -1, captured: 0 };
const game = {
  holes: 6, south: "Naserian", computer: { side: "n", level: 3 },
  moves: ["c", "D", "e"], sowingsFrom: 1, sowings: [quiet, { ...capture, move: "e" }],
  status: "playing", result: "*",
};

test("the sowing of a move, in words", async () => {
  await useLanguage("en");
  assert.equal(moveSentence(game, capture, 6), "Naserian sowed c: 2 laps, captured 7 seeds from C.");
  assert.equal(moveSentence(game, quiet, 6), "Computer (level 3) sowed D: 1 lap, no capture.");
  assert.equal(moveSentence({}, { ...capture, captured: 1, captureFrom: 15 }, 8), "South sowed c: 2 laps, captured 1 seed from H.");
  assert.equal(moveSentence({}, { ...quiet, captured: 2, captureFrom: 0 }, 6), "North sowed D: 1 lap, captured 2 seeds from a.");
});

test("the sowing of a move in Czech and Bengali", async () => {
  await useLanguage("cs");
  assert.equal(moveSentence({}, { ...capture, laps: [lap(2, 4, 6), lap(6, 5, 11), lap(11, 2, 1)] }, 6), "Jih: tah c – 3 okruhy, zajato 7 zrn z jamky C.");
  await useLanguage("bn");
  assert.equal(moveSentence({ south: "Naserian" }, capture, 6), "Naserian গর্ত c থেকে বপন করলেন: ২টি ল্যাপ, গর্ত C থেকে ৭টি বীজ ক্যাপচার করলেন।");
});

test("a game view's sowings start at sowingsFrom", async () => {
  await useLanguage("en");
  assert.equal(sowingOf(game, 1), null);
  assert.equal(sowingOf(game, 2), quiet);
  assert.equal(sowingOf(game, 3).move, "e");
  assert.equal(sowingOf(game, 4), null);
  assert.equal(sowingOf({ moves: ["c"] }, 1), null);
  assert.equal(playedSentence(game, 1), "Naserian sowed c."); // left out of the view: no laps to tell
  assert.equal(playedSentence(game, 2), "Computer (level 3) sowed D: 1 lap, no capture.");
  assert.equal(playedSentence(game, 3), "Naserian sowed e: 2 laps, captured 7 seeds from C.");
});

test("players", async () => {
  await useLanguage("en");
  assert.equal(playerName(game, "s"), "Naserian");
  assert.equal(playerName(game, "n"), "Computer (level 3)");
  assert.equal(playerName(null, "n"), "North");
  assert.equal(playerLabel(game, "s"), "Naserian (South)");
  assert.equal(playerLabel({}, "s"), "South");
});

test("why a game ended", async () => {
  await useLanguage("en");
  const g = { south: "Naserian" };
  assert.equal(endSentence(g, "repetition", "1,0/0,0 s 3 4", 9), "The position occurred for the third time: the 1 seed on the board counts for neither player.");
  assert.equal(endSentence(g, "no-legal-move", "0,0/0,0 s 3 5", 9), "Naserian had no seeds left to move, so the game is over.");
  assert.equal(endSentence(g, "no-legal-move", "0,0/2,1 s 3 2", 0), "Naserian had no legal move at the start: the 3 seeds on the board go to North.");
  assert.equal(endSentence(g, "no-legal-move", "0,0/2,1 s 3 2", 5), "Naserian had no legal move: the 3 seeds left on the board go to North, who moved last.");
  assert.equal(endSentence(g, "no-legal-move", "0,0/1,0 n 3 2", 5), "Every move North had would sow for ever, so the game is over: the 1 seed on the board goes to Naserian, who moved last.");
  assert.equal(endSentence(g, "playing", "0,0/1,0 n 3 2", 5), "");
  assert.equal(endSentence(g, "no-legal-move", "not a position", 5), "");
});

test("results", async () => {
  await useLanguage("en");
  const g = { south: "Naserian" };
  assert.equal(resultSentence(g, "1-0", { south: 31, north: 17 }), "Naserian wins, 31 to 17.");
  assert.equal(resultSentence(g, "0-1", { south: 17, north: 31 }), "North wins, 31 to 17.");
  assert.equal(resultSentence(g, "1/2-1/2", { south: 24, north: 24 }), "A draw, 24 each.");
  assert.equal(resultSentence(g, "*", { south: 0, north: 0 }), "");
  assert.deepEqual(offBoardEnd({ ...g, status: "resigned", result: "0-1", toMove: "s" }), ["North wins.", "Naserian resigned."]);
  assert.deepEqual(offBoardEnd({ ...g, online: { end: "timeout" }, result: "1-0" }), ["Naserian wins.", "North lost on time."]);
  assert.deepEqual(offBoardEnd({ online: { end: "aborted" }, result: "*" }), ["Game aborted", "The game was aborted before the second move."]);
  assert.equal(offBoardEnd({ ...g, status: "no-legal-move", result: "1-0" }), null);
  assert.equal(listResult({ ...g, status: "timeout", result: "1-0", score: { south: 20, north: 12 } }), "Naserian won, 20 to 12 (on time)");
});

test("hints, evaluations and reviews", async () => {
  await useLanguage("en");
  assert.equal(hintSentence({ move: "c", final: -2.5, exact: true }, "n"), "Hint: play c. With best play you finish about 2.5 seeds ahead. This is proven.");
  assert.equal(evalText(1.54, false), "+1.5 for South");
  assert.equal(evalText(0.01, false), "Even");
  assert.equal(hasReview(game), false);
  assert.equal(hasReview({ ...game, status: "resigned" }), true);
  assert.equal(hasReview({ moves: [], status: "resigned" }), false);
  assert.equal(hasReview(null), false);
});
