import { test } from "node:test";
import assert from "node:assert/strict";
import { useLanguage } from "./page.js";
import { loadPart, t } from "../static/js/i18n.js";
import { speedOf, categoryOf, parseCategory, categoryName, ratingText, playerText, describe, diffText } from "../static/js/lobbyapi.js";
import { niceStep, scaleGraph } from "../static/js/ratinggraph.js";

test("speeds: the server's bounds (rating/category.go)", () => {
  // The estimated time is minutes×60 + 40×increment seconds.
  for (const [clock, want] of [
    [{ minutes: 1, increment: 0 }, "bullet"], // 60 s
    [{ minutes: 2, increment: 1 }, "bullet"], // 160 s
    [{ minutes: 3, increment: 0 }, "blitz"], // 180 s: not under 180
    [{ minutes: 3, increment: 2 }, "blitz"], // 260 s
    [{ minutes: 5, increment: 3 }, "blitz"], // 420 s
    [{ minutes: 3, increment: 8 }, "rapid"], // 500 s
    [{ minutes: 15, increment: 10 }, "rapid"], // 1300 s
    [{ minutes: 25, increment: 0 }, "classical"], // 1500 s
    [{ minutes: 20, increment: 13 }, "classical"], // 1720 s
    [{ minutes: 0, increment: 0, days: 3 }, "correspondence"],
    [{ minutes: 0, increment: 0 }, "correspondence"],
    [null, "correspondence"],
  ]) {
    assert.equal(speedOf(clock), want, JSON.stringify(clock));
  }
  assert.equal(categoryOf(8, { minutes: 3, increment: 2 }), "8-blitz");
  assert.deepEqual(parseCategory("10-classical"), { holes: 10, speed: "classical" });
  assert.equal(parseCategory("8-slow"), null);
  assert.equal(parseCategory("x"), null);
  assert.equal(parseCategory(undefined), null);
});

test("categories, ratings and players in words", async () => {
  await useLanguage("en");
  await loadPart("lobby");
  assert.equal(categoryName("8-blitz"), "Blitz, 8 holes");
  assert.equal(categoryName("1-bullet"), "Bullet, 1 hole");
  assert.equal(categoryName("bogus"), "bogus");
  assert.equal(ratingText(1512.6, false), "1,513");
  assert.equal(ratingText(1500, true), "\u20661,500?\u2069");
  assert.equal(ratingText(null), "–");
  assert.equal(playerText({ name: "Amina", rating: 1500, provisional: true, bot: false }), "Amina (\u20661,500?\u2069)");
  assert.equal(playerText({ name: "Robo", rating: null, bot: true }), "Robo (bot)");
  assert.equal(playerText({ name: "Baraka", rating: null }), "Baraka");
  assert.equal(describe({ holes: 8, seeds: 4, variant: "standard", clock: { minutes: 3, increment: 2, days: 0 }, rated: true }), "8 holes, 4 seeds, 3+2, Rated");
  assert.equal(describe({ holes: 6, seeds: 3, variant: "cross", clock: { minutes: 0, increment: 0, days: 3 }, rated: false }), "6 holes, 3 seeds, Cross-Endodoi, 3 days a move, Casual");
  assert.equal(diffText(12.4), "+12");
  assert.equal(diffText(-12), "\u221212");
  assert.equal(diffText(0.2), "±0");
});

test("the lobby's words follow the language", async () => {
  await useLanguage("cs");
  await loadPart("lobby");
  assert.equal(categoryName("8-blitz"), "Blitz, 8 jamek");
  assert.equal(categoryName("3-rapid"), "Rapid, 3 jamky");
  assert.equal(t("lobby.rated"), "Hodnocená");
  await useLanguage("bn");
  assert.equal(ratingText(1500, false), "১,৫০০");
  await useLanguage("en");
  assert.equal(t("lobby.rated"), "Rated");
});

test("the graph's scale: round ticks, higher ratings higher up, time along", () => {
  assert.equal(niceStep(100), 50); // 25 → 50
  assert.equal(niceStep(400), 100);
  assert.equal(niceStep(0), 1);
  const pts = [
    { at: "2026-01-01T00:00:00Z", rating: 1500 },
    { at: "2026-01-02T00:00:00Z", rating: 1620 },
    { at: "2026-01-05T00:00:00Z", rating: 1480 },
  ];
  const g = scaleGraph(pts, { width: 600, height: 220, pad: 36 });
  assert.equal(g.dots.length, 3);
  assert.ok(g.lo <= 1480 && g.hi >= 1620, `range ${g.lo}..${g.hi}`);
  assert.equal(g.dots[0].x, 36);
  assert.equal(g.dots[2].x, 564);
  assert.equal(g.dots[1].x, Math.round((36 + 528 / 4) * 10) / 10); // one day of four
  assert.ok(g.dots[1].y < g.dots[0].y && g.dots[0].y < g.dots[2].y, "higher ratings are drawn higher");
  for (const d of g.dots) assert.ok(d.y >= 36 && d.y <= 184, `y ${d.y} inside the box`);
  const step = g.yTicks[1].value - g.yTicks[0].value;
  assert.ok([10, 20, 50, 100].includes(step), `step ${step}`);
  assert.equal(g.yTicks[0].y, 184);
  assert.equal(g.yTicks[g.yTicks.length - 1].y, 36);
  assert.match(g.path, /^M36 [\d.]+ L[\d.]+ [\d.]+ L564 [\d.]+$/);
});

test("the graph of a flat or single history", () => {
  const one = scaleGraph([{ at: "2026-01-01T00:00:00Z", rating: 1500 }], { width: 600, height: 220, pad: 36 });
  assert.equal(one.dots[0].x, 300);
  assert.ok(one.hi - one.lo >= 100);
  assert.ok(one.dots[0].y > 36 && one.dots[0].y < 184, "a single point sits inside the box");
  const same = scaleGraph(
    [
      { at: "2026-01-01T00:00:00Z", rating: 1500 },
      { at: "2026-01-01T00:00:00Z", rating: 1510 },
    ],
    { width: 600, height: 220, pad: 36 },
  );
  assert.deepEqual(same.dots.map((d) => d.x), [36, 564]); // one time: evenly by order
  assert.deepEqual(scaleGraph([]).dots, []);
});
