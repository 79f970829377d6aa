import { test } from "node:test";
import assert from "node:assert/strict";
import { useLanguage } from "./page.js";
import { t, tp, num, signed, language, dateTime } from "../static/js/i18n.js";
import { clockText, clockName } from "../static/js/online.js";

test("English: numbers, plurals and placeholders", async () => {
  await useLanguage("en");
  assert.equal(language(), "en");
  assert.equal(num(1234.5), "1,234.5");
  assert.equal(signed(1.54), "+1.5");
  assert.equal(signed(-2), "-2");
  assert.equal(signed(0), "0");
  assert.equal(tp("seeds", 1), "1 seed");
  assert.equal(tp("seeds", 0), "0 seeds");
  assert.equal(tp("seeds", 1200), "1,200 seeds");
  assert.equal(t("result.win", { player: "Naserian", winner: 31, loser: 17 }), "Naserian wins, 31 to 17.");
  // A placeholder without a value stays as written; a key the catalogs lack shows itself.
  assert.equal(t("result.win", { player: "Naserian" }), "Naserian wins, {winner} to {loser}.");
  assert.equal(t("no.such.key"), "no.such.key");
});

test("Czech: four plural forms", async () => {
  await useLanguage("cs");
  assert.equal(tp("seeds", 1), "1 zrno");
  assert.equal(tp("seeds", 3), "3 zrna");
  assert.equal(tp("seeds", 5), "5 zrn");
  assert.equal(tp("laps", 1.5), "1,5 okruhu"); // "many": fractions
  assert.equal(num(1234.5), "1\u00a0234,5");
});

test("Bengali: its own digits", async () => {
  await useLanguage("bn");
  assert.equal(num(1234), "১,২৩৪");
  assert.equal(tp("seeds", 3), "৩টি বীজ");
  assert.equal(clockText(65_000), "১:০৫");
});

test("Vietnamese: one form for every count", async () => {
  await useLanguage("vi");
  assert.equal(tp("seeds", 1), "1 hạt");
  assert.equal(tp("seeds", 2), "2 hạt");
});

test("Swahili and Urdu: the number where the language puts it", async () => {
  await useLanguage("sw");
  assert.equal(tp("laps", 1), "mzunguko 1");
  assert.equal(tp("laps", 4), "mizunguko 4");
  await useLanguage("ur");
  assert.equal(tp("seeds", 2), "2 بیج");
});

test("clocks", async () => {
  await useLanguage("en");
  assert.equal(clockText(299_001), "5:00"); // a second begun counts whole
  assert.equal(clockText(299_000), "4:59");
  assert.equal(clockText(3_723_000), "1:02:03");
  assert.equal(clockText(-5), "0:00");
  assert.equal(clockText(2 * 86_400_000 + 3 * 3_600_000, 3), "2 d 3 h");
  assert.equal(clockText(3 * 3_600_000 + 60_000, 1), "3 h 1 min");
  assert.equal(clockText(59_000, 1), "0:59");
  assert.equal(clockName(null), t("clock.none"));
  assert.equal(clockName({ minutes: 5, increment: 3 }), "5+3");
  assert.equal(clockName({ days: 1 }), tp("clock.perMove", 1));
});

test("dates and times: as each language writes them", async () => {
  const morning = new Date(2026, 2, 5, 7, 29).toISOString(); // 7:29 here, wherever the test runs
  const evening = new Date(2026, 2, 5, 18, 29).toISOString();
  await useLanguage("en");
  assert.match(dateTime(morning), /^Mar 5, 2026,? 7:29\sAM$/);
  assert.equal(dateTime("not a date"), "");
  // Urdu names the part of the day in its own words ("7:29 صبح", in the
  // morning): a Latin "AM" would read "AM 7:29" in right-to-left text.
  await useLanguage("ur");
  assert.match(dateTime(morning), /^5 مارچ، 2026، 7:29\sصبح$/);
  assert.match(dateTime(evening), /6:29\sشام$/);
  assert.doesNotMatch(dateTime(evening), /[A-Za-z]/);
  await useLanguage("cs");
  assert.match(dateTime(evening), /18:29$/);
});
