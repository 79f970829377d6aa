import { test } from "node:test";
import assert from "node:assert/strict";
import {
  parsePosition, startPosition, letterOf, indexOf, ownerOf, sideOfMove, other, boardSeeds, rowSeeds, roundOf,
} from "../static/js/notation.js";

test("parsePosition reads the notation", () => {
  assert.deepEqual(parsePosition("1,2,0/3,4,5 n 7 8"), {
    holes: 3,
    board: [1, 2, 0, 3, 4, 5],
    toMove: "n",
    captured: { s: 7, n: 8 },
  });
  assert.deepEqual(parsePosition("  4,4/4,4 s 0 0 ").board, [4, 4, 4, 4]);
});

test("parsePosition refuses what is not a position", () => {
  for (const text of [
    "", null, undefined, "4,4/4,4", "4,4/4,4 x 0 0", "4,4/4,4,4 s 0 0", "4/4 s 0 0",
    "4,4/4,4 s 0", "4,,4/4,4 s 0 0", "a,b/c,d s 0 0", `${Array(17).fill(1)}/${Array(17).fill(1)} s 0 0`,
  ]) {
    assert.equal(parsePosition(text), null, `${text}`);
  }
});

test("startPosition", () => {
  assert.equal(startPosition(3, 4), "4,4,4/4,4,4 s 0 0");
  const pos = parsePosition(startPosition(8, 4));
  assert.equal(boardSeeds(pos), 64);
  assert.equal(rowSeeds(pos, "s"), 32);
});

test("hole letters: South's a.. then North's A..", () => {
  assert.equal(letterOf(0, 6), "a");
  assert.equal(letterOf(5, 6), "f");
  assert.equal(letterOf(6, 6), "A");
  assert.equal(letterOf(31, 16), "P");
  for (const h of [2, 6, 16]) {
    for (let i = 0; i < 2 * h; i++) assert.equal(indexOf(letterOf(i, h), h), i);
  }
  assert.equal(indexOf("g", 6), -1);
  assert.equal(indexOf("G", 6), -1);
  assert.equal(indexOf("?", 6), -1);
});

test("sides", () => {
  assert.equal(ownerOf(5, 6), "s");
  assert.equal(ownerOf(6, 6), "n");
  assert.equal(sideOfMove("c"), "s");
  assert.equal(sideOfMove("C"), "n");
  assert.equal(other("s"), "n");
  assert.equal(other("n"), "s");
  const pos = parsePosition("1,2,3/4,5,6 s 0 0");
  assert.equal(rowSeeds(pos, "s"), 6);
  assert.equal(rowSeeds(pos, "n"), 15);
});

test("moves are numbered in rounds, one move of each player", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map(roundOf), [1, 1, 2, 2, 3]);
});
