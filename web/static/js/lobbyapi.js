// The lobby's and profiles' calls (docs/api.md: Lobby, Challenges, Ratings,
// Profiles) and the words they share: a player with their rating, a
// rating category, a seek's or a challenge's game in a few words.

import { t, tp, num } from "./i18n.js";
import { clockName } from "./online.js";

let style = null;

/** Loads the lobby's stylesheet once; resolves when it applies (or failed: the page still works). */
export function useStyle() {
  style ||= new Promise((resolve) => {
    const link = document.createElement("link");
    Object.assign(link, { rel: "stylesheet", href: "lobby.css" });
    link.onload = link.onerror = () => resolve();
    document.head.append(link);
  });
  return style;
}

/** A call of the API with the session cookie; throws an ApiError (errors.js). */
export { serverRequest as lobbyCall } from "./api.js";

/** The speeds of the rating categories, fastest first (rating/category.go). */
export const SPEEDS = ["bullet", "blitz", "rapid", "classical", "correspondence"];

/**
 * The speed of a clock {minutes, increment, days}: correspondence for days
 * a move or no clock; else by the estimated time minutes×60 + 40×increment
 * seconds: bullet under 180 s, blitz under 480, rapid under 1500.
 */
export function speedOf(clock) {
  if (!clock || clock.days || !(clock.minutes > 0)) return "correspondence";
  const est = clock.minutes * 60 + 40 * (clock.increment || 0);
  if (est < 180) return "bullet";
  if (est < 480) return "blitz";
  if (est < 1500) return "rapid";
  return "classical";
}

/** The category of a game on holes holes with clock: "8-blitz". */
export const categoryOf = (holes, clock) => `${holes}-${speedOf(clock)}`;

/** A category's parts, or null for a malformed one. */
export function parseCategory(c) {
  const m = /^(\d{1,2})-([a-z]+)$/.exec(String(c || ""));
  if (!m || !SPEEDS.includes(m[2])) return null;
  return { holes: Number(m[1]), speed: m[2] };
}

/** A speed's name in the page's language. */
export function speedName(speed) {
  switch (speed) {
    case "bullet":
      return t("cat.bullet");
    case "blitz":
      return t("cat.blitz");
    case "rapid":
      return t("cat.rapid");
    case "classical":
      return t("cat.classical");
    case "correspondence":
      return t("cat.correspondence");
  }
  return String(speed);
}

/** A category in words: "Blitz, 8 holes". */
export function categoryName(c) {
  const p = parseCategory(c);
  if (!p) return String(c || "");
  return t("cat.name", { speed: speedName(p.speed), holes: tp("cat.holes", p.holes) });
}

/**
 * A rating as shown: rounded, with "?" while provisional, kept left to right
 * (an isolate) so that the mark stays after the number in Urdu; "–" for none.
 */
export function ratingText(rating, provisional) {
  if (rating === null || rating === undefined || !Number.isFinite(rating)) return "–";
  const n = num(Math.round(rating));
  return provisional ? `\u2066${n}?\u2069` : n;
}

/** Labels each cell of a table's body with its column's header, for the phone's one-card-a-row layout. */
export function labelCells(tbody) {
  const heads = [...tbody.closest("table").querySelectorAll("thead th")].map((th) => th.textContent);
  for (const tr of tbody.rows) [...tr.cells].forEach((c, i) => c.tagName === "TD" && heads[i] && (c.dataset.label = heads[i]));
}

/** A player with their rating: "Amina (1500?)"; a bot says so. */
export function playerText(p) {
  if (!p) return "";
  const parts = [];
  if (p.rating !== null && p.rating !== undefined) parts.push(ratingText(p.rating, p.provisional));
  if (p.bot) parts.push(t("lobby.bot"));
  return parts.length ? t("lobby.playerRated", { name: p.name, rating: parts.join(", ") }) : p.name;
}

/** A seek's or a challenge's game in a few words: "8 holes, 4 seeds, 3+2, rated". */
export function describe(s) {
  const words = [tp("cat.holes", s.holes), tp("seeds", s.seeds)];
  if (s.variant === "cross") words.push(t("variant.cross"));
  words.push(clockName(clockOf(s.clock)));
  words.push(s.rated ? t("lobby.rated") : t("lobby.casual"));
  return words.join(t("lobby.comma"));
}

/** A clock of the API, or null for none. */
export function clockOf(c) {
  if (!c || (!c.days && !c.minutes && !c.increment)) return null;
  return c;
}

/** A signed rating change: "+12", "−12", "±0". */
export function diffText(d) {
  const n = Math.round(d);
  if (n === 0) return "±" + num(0);
  return (n > 0 ? "+" : "\u2212") + num(Math.abs(n));
}
