// A player's profile, #/profile/{name} (loaded when first opened): their
// ratings per category with the history of one as a graph and a table,
// their results by side, their games with filters and paging, and the
// ways to challenge or block them. And the leaderboard of a category,
// #/leaderboard/{category}, which says how many rated games a player needs
// to appear on it.

import { t, tp, num, dateTime, loadPart, translatePage } from "./i18n.js";
import { busy, el, showMessage, showError } from "./ui.js";
import { sideName } from "./explain.js";
import * as live from "./lobbylive.js";
import { lobbyCall, ratingText, categoryName, playerText, SPEEDS, parseCategory, useStyle, diffText, labelCells } from "./lobbyapi.js";
import { drawGraph } from "./ratinggraph.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const shown = {
  name: "",
  profile: null,
  category: "", // the category whose graph is shown
  points: [],
  games: [],
  next: null, // the cursor of the next page of games
  filters: {},
  board: null, // the leaderboard shown
  token: 0,
};

// The callers name the headers, the labels and the options
// (….dataset.i18n = "key"), so that the catalog test finds the keys.

/** A table whose body has id, with n column headers: returns [wrap, ...headers]. */
function table(id, n) {
  const wrap = el("div", "table-wrap");
  const tab = el("table", "history-table");
  const tr = el("tr");
  const ths = [];
  for (let i = 0; i < n; i++) {
    const th = el("th");
    th.scope = "col";
    tr.append(th);
    ths.push(th);
  }
  const head = el("thead");
  head.append(tr);
  const body = el("tbody");
  body.id = id;
  tab.append(head, body);
  wrap.append(tab);
  return [wrap, ...ths];
}

/** A labelled field: returns [wrap, label]. */
function labelled(id, control) {
  const wrap = el("div", "lobby-field");
  const l = el("label");
  l.htmlFor = id;
  control.id = id;
  wrap.append(l, control);
  return [wrap, l];
}

function option(s, value) {
  const o = el("option");
  o.value = value;
  s.append(o);
  return o;
}

function buildProfile() {
  const view = $("view-profile");
  const h1 = el("h1");
  h1.id = "profile-name";
  h1.tabIndex = -1;
  const meta = el("p", "muted");
  meta.id = "profile-meta";
  const actions = el("div", "controls");
  const challenge = el("button", "primary");
  Object.assign(challenge, { type: "button", id: "profile-challenge" });
  challenge.dataset.i18n = "profile.challenge";
  challenge.addEventListener("click", () => (location.hash = `#/lobby/challenge/${enc(shown.name)}`));
  const block = el("button");
  Object.assign(block, { type: "button", id: "profile-block" });
  block.addEventListener("click", toggleBlock);
  actions.append(challenge, block);

  const h2 = () => el("h2");
  const ratingsHead = h2();
  ratingsHead.dataset.i18n = "profile.ratings";
  const [ratings, rc, rr, rg] = table("profile-ratings", 3);
  rc.dataset.i18n = "profile.category";
  rr.dataset.i18n = "profile.rating";
  rg.dataset.i18n = "profile.games";
  const noRatings = el("p", "muted");
  noRatings.id = "profile-no-ratings";
  noRatings.dataset.i18n = "profile.noRatings";

  const historyHead = h2();
  historyHead.dataset.i18n = "profile.history";
  const pick = el("select");
  pick.addEventListener("change", () => showCategory(pick.value));
  const [pickRow, pickLabel] = labelled("profile-category", pick);
  pickLabel.dataset.i18n = "profile.category";
  const graphBox = el("div", "rating-history");
  graphBox.id = "profile-graph";
  const points = el("details", "points-table");
  const ps = el("summary");
  ps.dataset.i18n = "profile.pointsTable";
  const [pointsTable, pd, pr] = table("profile-points", 2);
  pd.dataset.i18n = "profile.date";
  pr.dataset.i18n = "profile.rating";
  points.append(ps, pointsTable);

  const sidesHead = h2();
  sidesHead.dataset.i18n = "profile.bySide";
  const [sides, ss, sw, sd, sl] = table("profile-sides", 4);
  ss.dataset.i18n = "profile.side";
  sw.dataset.i18n = "profile.wins";
  sd.dataset.i18n = "profile.draws";
  sl.dataset.i18n = "profile.losses";

  const gamesHead = h2();
  gamesHead.dataset.i18n = "profile.gamesHeading";
  const filters = el("form", "lobby-grid profile-filters");
  filters.id = "profile-filters";
  const result = el("select");
  option(result, "").dataset.i18n = "profile.any";
  option(result, "win").dataset.i18n = "profile.win";
  option(result, "draw").dataset.i18n = "profile.draw";
  option(result, "loss").dataset.i18n = "profile.loss";
  const [resultRow, resultLabel] = labelled("pf-result", result);
  resultLabel.dataset.i18n = "profile.result";
  const side = el("select");
  option(side, "").dataset.i18n = "profile.any";
  option(side, "s").dataset.i18n = "side.south";
  option(side, "n").dataset.i18n = "side.north";
  const [sideRow, sideLabel] = labelled("pf-side", side);
  sideLabel.dataset.i18n = "profile.side";
  const [catRow, catLabel] = labelled("pf-category", el("select"));
  catLabel.dataset.i18n = "profile.category";
  const opponent = Object.assign(el("input"), { type: "text", maxLength: 40, autocomplete: "off", spellcheck: false });
  const [oppRow, oppLabel] = labelled("pf-opponent", opponent);
  oppLabel.dataset.i18n = "profile.opponent";
  const apply = el("button");
  Object.assign(apply, { type: "submit", id: "pf-apply" });
  apply.dataset.i18n = "profile.filter";
  filters.append(resultRow, sideRow, catRow, oppRow, apply);
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    loadGames(false);
  });
  const [games, gd, go, gs, gc, gr, gg] = table("profile-games", 6);
  gd.dataset.i18n = "profile.date";
  go.dataset.i18n = "profile.opponent";
  gs.dataset.i18n = "profile.side";
  gc.dataset.i18n = "profile.category";
  gr.dataset.i18n = "profile.result";
  gg.dataset.i18n = "profile.open";
  const gamesEmpty = el("p", "muted");
  gamesEmpty.id = "profile-games-empty";
  gamesEmpty.dataset.i18n = "profile.noGames";
  const more = el("button");
  Object.assign(more, { type: "button", id: "profile-more" });
  more.dataset.i18n = "profile.more";
  more.addEventListener("click", () => loadGames(true));

  view.append(h1, meta, actions, ratingsHead, ratings, noRatings, historyHead, pickRow, graphBox, points,
    sidesHead, sides, gamesHead, filters, games, gamesEmpty, more);
  translatePage(view);
}

function buildBoard() {
  const view = $("view-leaderboard");
  const h1 = el("h1");
  h1.dataset.i18n = "board.heading";
  const note = el("p", "muted");
  note.dataset.i18n = "board.note";
  const pick = el("select");
  pick.addEventListener("change", () => (location.hash = `#/leaderboard/${pick.value}`));
  const [pickRow, pickLabel] = labelled("board-category", pick);
  pickLabel.dataset.i18n = "profile.category";
  const [list, rank, player, rating, games] = table("board-list", 4);
  rank.dataset.i18n = "board.rank";
  player.dataset.i18n = "profile.player";
  rating.dataset.i18n = "profile.rating";
  games.dataset.i18n = "profile.games";
  const empty = el("p", "muted");
  empty.id = "board-empty";
  empty.dataset.i18n = "board.empty";
  // How many rated games a player needs to appear, and this player.
  const appear = el("p", "muted");
  appear.id = "board-appear";
  const you = el("p", "board-you");
  you.id = "board-you";
  view.append(h1, note, you, pickRow, list, empty, appear);
  translatePage(view);
}

/** Opens the profile ({name}: "profile", [name]) or the leaderboard ("leaderboard", [category]). */
export async function openView(name, args) {
  await Promise.all([loadPart("lobby"), useStyle()]);
  if (name === "leaderboard") return openBoard(args[0] || "8-blitz");
  if (!$("profile-name")) buildProfile();
  const my = ++shown.token;
  Object.assign(shown, { name: args[0] || "", profile: null, points: [], games: [], next: null, category: "" });
  $("profile-name").textContent = shown.name;
  await busy(async () => {
    try {
      const p = await lobbyCall("GET", `/api/players/${enc(shown.name)}`);
      if (my !== shown.token) return;
      shown.profile = p;
      const me = await live.account();
      shown.me = me && me.name;
      shown.blocked = false;
      if (me && me.name !== p.name) {
        const b = await lobbyCall("GET", "/api/me/blocks").catch(() => null);
        const list = (b && (b.blocks || b.players)) || [];
        shown.blocked = list.some((x) => (x.name || x) === p.name);
      }
      const rated = [...(p.ratings || [])].sort((a, b) => b.games - a.games);
      shown.category = rated.length ? rated[0].category : "";
      render();
      await Promise.all([showCategory(shown.category), loadGames(false)]);
    } catch (err) {
      if (my !== shown.token) return;
      if (err.status === 404) showMessage(t("profile.notFound"));
      else showError(err);
      render();
    }
  });
}

/** Draws the screen shown in the page's language. */
export function render() {
  if ($("profile-name") && !$("view-profile").hidden) renderProfile();
  if ($("board-list") && !$("view-leaderboard").hidden) renderBoard();
}

function cell(text, cls) {
  return el("td", cls || "", text);
}

function renderProfile() {
  translatePage($("view-profile"));
  const p = shown.profile;
  const name = p ? p.name : shown.name;
  $("profile-name").textContent = name;
  if (p && p.bot) $("profile-name").append(" ", el("span", "bot-mark", t("lobby.bot")));
  $("profile-meta").textContent = p && p.created ? t("profile.joined", { date: dateTime(p.created) }) : "";
  const other = !!p && !!shown.me && shown.me !== p.name;
  $("profile-challenge").hidden = !other;
  $("profile-block").hidden = !other;
  $("profile-block").textContent = shown.blocked ? t("profile.unblock") : t("profile.block");

  const ratings = $("profile-ratings");
  ratings.replaceChildren();
  const list = (p && p.ratings) || [];
  for (const r of list) {
    const tr = el("tr");
    const c = el("td");
    const b = el("a", "", categoryName(r.category));
    b.href = `#/leaderboard/${enc(r.category)}`;
    c.append(b);
    tr.append(c, cell(ratingText(r.rating, r.provisional)), cell(num(r.games || 0)));
    ratings.append(tr);
  }
  labelCells(ratings);
  $("profile-no-ratings").hidden = list.length > 0;
  const pick = $("profile-category");
  pick.replaceChildren();
  for (const r of list) {
    const o = el("option", "", categoryName(r.category));
    o.value = r.category;
    pick.append(o);
  }
  pick.value = shown.category;
  pick.closest(".lobby-field").hidden = list.length === 0;
  renderGraph();

  const sides = $("profile-sides");
  sides.replaceChildren();
  for (const side of ["s", "n"]) {
    const s = (p && p.by_side && p.by_side[side]) || { wins: 0, draws: 0, losses: 0 };
    const tr = el("tr");
    const th = el("th", "", sideName(side));
    th.scope = "row";
    tr.append(th, cell(num(s.wins)), cell(num(s.draws)), cell(num(s.losses)));
    sides.append(tr);
  }
  labelCells(sides);

  const cat = $("pf-category");
  const keep = cat.value;
  cat.replaceChildren(Object.assign(el("option", "", t("profile.any")), { value: "" }));
  for (const r of list) cat.append(Object.assign(el("option", "", categoryName(r.category)), { value: r.category }));
  cat.value = list.some((r) => r.category === keep) ? keep : "";
  renderGames();
}

function renderGraph() {
  const box = $("profile-graph");
  box.replaceChildren();
  const pts = shown.points;
  const body = $("profile-points");
  body.replaceChildren();
  box.closest(".view").querySelector(".points-table").hidden = !pts.length;
  if (!pts.length) return;
  const first = pts[0];
  const last = pts[pts.length - 1];
  const label = t("profile.graphLabel", {
    player: shown.name,
    category: categoryName(shown.category),
    from: ratingText(first.rating),
    to: ratingText(last.rating),
  });
  const svg = drawGraph(pts, label, (v) => num(v));
  svg.setAttribute("dir", "ltr");
  box.append(svg);
  for (const pt of [...pts].reverse()) {
    const tr = el("tr");
    const d = el("td");
    if (pt.game) {
      const a = el("a", "", dateTime(pt.at));
      a.href = `#/play/${enc(pt.game)}`;
      d.append(a);
    } else d.textContent = dateTime(pt.at);
    tr.append(d, cell(ratingText(pt.rating)));
    body.append(tr);
  }
  labelCells(body);
}

async function showCategory(category) {
  shown.category = category;
  shown.points = [];
  if (category) {
    try {
      const res = await lobbyCall("GET", `/api/players/${enc(shown.name)}/ratings?category=${enc(category)}`);
      shown.points = (res && res.points) || [];
    } catch (err) {
      showError(err);
    }
  }
  if (shown.profile) renderProfile();
}

function resultName(g) {
  let text = t("profile.unfinished");
  if (g.result === "win") text = t("profile.win");
  else if (g.result === "loss") text = t("profile.loss");
  else if (g.result === "draw") text = t("profile.draw");
  else if (g.status === "aborted") text = t("profile.aborted");
  // A rated game's change of the player's rating: "Win (+12)".
  return g.rating_change ? t("profile.resultChange", { result: text, diff: diffText(g.rating_change.diff) }) : text;
}

async function loadGames(more) {
  const q = new URLSearchParams();
  const f = { result: $("pf-result").value, side: $("pf-side").value, category: $("pf-category").value, opponent: $("pf-opponent").value.trim() };
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  q.set("limit", "20");
  if (more && shown.next) q.set("before", shown.next);
  try {
    const res = await lobbyCall("GET", `/api/players/${enc(shown.name)}/games?${q}`);
    shown.games = more ? [...shown.games, ...(res.games || [])] : res.games || [];
    shown.next = res.next || null;
  } catch (err) {
    showError(err);
  }
  if (shown.profile) renderProfile();
}

function renderGames() {
  const body = $("profile-games");
  body.replaceChildren();
  for (const g of shown.games) {
    const tr = el("tr");
    const opp = el("td");
    if (g.opponent && g.opponent.name) {
      const a = el("a", "", playerText(g.opponent));
      a.href = `#/profile/${enc(g.opponent.name)}`;
      opp.append(a);
    }
    const open = el("td");
    const a = el("a", "", t("profile.openGame"));
    a.href = `#/play/${enc(g.id)}`;
    open.append(a);
    tr.append(cell(dateTime(g.created || g.updated)), opp, cell(g.side ? sideName(g.side) : ""), cell(categoryName(g.category)), cell(resultName(g)), open);
    body.append(tr);
  }
  labelCells(body);
  $("profile-games-empty").hidden = shown.games.length > 0;
  $("profile-more").hidden = !shown.next;
}

async function toggleBlock() {
  const p = shown.profile;
  if (!p) return;
  try {
    if (shown.blocked) await lobbyCall("POST", `/api/me/blocks/${enc(p.name)}/remove`, {});
    else await lobbyCall("POST", "/api/me/blocks", { name: p.name });
    shown.blocked = !shown.blocked;
    showMessage(shown.blocked ? t("block.done", { player: p.name }) : t("block.undone", { player: p.name }), "info");
  } catch (err) {
    showError(err);
  }
  renderProfile();
}

async function openBoard(category) {
  if (!$("board-list")) buildBoard();
  const pick = $("board-category");
  if (!parseCategory(category)) category = "8-blitz";
  const holes = parseCategory(category).holes;
  pick.replaceChildren();
  for (const speed of SPEEDS) {
    const c = `${holes}-${speed}`;
    pick.append(Object.assign(el("option", "", categoryName(c)), { value: c }));
  }
  pick.value = category;
  const my = ++shown.token;
  shown.board = { category, players: [] };
  await busy(async () => {
    try {
      const res = await lobbyCall("GET", `/api/leaderboard?category=${enc(category)}`);
      if (my === shown.token) shown.board = res;
    } catch (err) {
      showError(err);
    }
  });
  renderBoard();
}

function renderBoard() {
  translatePage($("view-leaderboard"));
  const body = $("board-list");
  body.replaceChildren();
  for (const o of $("board-category").options) o.textContent = categoryName(o.value);
  const players = (shown.board && shown.board.players) || [];
  for (const p of players) {
    const tr = el("tr");
    const who = el("td");
    const a = el("a", "", p.name);
    a.href = `#/profile/${enc(p.name)}`;
    who.append(a);
    if (p.bot) who.append(" ", el("span", "bot-mark", t("lobby.bot")));
    tr.append(cell(num(p.rank)), who, cell(ratingText(p.rating)), cell(num(p.games || 0)));
    body.append(tr);
  }
  labelCells(body);
  $("board-empty").hidden = players.length > 0;
  const b = shown.board || {};
  $("board-appear").hidden = !(b.games_to_appear > 0);
  $("board-appear").textContent = b.games_to_appear > 0 ? tp("board.toAppear", b.games_to_appear) : "";
  const you = b.you;
  $("board-you").hidden = !(you && you.provisional && you.needed > 0);
  $("board-you").textContent =
    you && you.provisional && you.needed > 0
      ? tp("board.you", you.needed, { rating: ratingText(you.rating, true), category: categoryName(b.category) })
      : "";
}
