// The lobby's live connection (docs/api.md, Lobby), loaded with the lobby
// or, for a signed-in player, on any screen: one WebSocket to
// /api/lobby/live, reconnecting by itself, whose messages go to the
// screens listening. Signed in, it also brings the challenges (a notice on
// any screen, to accept or decline, the newest first and the older folded:
// notices.js) and the pairings: when a seek is taken,
// a pool pairs or a challenge is accepted, the game opens at once.

import { t, tp, loadPart, translatePage, onLanguageChange } from "./i18n.js";
import { busy, el, announce, showError, showMessage } from "./ui.js";
import { describe, playerText, lobbyCall, useStyle } from "./lobbyapi.js";
import { Live } from "./livesocket.js";
import { arrange, keepNews, leftGames } from "./notices.js";

const listeners = new Set();
const state = {
  live: null, // the connection while wanted
  account: null, // {name} when signed in
  last: null, // the latest lobby message: {seeks, pools, players, challenges}
};

// The challenges known to have gone: an answer may come before the answer
// to the challenge's own sending (a bot answers at once), and must not be
// undone by it.
const goneIds = new Set();
function markGone(id) {
  goneIds.add(id);
  if (goneIds.size > 500) goneIds.delete(goneIds.values().next().value);
}

/** The signed-in account, or null; asked of the server once, or after a sign-in. */
let me = null;
export async function account(fresh = false) {
  if (!me || fresh) {
    me = fetch("/api/me", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((m) => (m && m.account) || null)
      .catch(() => null);
  }
  state.account = await me;
  return state.account;
}

/** Calls fn with each lobby message (and {type:"state"} on each change of connection); returns the way to stop. */
export function listen(fn) {
  listeners.add(fn);
  if (state.last) fn(state.last);
  return () => listeners.delete(fn);
}

export const connected = () => !!state.live && state.live.connected();
export const latest = () => state.last;

function dispatch(m) {
  for (const fn of [...listeners]) fn(m);
}

/** Opens the connection (if not open) and keeps it open. */
export function connect() {
  if (!state.live) state.live = new Live("/api/lobby/live", null, receive, () => dispatch({ type: "state" }));
  else if (!state.live.ws) state.live.connect(); // now, not at the end of the wait
}

/** Closes the connection unless the signed-in player needs it for challenges. */
export function release() {
  if (!state.account) drop();
}

function drop() {
  if (state.live) state.live.close();
  state.live = null;
}

/** The signed-in account as last asked, or null. */
export const signedIn = () => state.account;

/** Applies a message to the lobby kept, then tells the screens. */
function receive(m) {
  const l = state.last;
  switch (m.type) {
    case "lobby":
      state.last = { type: "lobby", seeks: m.seeks || [], pools: m.pools || [], players: m.players || [], challenges: m.challenges || { incoming: [], outgoing: [] } };
      renderNotices();
      break;
    case "players":
      if (l) l.players = m.players || [];
      break;
    case "seek":
      if (l && m.seek) l.seeks = [...l.seeks.filter((s) => s.id !== m.seek.id), m.seek];
      break;
    case "unseek":
      if (l) l.seeks = l.seeks.filter((s) => s.id !== m.id);
      break;
    case "pools":
      if (l) l.pools = m.pools || [];
      break;
    case "challenge":
      if (l && m.challenge && !goneIds.has(m.challenge.id)) {
        const mineOut = state.account && m.challenge.from && m.challenge.from.name === state.account.name;
        const list = mineOut ? "outgoing" : "incoming";
        l.challenges[list] = [...l.challenges[list].filter((c) => c.id !== m.challenge.id), m.challenge];
        if (!mineOut) announce(t("ch.incoming", { player: playerText(m.challenge.from), game: describe(m.challenge) }));
      }
      renderNotices();
      break;
    case "challenge-gone":
      gone(m);
      break;
    case "paired":
      if (m.game) {
        announce(t("lobby.paired"));
        location.hash = `#/play/${encodeURIComponent(m.game)}`;
      }
      break;
  }
  dispatch(m);
}

/** A challenge answered, cancelled or expired: said to the challenger; an accepted one opens its game. */
function gone(m) {
  markGone(m.id);
  const l = state.last;
  if (!l) return;
  const out = l.challenges.outgoing.find((c) => c.id === m.id);
  l.challenges.incoming = l.challenges.incoming.filter((c) => c.id !== m.id);
  l.challenges.outgoing = l.challenges.outgoing.filter((c) => c.id !== m.id);
  if (out) {
    const player = out.to.name;
    const say = {
      declined: () => t("ch.declined", { player }),
      accepted: () => t("ch.accepted", { player }),
      expired: () => t("ch.expired", { player }),
      cancelled: () => t("ch.cancelledByYou", { player }),
      withdrawn: () => t("ch.withdrawn", { player }),
    }[m.why];
    if (say) keepNews(news, { id: m.id, player, text: say(), reason: m.reason || "", at: new Date().toISOString(), accepted: m.why === "accepted", game: m.game || "" });
    if (m.game) location.hash = `#/play/${encodeURIComponent(m.game)}`;
  }
  renderNotices();
}

// The answers to this player's challenges, one a player, shown until
// closed; an accepted one while its game is shown.
const news = [];
addEventListener("hashchange", () => leftGames(news, location.hash) && renderNotices());

/** Starts the connection for a signed-in player: challenges reach every screen. */
export async function start(fresh = false) {
  const a = await account(fresh);
  if (!a) {
    // Signed out: the lobby, if shown, follows anonymously.
    drop();
    if (listeners.size) connect();
    if (state.last) state.last.challenges = { incoming: [], outgoing: [] };
    news.length = 0;
    renderNotices();
    return;
  }
  await Promise.all([loadPart("lobby"), useStyle()]);
  // Signed in, the account's button shows the name, in no language.
  const open = document.getElementById("account-open");
  delete open.dataset.i18n;
  open.textContent = a.name;
  // A connection opened before signing in speaks for nobody: open it again.
  if (fresh) drop();
  connect();
  dispatch({ type: "state" });
}

onLanguageChange(render);

/** The notices of challenges, under the header on every screen. */
function renderNotices() {
  let box = document.getElementById("notices");
  const l = state.last;
  const incoming = (l && l.challenges.incoming) || [];
  const outgoing = (l && l.challenges.outgoing) || [];
  if (!box) {
    if (!incoming.length && !outgoing.length && !news.length) return;
    box = el("section", "notices");
    box.id = "notices";
    box.setAttribute("aria-labelledby", "notices-heading");
    const h = el("h2", "visually-hidden");
    h.id = "notices-heading";
    h.dataset.i18n = "ch.heading";
    box.append(h, el("div", "notices-list"));
    document.getElementById("message").before(box);
    translatePage(box);
  }
  const list = box.querySelector(".notices-list");
  // The folded notices stay open if they were.
  const open = !!list.querySelector(".notices-more[open]");
  list.replaceChildren();
  const button = (label, cls, fn) => {
    const b = el("button", cls, label);
    b.type = "button";
    b.addEventListener("click", fn);
    return b;
  };
  if (incoming.length > 1) {
    const p = el("div", "notice all");
    p.append(el("span", "", tp("ch.waiting", incoming.length)));
    p.append(button(t("ch.declineAll"), "small ch-decline-all", declineAll));
    list.append(p);
  }
  const notice = (kind, id, text, ...buttons) => {
    const p = el("div", "notice " + kind);
    p.dataset.challenge = id;
    p.append(el("span", "", text), ...buttons);
    return p;
  };
  const { first, folded } = arrange([
    ...incoming.map((c) => ({ at: c.created, node: notice("incoming", c.id, t("ch.incoming", { player: playerText(c.from), game: describe(c) }),
      button(t("offer.accept"), "primary small ch-accept", () => answer(c, "accept")),
      button(t("offer.decline"), "small ch-decline", () => answer(c, "decline"))) })),
    ...outgoing.map((c) => ({ at: c.created, node: notice("outgoing", c.id, t("ch.outgoing", { player: playerText(c.to), game: describe(c) }),
      button(t("ch.cancel"), "small ch-cancel", () => answer(c, "cancel"))) })),
    ...news.map((n) => ({ at: n.at, node: notice("news", n.id, n.reason ? t("ch.withReason", { text: n.text, reason: n.reason }) : n.text,
      button(t("ch.close"), "small ch-close", () => {
        news.splice(news.indexOf(n), 1);
        renderNotices();
      })) })),
  ]);
  list.append(...first.map((x) => x.node));
  if (folded.length) {
    const more = el("details", "notices-more");
    more.open = open;
    more.append(el("summary", "", tp("ch.more", folded.length)), ...folded.map((x) => x.node));
    list.append(more);
  }
  if (news.length > 1) {
    list.append(button(t("ch.closeAll"), "small ch-close-all", () => {
      news.length = 0;
      renderNotices();
    }));
  }
  box.hidden = !list.children.length;
}

/** Takes challenge id off the notices: answered, or found gone. */
function forget(id, why) {
  markGone(id);
  const l = state.last;
  if (l) {
    l.challenges.incoming = l.challenges.incoming.filter((x) => x.id !== id);
    l.challenges.outgoing = l.challenges.outgoing.filter((x) => x.id !== id);
  }
  renderNotices();
  dispatch({ type: "challenge-gone", id, why });
}

/** Accepts, declines or cancels a challenge. */
async function answer(c, what) {
  await busy(async () => {
    try {
      const res = await lobbyCall("POST", `/api/challenges/${encodeURIComponent(c.id)}/${what}`, {});
      forget(c.id, what === "accept" ? "accepted" : what === "decline" ? "declined" : "cancelled");
      if (what === "accept" && res && res.game) location.hash = `#/play/${encodeURIComponent(res.game)}`;
    } catch (err) {
      // Answered, withdrawn or expired meanwhile: its notice goes.
      if (err.status === 404) {
        forget(c.id, "expired");
        showMessage(t("ch.gone"), "info");
      } else showError(err);
    }
  });
}

/** Declines every challenge waiting for this player's answer. */
async function declineAll() {
  await busy(async () => {
    try {
      const res = await lobbyCall("POST", "/api/challenges/decline-all", {});
      const l = state.last;
      for (const c of (l && l.challenges.incoming) || []) forget(c.id, "declined");
      announce(tp("ch.declinedAll", (res && res.declined) || 0));
    } catch (err) {
      showError(err);
    }
  });
}

/**
 * Adds a challenge just sent to the notices, unless it has been answered
 * already; returns whether it waits for an answer.
 */
export function sent(c) {
  const l = state.last;
  if (!c || goneIds.has(c.id)) return false;
  if (!l) return true;
  l.challenges.outgoing = [...l.challenges.outgoing.filter((x) => x.id !== c.id), c];
  renderNotices();
  return true;
}

/** Re-draws the notices in the page's language. */
export function render() {
  const box = document.getElementById("notices");
  if (box) translatePage(box);
  renderNotices();
}
