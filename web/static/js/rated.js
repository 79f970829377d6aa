// The players of an online game between accounts (loaded with the first
// such game): each name with its rating and a bot's mark, linking to the
// profile; "Rated" or "Casual" (neither once aborted); at the end of a
// rated game each side's rating change; and, for a player of the game, the
// menu to report the game or block the opponent (unblock, when blocked).

import { t, loadPart, translatePage } from "./i18n.js";
import { el, showMessage, showError, announce } from "./ui.js";
import { playerName } from "./explain.js";
import { lobbyCall, ratingText, diffText, useStyle } from "./lobbyapi.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
let built = false;

/** Loads the words this part needs. */
export async function init() {
  await Promise.all([loadPart("lobby"), useStyle()]);
  if (built) return;
  built = true;
  for (const side of ["south", "north"]) {
    const a = el("a", "player-rating");
    a.id = "rating-" + side;
    a.hidden = true;
    $("name-" + side).after(a);
  }
  const mode = el("p", "game-mode");
  mode.id = "game-mode";
  mode.hidden = true;
  $("status").before(mode);

  const menu = el("details", "game-menu");
  menu.id = "game-menu";
  menu.hidden = true;
  const sum = el("summary");
  sum.dataset.i18n = "game.menu";
  const block = el("button", "small");
  Object.assign(block, { type: "button", id: "game-block" });
  const form = el("form", "report-form");
  form.id = "report-form";
  const legend = el("p", "report-title");
  legend.dataset.i18n = "report.title";
  const reasonLabel = el("label");
  reasonLabel.htmlFor = "report-reason";
  reasonLabel.dataset.i18n = "report.reason";
  const reason = el("select");
  reason.id = "report-reason";
  const option = (value) => reason.appendChild(Object.assign(el("option"), { value }));
  option("cheating").dataset.i18n = "report.cheating";
  option("abuse").dataset.i18n = "report.abuse";
  option("other").dataset.i18n = "report.else";
  const textLabel = el("label");
  textLabel.htmlFor = "report-text";
  textLabel.dataset.i18n = "report.text";
  const text = el("textarea");
  Object.assign(text, { id: "report-text", rows: 3, maxLength: 1000 });
  const send = el("button", "small");
  Object.assign(send, { type: "submit", id: "report-send" });
  send.dataset.i18n = "report.send";
  form.append(legend, reasonLabel, reason, textLabel, text, send);
  menu.append(sum, block, form);
  $("online").append(menu);
  translatePage(menu);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    report();
  });
  block.addEventListener("click", blockOpponent);
}

let current = { game: null, me: "" };
// The names of the players this account blocks, once read; null before.
let blocks = null;
let reading = null;

/** Draws the rated game's parts for g, whose seat me ("s", "n" or "") this browser holds. */
export function renderRated(g, ended, me) {
  if (!built) return;
  // Whom this account blocks is read again for each game shown: it may
  // have changed on the profiles meanwhile.
  if (!current.game || current.game.id !== g.id) blocks = reading = null;
  current = { game: g, me };
  const players = g.players || null;
  for (const [side, key] of [["s", "south"], ["n", "north"]]) {
    const a = $("rating-" + key);
    const p = players && players[side];
    a.hidden = !p;
    if (!p) continue;
    a.href = `#/profile/${enc(p.name)}`;
    a.textContent = [ratingText(p.rating, p.provisional), p.bot ? t("lobby.bot") : ""].filter(Boolean).join(" · ");
    a.setAttribute("aria-label", t("game.profileOf", { player: p.name, rating: ratingText(p.rating, p.provisional) }));
    a.classList.toggle("bot", !!p.bot);
  }
  const mode = $("game-mode");
  mode.hidden = !players || g.status === "aborted";
  mode.textContent = g.rated ? t("lobby.rated") : t("lobby.casual");
  mode.classList.toggle("rated", !!g.rated);

  // The rating change, under the result.
  const change = g.rating_change;
  if (ended && change && !$("result").hidden) {
    const p = el("p", "rating-change");
    p.id = "rating-change";
    for (const side of ["s", "n"]) {
      const c = change[side];
      if (!c) continue;
      const span = el("span", c.diff >= 0 ? "up" : "down", t("game.ratingChange", { player: playerName(g, side), diff: diffText(c.diff), rating: ratingText(c.after, c.provisional) }));
      p.append(span);
    }
    $("result").append(p);
  }

  const opponent = me && players && players[me === "s" ? "n" : "s"];
  const menu = $("game-menu");
  menu.hidden = !opponent;
  if (opponent) {
    if (!blocks) readBlocks();
    blockLabel(opponent.name);
  }
}

/** Names the menu's button for player: Block, or Unblock when blocked. */
function blockLabel(player) {
  const blocked = blocks && blocks.has(player);
  $("game-block").textContent = blocked ? t("game.unblock", { player }) : t("game.block", { player });
}

/** Reads whom this account blocks, once, and names the menu's button. */
function readBlocks() {
  reading ||= lobbyCall("GET", "/api/me/blocks")
    .then((res) => {
      blocks = new Set(((res && res.blocks) || []).map((p) => p.name));
      const g = current.game;
      const p = g && g.players && current.me && g.players[current.me === "s" ? "n" : "s"];
      if (p) blockLabel(p.name);
    })
    .catch(() => (reading = null));
}

async function report() {
  const g = current.game;
  if (!g) return;
  try {
    await lobbyCall("POST", `/api/games/${enc(g.id)}/report`, { reason: $("report-reason").value, text: $("report-text").value.trim() });
    $("report-text").value = "";
    $("game-menu").open = false;
    showMessage(t("report.sent"), "info");
    announce(t("report.sent"));
  } catch (err) {
    showError(err);
  }
}

/** Blocks the opponent, or lifts the block of one blocked. */
async function blockOpponent() {
  const g = current.game;
  const p = g && g.players && current.me && g.players[current.me === "s" ? "n" : "s"];
  if (!p) return;
  const blocked = blocks && blocks.has(p.name);
  try {
    const res = blocked
      ? await lobbyCall("POST", `/api/me/blocks/${enc(p.name)}/remove`, {})
      : await lobbyCall("POST", "/api/me/blocks", { name: p.name });
    blocks = new Set(((res && res.blocks) || []).map((b) => b.name));
    $("game-menu").open = false;
    blockLabel(p.name);
    showMessage(blocked ? t("block.undone", { player: p.name }) : t("block.done", { player: p.name }), "info");
  } catch (err) {
    showError(err);
  }
}
