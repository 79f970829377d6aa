import { test } from "node:test";
import assert from "node:assert/strict";
import { arrange, keepNews, leftGames, SHOWN } from "../static/js/notices.js";

test("notices: the newest first, the few newest shown, the others folded", () => {
  const at = (m) => `2026-03-05T10:${String(m).padStart(2, "0")}:00Z`;
  const items = [1, 5, 3, 2, 4].map((m) => ({ id: m, at: at(m) }));
  const { first, folded } = arrange(items);
  assert.equal(SHOWN, 3);
  assert.deepEqual(first.map((x) => x.id), [5, 4, 3]);
  assert.deepEqual(folded.map((x) => x.id), [2, 1]);
  // Of notices at the same time, the one added last is the newest.
  assert.deepEqual(arrange([{ id: "a", at: at(1) }, { id: "b", at: at(1) }]).first.map((x) => x.id), ["b", "a"]);
  assert.deepEqual(arrange([]), { first: [], folded: [] });
});

test("notices: one answer a player, the newest", () => {
  const news = [];
  keepNews(news, { player: "Baraka", text: "declined" });
  keepNews(news, { player: "Sironka", text: "expired" });
  keepNews(news, { player: "Baraka", text: "accepted" });
  assert.deepEqual(news.map((n) => `${n.player} ${n.text}`), ["Sironka expired", "Baraka accepted"]);
});

test("notices: an accepted challenge's news goes once its game is left", () => {
  const news = [{ player: "A", accepted: true, game: "g1" }, { player: "B" }, { player: "C", accepted: true, game: "g2" }, { player: "D", accepted: true }];
  assert.equal(leftGames(news, "#/play/g1"), true); // g2 is not shown: its news goes; D's game is the one shown
  assert.deepEqual(news.map((n) => `${n.player} ${n.game || ""}`), ["A g1", "B ", "D g1"]);
  assert.equal(leftGames(news, "#/play/g1/4"), false); // the same game, at a move
  assert.equal(leftGames(news, "#/lobby"), true);
  assert.deepEqual(news.map((n) => n.player), ["B"]);
});
