// Past games: a paged list to continue, replay or export them, and the
// import of a game record from a file or pasted text. Above them, the
// online games this browser holds a seat in, and those being played now.

import { api } from "./api.js";
import { t, tp, num, dateTime } from "./i18n.js";
import { seats, clockName } from "./online.js";
import { listResult, playerName } from "./explain.js";
import { busy, showError, showMessage, clearMessage, el } from "./ui.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
let page = 0;
let games = null; // the summaries of the page shown
let more = false;
let mine = []; // summaries of the online games this browser, or its account, holds a seat in
let live = []; // the online games being played now
let sides = {}; // game id -> the side held in it

export function initHistory() {
  $("history-prev").addEventListener("click", () => loadPage(page - 1));
  $("history-next").addEventListener("click", () => loadPage(page + 1));
  $("import-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) $("import-text").value = await file.text();
  });
  $("import-go").addEventListener("click", importRecord);
}

export function openHistory() {
  return Promise.all([loadOnline(), loadPage(page)]);
}

async function loadOnline() {
  const held = seats();
  const ids = Object.keys(held).slice(-200);
  try {
    const [a, b] = await Promise.all([ids.length ? api.games(ids) : {}, api.online()]);
    sides = {};
    for (const id of ids) sides[id] = held[id].side;
    // The account's seats (a game paired in the lobby, or made on another device) are this player's too.
    for (const g of b.games || []) sides[g.id] ||= g.you;
    // Your move first, then the games waiting for the opponent, then the finished ones.
    const rank = (g) => (g.result !== "*" || g.status !== "playing" ? 2 : g.toMove === sides[g.id] ? 0 : 1);
    const kept = (a.games || []).filter((g) => held[g.id]);
    const account = (b.games || []).filter((g) => g.you && !held[g.id]);
    mine = [...kept, ...account].sort((x, y) => rank(x) - rank(y));
    live = b.games || [];
  } catch (err) {
    showError(err);
  }
  renderOnline();
}

/**
 * "Naserian v Computer (level 5)": a summary's players, the computer named
 * with its level when the summary tells it (playerName reads
 * g.computer as a game view's).
 */
const vs = (g) => t("history.vs", { south: playerName(g, "s"), north: playerName(g, "n") });

/** Whose move it is in an online game of this player's. */
const turn = (g) => (g.toMove === sides[g.id] ? t("status.yourMove") : t("history.theirMove"));

function renderOnline() {
  const item = (g, text, label) => {
    const li = el("li");
    li.dataset.gameId = g.id;
    const a = el("a", "button small", label);
    a.href = `#/play/${encodeURIComponent(g.id)}`;
    li.append(el("span", "", vs(g)), el("span", "muted", text), a);
    return li;
  };
  $("my-online").hidden = !mine.length;
  $("my-online-list").replaceChildren(
    ...mine.map((g) => {
      let state = t("history.finished", { result: listResult(g) });
      let action = t("history.replay");
      if (g.status === "playing") {
        state = turn(g);
        if (g.clock !== undefined) state += " · " + clockName(g.clock);
        action = t("history.continue");
      } else if (g.status === "aborted") {
        // Nothing to continue or replay: the game stopped before it began.
        [state, action] = [listResult(g), t("history.view")];
      }
      return item(g, state, action);
    }),
  );
  $("live-list").replaceChildren(
    ...live.map((g) => {
      // One's own game is to play, not to watch.
      const own = !!sides[g.id];
      const size = t("history.holes", { holes: num(g.holes) });
      const text = [size, clockName(g.clock), own ? turn(g) : g.watchers ? tp("online.watchers", g.watchers) : ""].filter(Boolean).join(" · ");
      return item(g, text, own ? t("history.continue") : t("history.watch"));
    }),
  );
  $("live-empty").hidden = live.length > 0;
}

async function loadPage(p) {
  page = Math.max(0, p);
  await busy(async () => {
    try {
      // One more than a page tells whether an older page exists.
      const res = await api.listGames(PAGE + 1, page * PAGE);
      const list = res.games || [];
      more = list.length > PAGE;
      games = list.slice(0, PAGE);
      render();
    } catch (err) {
      showError(err);
    }
  });
}

/** Re-draws the list, for instance in another language. */
export function render() {
  renderOnline();
  const body = $("history");
  body.replaceChildren();
  if (!games) return;
  for (const g of games) body.append(row(g));
  $("history-empty").hidden = games.length > 0 || page > 0;
  $("history-prev").disabled = page === 0;
  $("history-next").disabled = !more;
  $("history-page").textContent = t("history.page", { page: num(page + 1) });
}

function row(g) {
  const tr = el("tr");
  tr.dataset.gameId = g.id;
  const players = el("td", "players");
  players.append(el("span", "", vs(g)));
  if (g.seriesId) players.append(el("span", "badge", t("history.series")));
  const size = g.variant === "cross" ? t("history.cross", { holes: num(g.holes) }) : t("history.holes", { holes: num(g.holes) });
  const cells = [
    [players, ""],
    [el("td", "board-size", size), "history.board"],
    [el("td", "num", num(g.moves)), "history.moves"],
    [el("td", "result-cell", listResult(g)), "history.result"],
    [el("td", "date", dateTime(g.updated || g.created)), "history.date"],
  ];
  // The labels show on a phone, where each game is a card (style.css).
  const labels = { "history.board": t("history.board"), "history.moves": t("history.moves"), "history.result": t("history.result"), "history.date": t("history.date") };
  for (const [td, key] of cells) {
    if (key) td.dataset.label = labels[key];
    tr.append(td);
  }
  const actions = el("td", "actions");
  const aborted = g.status === "aborted";
  const playing = g.result === "*" && !aborted;
  const open = el("a", "button small", playing ? t("history.continue") : aborted ? t("history.view") : t("history.replay"));
  // A finished game opens at its start, ready to be played through; an
  // aborted one as it stopped.
  open.href = playing || aborted ? `#/play/${encodeURIComponent(g.id)}` : `#/play/${encodeURIComponent(g.id)}/0`;
  actions.append(open);
  if (!playing && !aborted && g.moves > 0) {
    // A finished game opens with its review under way.
    const review = el("a", "button small quiet", t("review.action"));
    review.href = `#/play/${encodeURIComponent(g.id)}`;
    review.dataset.review = "";
    review.setAttribute("aria-label", t("review.actionLabel", { game: vs(g) }));
    review.addEventListener("click", () => import("./review.js").then((m) => m.requestReview(g.id)));
    actions.append(review);
  }
  const name = vs(g);
  // A game kept in this browser only has its record written here, in the
  // text form, when asked for: the server does not know it.
  for (const format of g.local ? ["text"] : ["text", "json"]) {
    const label = format === "text" ? t("history.exportText") : t("history.exportJSON");
    const a = el("a", "button small quiet", label);
    a.href = g.local ? "#/history" : api.recordURL(g.id, format);
    a.setAttribute("download", `endodoi-${g.id}.${format === "text" ? "txt" : "json"}`);
    a.setAttribute("aria-label", t("history.exportLabel", { game: name, format: label }));
    if (g.local) a.addEventListener("click", (e) => exportLocal(e, a, g.id));
    actions.append(a);
  }
  tr.append(actions);
  return tr;
}

/** Downloads the record of a game kept in this browser: its link, on the first click, becomes the record itself. */
async function exportLocal(e, a, id) {
  if (a.href.startsWith("blob:")) return; // the record, ready: the browser downloads it
  e.preventDefault();
  try {
    const { recordText } = await import("./offline.js");
    a.href = URL.createObjectURL(new Blob([await recordText(id)], { type: "text/plain;charset=utf-8" }));
    a.click();
  } catch (err) {
    showError(err);
  }
}

async function importRecord() {
  const text = $("import-text").value;
  if (!text.trim()) {
    showMessage(t("import.empty"), "info");
    return;
  }
  await busy(async () => {
    try {
      const g = await api.importRecord(text);
      clearMessage();
      $("import-text").value = "";
      $("import-file").value = "";
      showMessage(t("import.done"), "info", { next: true });
      location.hash = `#/play/${encodeURIComponent(g.id)}`;
    } catch (err) {
      showError(err);
    }
  });
}
