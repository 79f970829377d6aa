// The lobby, #/lobby (loaded when first opened): quick pairing in the
// pools, the open seeks live, the bots and the players in the lobby now,
// each to challenge, a seek of one's own, and a challenge to a player by
// name (#/lobby/challenge/{name} fills it in). Anyone may look;
// playing needs an account. When a game is paired it opens by itself
// (lobbylive.js).

import { t, tp, loadPart, translatePage } from "./i18n.js";
import { busy, el, showMessage, showError, announce, clearMessage } from "./ui.js";
import { clockName } from "./online.js";
import * as live from "./lobbylive.js";
import { lobbyCall, playerText, ratingText, categoryName, clockOf, describe, useStyle, labelCells } from "./lobbyapi.js";

const $ = (id) => document.getElementById(id);
let built = false;
let stop = null; // stops listening to the lobby
let lobby = { seeks: [], pools: [], players: [], challenges: { incoming: [], outgoing: [] } };
let me = null;

// The time controls a seek or a challenge may have, as the new-game dialog's.
const CLOCKS = ["1+0", "2+1", "3+2", "5+3", "10+0", "10+5", "15+10", "1d", "3d", "7d"];

function parseClock(v) {
  const d = /^(\d+)d$/.exec(v);
  if (d) return { minutes: 0, increment: 0, days: Number(d[1]) };
  const [m, i] = v.split("+").map(Number);
  return { minutes: m, increment: i, days: 0 };
}

// A labelled field; the caller names the label (field(...).firstChild.dataset.i18n), so that the catalog test finds the key.
function field(id, control) {
  const wrap = el("div", "lobby-field");
  const label = el("label");
  label.htmlFor = id;
  control.id = id;
  wrap.append(label, control);
  return wrap;
}

/** Adds an option of value to select s; its text is set by the caller. */
function option(s, value) {
  const o = el("option");
  o.value = value;
  s.append(o);
  return o;
}

function numberInput(min, max, value) {
  const i = el("input");
  Object.assign(i, { type: "number", min, max, step: 1, inputMode: "numeric" });
  if (value !== undefined) i.value = value;
  return i;
}

const button = (id, cls = "") => {
  const b = el("button", cls);
  b.type = "button";
  if (id) b.id = id;
  return b;
};

/** The settings fields of a seek or a challenge, with ids prefixed p. */
function gameFields(p) {
  const clock = el("select", "clock-select");
  for (const c of CLOCKS) option(clock, c); // named by render, in the page's language
  clock.value = "5+3";
  const variant = el("select");
  option(variant, "standard").dataset.i18n = "variant.standard";
  option(variant, "cross").dataset.i18n = "variant.cross";
  const mode = el("select");
  option(mode, "rated").dataset.i18n = "lobby.rated";
  option(mode, "casual").dataset.i18n = "lobby.casual";
  const holes = field(p + "holes", numberInput(2, 16, 8));
  holes.firstChild.dataset.i18n = "ng.holes";
  const seeds = field(p + "seeds", numberInput(1, 12, 4));
  seeds.firstChild.dataset.i18n = "ng.seeds";
  const v = field(p + "variant", variant);
  v.firstChild.dataset.i18n = "ng.variant";
  const c = field(p + "clock", clock);
  c.firstChild.dataset.i18n = "ng.clock";
  const m = field(p + "mode", mode);
  m.firstChild.dataset.i18n = "lobby.mode";
  return [holes, seeds, v, c, m];
}

function settings(p) {
  return {
    holes: Number($(p + "holes").value),
    seeds: Number($(p + "seeds").value),
    variant: $(p + "variant").value,
    ...parseClock($(p + "clock").value),
    rated: $(p + "mode").value === "rated",
  };
}

function build() {
  const view = $("view-lobby");
  const h1 = el("h1");
  h1.dataset.i18n = "lobby.heading";
  const intro = el("p", "lead");
  intro.dataset.i18n = "lobby.intro";

  const signIn = el("div", "lobby-signin");
  signIn.id = "lobby-signin";
  const note = el("p");
  note.dataset.i18n = "lobby.signIn";
  const signInButton = button("lobby-signin-button", "primary");
  signInButton.dataset.i18n = "lobby.signInButton";
  signInButton.addEventListener("click", () => $("account-open").click());
  signIn.append(note, signInButton);

  // Quick pairing.
  const quick = el("section", "lobby-quick");
  quick.setAttribute("aria-labelledby", "lobby-quick-heading");
  const qh = el("h2");
  qh.id = "lobby-quick-heading";
  qh.dataset.i18n = "lobby.quick";
  const qn = el("p", "field-note");
  qn.dataset.i18n = "lobby.quickNote";
  const qrated = el("label", "lobby-check");
  const qbox = el("input");
  Object.assign(qbox, { type: "checkbox", id: "lobby-pool-rated", checked: true });
  const qtext = el("span");
  qtext.dataset.i18n = "lobby.rated";
  qrated.append(qbox, qtext);
  const pools = el("div", "pools");
  pools.id = "lobby-pools";
  quick.append(qh, qn, qrated, pools);

  // The seeks.
  const seeks = el("section", "lobby-seeks");
  seeks.setAttribute("aria-labelledby", "lobby-seeks-heading");
  const sh = el("h2");
  sh.id = "lobby-seeks-heading";
  sh.dataset.i18n = "lobby.seeks";
  const wrap = el("div", "table-wrap");
  const table = el("table", "history-table seeks-table");
  const head = el("tr");
  const th = () => {
    const h = el("th");
    h.scope = "col";
    head.append(h);
    return h;
  };
  th().dataset.i18n = "lobby.player";
  th().dataset.i18n = "lobby.rating";
  th().dataset.i18n = "lobby.game";
  th().dataset.i18n = "lobby.clock";
  th().dataset.i18n = "lobby.mode";
  th().dataset.i18n = "lobby.action";
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  body.id = "lobby-seek-list";
  table.append(thead, body);
  wrap.append(table);
  const empty = el("p", "muted");
  empty.id = "lobby-seeks-empty";
  empty.dataset.i18n = "lobby.seeksEmpty";
  seeks.append(sh, wrap, empty);

  // The bots and the players here, to challenge.
  const people = el("section", "lobby-players");
  people.setAttribute("aria-labelledby", "lobby-players-heading");
  const ph = el("h2");
  ph.id = "lobby-players-heading";
  ph.dataset.i18n = "lobby.players";
  const pn = el("p", "field-note");
  pn.dataset.i18n = "lobby.playersNote";
  const plist = el("ul", "player-list");
  plist.id = "lobby-player-list";
  const pempty = el("p", "muted");
  pempty.id = "lobby-players-empty";
  pempty.dataset.i18n = "lobby.playersEmpty";
  people.append(ph, pn, plist, pempty);

  // A seek of one's own.
  const create = el("details", "lobby-form");
  create.id = "lobby-create";
  const cs = el("summary");
  cs.dataset.i18n = "lobby.create";
  const cform = el("form", "lobby-grid");
  cform.id = "lobby-create-form";
  const min = numberInput(0, 4000);
  const max = numberInput(0, 4000);
  const range = el("fieldset", "lobby-range");
  const legend = el("legend");
  legend.dataset.i18n = "lobby.range";
  const rnote = el("p", "field-note");
  rnote.dataset.i18n = "lobby.rangeNote";
  const minField = field("seek-min", min);
  minField.firstChild.dataset.i18n = "lobby.min";
  const maxField = field("seek-max", max);
  maxField.firstChild.dataset.i18n = "lobby.max";
  range.append(legend, minField, maxField, rnote);
  const post = button("seek-post", "primary");
  post.dataset.i18n = "lobby.post";
  post.type = "submit";
  cform.append(...gameFields("seek-"), range, post);
  cform.addEventListener("submit", (e) => {
    e.preventDefault();
    createSeek();
  });
  create.append(cs, cform);

  // A challenge by name.
  const challenge = el("details", "lobby-form");
  challenge.id = "lobby-challenge";
  const chs = el("summary");
  chs.dataset.i18n = "lobby.challenge";
  const chform = el("form", "lobby-grid");
  chform.id = "lobby-challenge-form";
  const name = el("input");
  Object.assign(name, { type: "text", maxLength: 40, autocomplete: "off", spellcheck: false, required: true });
  const side = el("select");
  option(side, "random").dataset.i18n = "ng.random";
  option(side, "s").dataset.i18n = "side.south";
  option(side, "n").dataset.i18n = "side.north";
  const send = button("challenge-send", "primary");
  send.dataset.i18n = "lobby.send";
  send.type = "submit";
  const nameField = field("challenge-name", name);
  nameField.firstChild.dataset.i18n = "lobby.challengeName";
  const sideField = field("challenge-side", side);
  sideField.firstChild.dataset.i18n = "ng.side";
  chform.append(nameField, ...gameFields("challenge-"), sideField, send);
  chform.addEventListener("submit", (e) => {
    e.preventDefault();
    sendChallenge();
  });
  challenge.append(chs, chform);

  const board = el("p", "lobby-links");
  const a = el("a");
  a.href = "#/leaderboard/8-blitz";
  a.dataset.i18n = "lobby.leaderboard";
  board.append(a);

  const err = el("p", "form-error");
  err.id = "lobby-error";
  err.setAttribute("role", "alert");
  err.hidden = true;

  view.append(h1, intro, signIn, err, quick, seeks, people, create, challenge, board);
  translatePage(view);

  pools.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-pool]");
    if (b) pool(b.dataset.pool, b.dataset.mine === "true");
  });
  body.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-seek]");
    if (b) seekAction(b.dataset.seek, b.dataset.mine === "true");
  });
  plist.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-player]");
    if (b) challengeForm(b.dataset.player);
  });
  built = true;
}

/** Opens the lobby; args ["challenge", name] opens the challenge form for name. */
export async function openView(name, args) {
  await busy(async () => {
    await Promise.all([loadPart("lobby"), useStyle()]);
    if (!built) build();
    else translatePage($("view-lobby"));
    me = await live.account();
    if (!stop) stop = live.listen(onLive);
    live.connect();
    try {
      // The lobby as it is now, until the live connection says more.
      const l = live.latest() || (await lobbyCall("GET", "/api/lobby"));
      take(l);
    } catch (err) {
      showError(err);
    }
    render();
    if (args[0] === "challenge" && args[1]) challengeForm(args[1]);
  });
}

/** Opens the challenge form for the player named name. */
function challengeForm(name) {
  const form = $("lobby-challenge");
  form.open = true;
  $("challenge-name").value = name;
  form.scrollIntoView({ block: "nearest" });
  $("challenge-send").focus();
}

/** Called when another screen opens. */
export function leaveView() {
  if (stop) stop();
  stop = null;
  live.release();
}

function take(l) {
  if (!l) return;
  lobby = { seeks: l.seeks || [], pools: l.pools || [], players: l.players || [], challenges: l.challenges || { incoming: [], outgoing: [] } };
}

function onLive(m) {
  if (m.type === "state") me = live.signedIn();
  if (["lobby", "seek", "unseek", "pools", "players"].includes(m.type)) take(live.latest());
  render();
}

/** Draws the lobby from what is known. */
export function render() {
  if (!built || $("view-lobby").hidden) return;
  translatePage($("view-lobby"));
  $("lobby-signin").hidden = !!me;
  for (const id of ["lobby-create", "lobby-challenge"]) $(id).hidden = !me;
  $("lobby-pool-rated").closest("label").hidden = !me;
  for (const o of document.querySelectorAll("#view-lobby .clock-select option")) o.textContent = clockName(parseClock(o.value));
  renderPools();
  renderSeeks();
  renderPlayers();
}

/** The bots and the players in the lobby, each with a button to challenge them. */
function renderPlayers() {
  const list = $("lobby-player-list");
  list.replaceChildren();
  // Bots online first, then the people, then the bots away.
  const rank = (p) => (p.bot ? (p.online ? 0 : 2) : 1);
  const players = [...(lobby.players || [])].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  for (const p of players) {
    const li = el("li", p.online ? "player-here" : "player-away");
    li.dataset.playerRow = p.name;
    const link = el("a", "", p.name);
    link.href = `#/profile/${encodeURIComponent(p.name)}`;
    li.append(link);
    if (p.bot) li.append(" ", el("span", "bot-mark", t("lobby.bot")));
    li.append(" ", el("span", "player-presence", p.online ? t("lobby.online") : t("lobby.offline")));
    const b = el("button", "small", t("lobby.challengeButton"));
    b.type = "button";
    b.dataset.player = p.name;
    b.disabled = !me;
    b.setAttribute("aria-label", t("lobby.challengeLabel", { player: p.name }));
    li.append(b);
    list.append(li);
  }
  $("lobby-players-empty").hidden = players.length > 0;
}

function renderPools() {
  const box = $("lobby-pools");
  box.replaceChildren();
  for (const p of lobby.pools) {
    const b = el("button", "pool" + (p.mine ? " waiting" : ""));
    b.type = "button";
    b.dataset.pool = p.id;
    b.dataset.mine = String(!!p.mine);
    b.disabled = !me;
    const clock = clockOf(p.clock);
    const days = !!(clock && clock.days);
    // A correspondence pool says so first, then its days a move.
    b.append(el("span", days ? "pool-clock days" : "pool-clock", days ? t("cat.correspondence") : clockName(clock)));
    b.append(el("span", "pool-cat", days ? clockName(clock) : categoryName(p.category)));
    if (p.mine) {
      b.append(el("span", "pool-wait", t("lobby.waiting")));
      b.append(el("span", "pool-cancel", t("lobby.cancelWait")));
    } else b.append(el("span", "pool-count", tp("lobby.waitingCount", p.waiting || 0)));
    b.setAttribute("aria-pressed", String(!!p.mine));
    box.append(b);
  }
}

function renderSeeks() {
  const body = $("lobby-seek-list");
  body.replaceChildren();
  const seeks = [...lobby.seeks].sort((a, b) => (a.mine === b.mine ? String(a.created).localeCompare(String(b.created)) : a.mine ? -1 : 1));
  for (const s of seeks) {
    const tr = el("tr");
    tr.dataset.seekRow = s.id;
    if (s.mine) tr.className = "mine";
    const who = el("td");
    const link = el("a", "", s.by.name);
    link.href = `#/profile/${encodeURIComponent(s.by.name)}`;
    who.append(link);
    if (s.by.bot) who.append(" ", el("span", "bot-mark", t("lobby.bot")));
    const game = [tp("cat.holes", s.holes), tp("seeds", s.seeds)];
    if (s.variant === "cross") game.push(t("variant.cross"));
    const range = s.range ? t("lobby.rangeShort", { lo: ratingText(s.range[0]), hi: ratingText(s.range[1]) }) : "";
    const mode = el("td", "", s.rated ? t("lobby.rated") : t("lobby.casual"));
    if (range) mode.append(el("span", "muted seek-range", " " + range));
    const act = el("td");
    const b = el("button", s.mine ? "small" : "primary small", s.mine ? t("lobby.cancelSeek") : t("lobby.accept"));
    b.type = "button";
    b.dataset.seek = s.id;
    b.dataset.mine = String(!!s.mine);
    b.disabled = !me;
    b.setAttribute("aria-label", s.mine ? t("lobby.cancelSeekLabel") : t("lobby.acceptLabel", { player: playerText(s.by), game: describe(s) }));
    act.append(b);
    tr.append(who, el("td", "", ratingText(s.by.rating, s.by.provisional)), el("td", "", game.join(t("lobby.comma"))), el("td", "", clockName(clockOf(s.clock))), mode, act);
    body.append(tr);
  }
  labelCells(body);
  $("lobby-seeks-empty").hidden = seeks.length > 0;
}

/** Says a refusal of the server in the page's words. */
function refused(err) {
  if (err.status === 429) showMessage(t("lobby.tooMany"));
  else if (err.status === 401) showMessage(t("lobby.signIn"));
  else if (err.status === 404) showMessage(t("lobby.gone"), "info");
  else showError(err);
}

async function pool(id, mine) {
  clearMessage();
  try {
    const res = await lobbyCall("POST", `/api/lobby/pools/${encodeURIComponent(id)}/${mine ? "leave" : "join"}`, mine ? {} : { rated: $("lobby-pool-rated").checked });
    for (const p of lobby.pools) if (p.id === id) p.mine = !mine;
    if (res && res.pools) lobby.pools = res.pools;
    if (res && res.game) return paired(res.game);
    announce(mine ? t("lobby.left") : t("lobby.waiting"));
  } catch (err) {
    refused(err);
  }
  render();
}

async function seekAction(id, mine) {
  clearMessage();
  try {
    const res = await lobbyCall("POST", `/api/lobby/seeks/${encodeURIComponent(id)}/${mine ? "cancel" : "accept"}`, {});
    lobby.seeks = lobby.seeks.filter((s) => s.id !== id);
    if (!mine && res && res.game) return paired(res.game);
  } catch (err) {
    refused(err);
    if (err.status === 404 || err.status === 409) lobby.seeks = lobby.seeks.filter((s) => s.id !== id);
  }
  render();
}

function paired(game) {
  announce(t("lobby.paired"));
  location.hash = `#/play/${encodeURIComponent(game)}`;
}

async function createSeek() {
  clearMessage();
  const body = settings("seek-");
  const min = $("seek-min").value.trim();
  const max = $("seek-max").value.trim();
  if (min) body.min_rating = Number(min);
  if (max) body.max_rating = Number(max);
  try {
    const res = await lobbyCall("POST", "/api/lobby/seeks", body);
    if (res && res.seek) lobby.seeks = [...lobby.seeks.filter((s) => s.id !== res.seek.id), { ...res.seek, mine: true }];
    $("lobby-create").open = false;
    announce(t("lobby.posted"));
  } catch (err) {
    refused(err);
  }
  render();
}

async function sendChallenge() {
  clearMessage();
  const to = $("challenge-name").value.trim();
  if (!to) {
    $("challenge-name").focus();
    return;
  }
  try {
    const res = await lobbyCall("POST", "/api/challenges", { to, ...settings("challenge-"), side: $("challenge-side").value });
    // Answered already (a bot answers at once), the answer is in the notices.
    if (live.sent(res && (res.challenge || res))) showMessage(t("ch.sent", { player: to }), "info");
    $("lobby-challenge").open = false;
  } catch (err) {
    if (err.status === 403) showMessage(t("ch.refused"));
    else if (err.status === 404) showMessage(t("ch.unknown", { player: to }));
    else refused(err);
  }
}
