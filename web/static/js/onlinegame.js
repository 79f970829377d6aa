// The controller of an online game (game.js): it follows the game's live
// connection (livesocket.js), showing each change the server sends, a move
// animated; the seat this browser holds, if any, may move and act: offer
// or answer a draw, a take-back or a rematch, resign or abort. Clocks,
// who is here, the invitation and the spectators' count are its own.

import { api } from "./api.js";
import { t, tp } from "./i18n.js";
import { other, sideOfMove } from "./notation.js";
import { playerName, playerLabel, sideName, resultSentence, offBoardEnd } from "./explain.js";
import { busy, showMessage, showError, announce, sleep, el } from "./ui.js";
import { seatOf, keepSeat, clockText } from "./online.js";
import { Live } from "./livesocket.js";
import { $, shown, motion, render, setGame, setOnline, playOut, sendMove, skip, confirmResign, endConfirm, endText } from "./game.js";

/** The connection and what this browser may do in the game. */
const net = {
  live: null, // the live connection of the game shown
  seat: null, // {side, token, invite?} when this browser plays the game
  connected: false,
  inbox: [], // live messages not yet shown
  reading: false, // the inbox is being read
  pending: null, // a move or action sent on the live connection, awaiting its answer
  stamp: 0, // performance.now() when the clocks shown were read
  news: null, // {id, say}: the latest answer to an offer in game id, worded for this browser
  sent: "", // the last action this page sent
  tip: null, // the newest game known, the one a move message follows
  syncing: false, // the game was asked for again, after a gap
};

// The version of the live connection's messages this page speaks
// (docs/api.md, Live updates): a move comes as a move message, applied to
// the newest game known; the server says its version with each game.
const PROTOCOL = 2;

const mine = () => (net.seat ? net.seat.side : "");
const seated = () => {
  const seats = shown.game.online.seats;
  return !!(seats.s && seats.n);
};

export const onlineGame = {
  resignButton: "act-resign",
  init() {
    $("online").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-action]");
      if (!b) return;
      if (b.dataset.action !== "resign") return act(b.dataset.action);
      confirmResign();
    });
    $("invite-copy").addEventListener("click", copyInvite);
    $("invite-share").addEventListener("click", () =>
      navigator.share({ title: t("app.title"), text: t("invite.text"), url: $("invite-link").value }).catch(() => {}),
    );
    setInterval(renderClocks, 200);
  },
  open(g) {
    // A seat is held by its token here, or by the signed-in account (g.you).
    net.seat = seatOf(g.id) || (g.you ? { side: g.you, token: null } : null);
    // A seat held by a token says it; a seat of the signed-in account
    // says hello alone, named by the cookie; a spectator says nothing.
    const token = net.seat ? net.seat.token || "" : null;
    const hello = token === null ? null : token ? { type: "hello", token } : { type: "hello" };
    net.tip = null;
    net.syncing = false;
    net.live = new Live(`/api/games/${encodeURIComponent(g.id)}/live?v=${PROTOCOL}`, hello, onLive, (up) => {
      net.connected = up;
      if (up) net.syncing = false; // the game comes first on a connection
      render();
    });
  },
  close() {
    if (net.live) net.live.close();
    net.live = net.seat = net.tip = null;
    net.connected = false;
    net.inbox = [];
    settle();
  },
  following: () => !!net.live,
  adopt(g, another) {
    if (another) net.sent = "";
    net.stamp = performance.now();
    const { seat } = net;
    if (seat && seat.token && g.online.next && !seatOf(g.online.next)) keepSeat(g.online.next, { side: seat.side, token: seat.token });
  },
  resume() {},
  ownSide: () => mine() || "s",
  canMove: () => seated() && !net.pending && mine() === shown.game.toMove,
  mayQueue: (side) => mine() === side,
  refusal() {
    const g = shown.game;
    if (!net.seat) return t("online.watching");
    if (!seated()) return t("online.waitFriend");
    if (net.pending) return t("msg.busy");
    if (g.toMove !== net.seat.side) return t("online.waitingFor", { player: playerName(g, g.toMove) });
    return "";
  },
  move(letter) {
    const g = shown.game;
    if (net.live && net.live.send({ type: "move", move: letter, ply: g.moves.length })) return waitReply();
    return sendMove(letter, net.seat.token);
  },
  /** Whether a game view is newer than the one shown. */
  newer: (g) => !shown.game || g.online.rev > shown.game.online.rev,
  status,
  render(ended) {
    const g = shown.game;
    const o = g.online;
    // During a game being played the board is what matters: New game steps back.
    $("new-game").classList.toggle("primary", g.status !== "playing");
    $("next-game").hidden = !ended || !(o.next || (g.series && !g.series.over && net.seat));
    // The players follow the next game by themselves; a spectator is shown the way.
    $("next-game").textContent = o.next && !net.seat ? t("online.watchNext") : t("play.nextGame");
    $("rematch").hidden = $("resign").hidden = $("hint").hidden = $("takeback").hidden = true;
    $("resign-sure").textContent = t("act.resignSure");
    renderOnline(ended);
    renderRated(g, ended);
  },
  resign: () => act("resign"),
  next() {
    const o = shown.game.online;
    if (o.next) location.hash = `#/play/${o.next}`;
    else act("rematch");
  },
};

// The players' ratings, Rated or Casual, the rating change, reporting and
// blocking: rated.js, loaded with the first game between accounts.
let rated = null;
let ratedLoading = false;
function renderRated(g, ended) {
  if (rated) return rated.renderRated(g, ended, mine());
  if (!g.players || ratedLoading) return;
  ratedLoading = true;
  import("./rated.js")
    .then(async (m) => {
      await m.init();
      rated = m;
      render();
    })
    .catch(showError)
    .finally(() => (ratedLoading = false));
}

function status() {
  const g = shown.game;
  // An aborted game's result says so: the status does not say it again.
  if (g.status !== "playing") return g.online.next && !net.seat ? t("online.nextStarted") : t("status.over");
  if (!seated()) return net.seat ? t("online.waitFriend") : t("online.waitSecond");
  if (!net.seat) return t("status.toMove", { player: playerLabel(g, g.toMove) });
  return net.seat.side === g.toMove ? t("status.yourMove") : t("online.waitingFor", { player: playerName(g, g.toMove) });
}

/** Shows a game view from the server unless an older one; true if shown. */
function take(g) {
  const game = shown.game;
  if (!game || g.id !== game.id || g.online.rev < game.online.rev) return false;
  if (g.online.rev > game.online.rev) setGame(g);
  else {
    setOnline(g.online); // the same game: who is here, the clocks
    net.stamp = performance.now();
  }
  render();
  return true;
}

function onLive(m) {
  const game = shown.game;
  if (m.type === "error") {
    net.syncing = false;
    settle();
    showMessage(t("error.server", { error: m.error }));
    render();
  } else if (m.type === "game" && game && m.game && m.game.id === game.id) {
    if (m.v > PROTOCOL) reloadOnce(); // a server newer than this page
    net.syncing = false;
    queue(m);
  } else if ((m.type === "move" || m.type === "presence") && game && m.id === game.id && !net.syncing) {
    const g = follow(m);
    if (g) queue({ type: "game", event: m.type, game: g, sowing: m.sowing ? unpack(m.move, m.sowing) : undefined });
  }
}

/** Queues game message m to be shown. */
function queue(m) {
  const tip = newest();
  if (!tip || m.game.online.rev >= tip.online.rev) net.tip = m.game;
  net.inbox.push(m);
  // A newer change cuts the move being shown short: the game moved on.
  if (motion.anim && motion.landing && m.game.online.rev > shown.game.online.rev) skip();
  if (!net.reading) readInbox(shown.token);
}

/** The newest game known: the last one told, or the one shown if newer. */
function newest() {
  const game = shown.game;
  const tip = net.tip;
  return tip && game && tip.id === game.id && tip.online.rev >= game.online.rev ? tip : game;
}

/**
 * The game that a move, or who is connected, makes of the newest game
 * known; null when it has it already, or when it does not follow it: the
 * game is then asked for again.
 */
function follow(m) {
  const b = newest();
  if (m.type === "presence") {
    if (m.rev < b.online.rev) return null;
    if (m.rev === b.online.rev) return { ...b, online: { ...b.online, connected: m.connected, watchers: m.watchers } };
  } else if (m.rev <= b.online.rev) {
    return null;
  } else if (m.rev === b.online.rev + 1 && m.ply === b.moves.length + 1) {
    const sowings = m.sowing ? [...b.sowings, unpack(m.move, m.sowing)] : [];
    return {
      ...b,
      moves: [...b.moves, m.move],
      positions: [...b.positions, m.position],
      sowings,
      sowingsFrom: m.sowing ? b.sowingsFrom : b.moves.length + 1,
      position: m.position,
      toMove: m.toMove,
      legalMoves: m.legalMoves,
      status: m.status,
      result: m.result,
      score: m.score,
      updated: m.updated,
      online: m.online,
    };
  }
  net.syncing = net.live.send({ type: "sync" });
  return null;
}

/** A move message's sowing as a game's. */
const unpack = (move, s) => ({
  move,
  laps: s.laps.map(([from, seeds, to]) => ({ from, seeds, to })),
  captureFrom: s.captureFrom,
  captured: s.captured,
});

/** Reloads the page for a newer server's, at most once a minute. */
function reloadOnce() {
  const key = "endodoi.protocolReload";
  const last = Number(sessionStorage.getItem(key)) || 0;
  if (Date.now() - last < 60000) return;
  sessionStorage.setItem(key, String(Date.now()));
  location.reload();
}

/** Shows the live messages in order: a move animated, anything else at once. */
async function readInbox(my) {
  net.reading = true;
  await busy(async () => {
    while (net.inbox.length && my === shown.token) {
      while (motion.anim) await sleep(50); // a move of this page's own, or a play-through
      if (!net.inbox.length || my !== shown.token) break;
      const m = net.inbox.shift();
      const g = m.game;
      const game = shown.game;
      const before = game.online;
      if (net.pending && g.online.rev > net.pending.rev && m.event !== "presence" && m.event !== "join") settle();
      if (g.online.rev > before.rev && m.event === "move" && m.sowing && g.moves.length === game.moves.length + 1) {
        report(m.event, g, before);
        // Another's move is shown briskly: its answerer's clock runs.
        const mover = sideOfMove(g.moves[g.moves.length - 1]);
        await playOut(g, m.sowing, my, { quick: net.inbox.length > 1, brisk: mine() !== mover });
      } else if (take(g) && g.online.rev > before.rev) tell(m.event, g, before);
    }
  });
  net.reading = false;
  if (net.inbox.length) readInbox(shown.token); // a newer game's, arrived meanwhile
}

/** Says what the opponent did; follows a rematch. */
function tell(event = "", g, before) {
  const o = g.online;
  const me = mine();
  if (event === "presence") return;
  const said = report(event, g, before);
  render();
  let text = "";
  if (event === "draw-offer" && o.drawOffer && o.drawOffer !== me) text = t("offer.draw", { player: playerName(g, o.drawOffer) });
  else if (event === "takeback-request" && o.takebackOffer && o.takebackOffer !== me) text = t("offer.takeback", { player: playerName(g, o.takebackOffer) });
  else if (event.startsWith("rematch") && o.rematchOffer && o.rematchOffer !== me) text = t("offer.rematch", { player: playerName(g, o.rematchOffer) });
  else if (event === "join" && me) text = t("online.joined", { player: playerName(g, other(me)) });
  else if (g.status !== "playing") {
    text = [said, ...(offBoardEnd(g) || [resultSentence(g, g.result, g.score), endText(g)])].filter(Boolean).join(" ");
  } else if (event === "takeback" || event === "takeback-accept") text = [said, status()].filter(Boolean).join(" ");
  else text = said;
  if (event.startsWith("rematch") && o.next && !me) {
    text = [text, t("online.nextStarted")].filter(Boolean).join(" ");
    showMessage(t("online.nextStarted"), "info");
  }
  if (text) announce(text);
  if (event.startsWith("rematch") && o.next && me) location.hash = `#/play/${o.next}`;
}

/**
 * Keeps the word on event (a change of g, whose online part was before)
 * that replaces the one shown before: an answer to an offer, an offer
 * lapsing with a move, an abort, worded for this browser's seat (or for a
 * spectator); "" for the other changes. Returns it.
 */
function report(event, g, before) {
  const me = mine();
  const byMe = net.sent;
  if (event === "abort") net.sent = "";
  // After an accepted rematch the players read it in the new game.
  const id = event.startsWith("rematch") && g.online.next && me ? g.online.next : g.id;
  net.news = { id, say: () => newsText(event, g, before || {}, me, byMe) };
  return net.news.say();
}

/** The words of report, from the side of me ("" for a spectator). */
function newsText(event, g, before, me, byMe) {
  const name = (side) => playerName(g, side);
  // An answer to offerer's offer, by the other player.
  const answer = (offerer, [byYou, toYou, between]) => {
    if (!offerer) return "";
    const actor = other(offerer);
    if (me === actor) return byYou({ player: name(offerer) });
    if (me === offerer) return toYou({ player: name(actor) });
    return between({ player: name(actor), offerer: name(offerer) });
  };
  const o = g.online;
  switch (event) {
    case "draw-decline":
      return answer(before.drawOffer, [
        (p) => t("news.drawDeclinedByYou", p), (p) => t("news.drawDeclinedToYou", p), (p) => t("news.drawDeclined", p)]);
    case "draw-accept":
      return answer(before.drawOffer, [
        (p) => t("news.drawAcceptedByYou", p), (p) => t("news.drawAcceptedToYou", p), (p) => t("news.drawAccepted", p)]);
    case "takeback-decline":
      return answer(before.takebackOffer, [
        (p) => t("news.takebackDeclinedByYou", p), (p) => t("news.takebackDeclinedToYou", p), (p) => t("news.takebackDeclined", p)]);
    case "takeback":
    case "takeback-accept":
      return answer(before.takebackOffer, [
        (p) => t("news.takebackAcceptedByYou", p), (p) => t("news.takebackAcceptedToYou", p), (p) => t("news.takebackAccepted", p)]);
    case "rematch":
      return o.next ? answer(before.rematchOffer, [
        (p) => t("news.rematchAcceptedByYou", p), (p) => t("news.rematchAcceptedToYou", p), (p) => t("news.rematchAccepted", p)]) : "";
    case "abort":
      if (byMe === "abort") return t("news.abortedByYou");
      return me ? t("news.aborted", { player: name(other(me)) }) : "";
    case "move": {
      const lapsed = [];
      if (before.drawOffer && !o.drawOffer) {
        lapsed.push(before.drawOffer === me ? t("news.drawLapsedYours") : t("news.drawLapsed", { offerer: name(before.drawOffer) }));
      }
      if (before.takebackOffer && !o.takebackOffer) {
        lapsed.push(before.takebackOffer === me ? t("news.takebackLapsedYours") : t("news.takebackLapsed", { offerer: name(before.takebackOffer) }));
      }
      return lapsed.join(" ");
    }
  }
  return "";
}

/** Marks the page busy until the server answers what was sent on the live connection. */
function waitReply() {
  settle();
  const done = busy(
    () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          settle();
          render();
        }, 10000);
        net.pending = { rev: shown.game.online.rev, done: () => (clearTimeout(timer), resolve()) };
      }),
  );
  render();
  return done;
}

function settle() {
  const p = net.pending;
  net.pending = null;
  if (p) p.done();
}

/** A seat's action: on the live connection, else over HTTP. */
async function act(action) {
  endConfirm();
  const g = shown.game;
  if (!g || !net.seat) return;
  net.sent = action;
  if (net.live && net.live.send({ type: "action", action, ply: g.moves.length })) return waitReply();
  await busy(async () => {
    try {
      const before = shown.game.online;
      const res = await api.action(g.id, action, g.moves.length, net.seat.token);
      if (take(res)) tell(action, res, before);
    } catch (err) {
      showError(err);
      render();
    }
  });
}

async function copyInvite() {
  const input = $("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
    showMessage(t("invite.copied"), "info");
  } catch {
    input.focus();
    input.select();
    showMessage(t("invite.select"), "info");
  }
}

function renderClocks() {
  const game = shown.game;
  const o = game && game.online;
  for (const side of ["s", "n"]) {
    const c = $(side === "s" ? "clock-south" : "clock-north");
    c.hidden = !o || !o.clock || !o.clocks;
    if (c.hidden) continue;
    const running = o.running === side && game.status === "playing";
    const left = o.clocks[side] - (running ? performance.now() - net.stamp : 0);
    const text = clockText(left, o.clock.days);
    if (c.textContent !== text) c.textContent = text;
    c.classList.toggle("low", left < 10000);
    c.classList.toggle("running", running);
  }
}

/** The online parts: clocks, presence, the invitation, offers and the seat's actions. */
function renderOnline(ended) {
  const game = shown.game;
  const o = game.online;
  const me = mine();
  const { connected, pending, seat } = net;
  const both = seated();
  $("online").hidden = false;
  for (const side of ["s", "n"]) {
    const p = $(side === "s" ? "presence-south" : "presence-north");
    // Without the live connection nobody's presence is known.
    p.hidden = !o.seats[side] || me === side || ended || !connected;
    if (p.hidden) continue;
    p.classList.toggle("here", !!o.connected[side]);
    p.textContent = o.connected[side] ? t("online.here") : t("online.away");
  }
  renderClocks();
  const state = $("live-state");
  state.classList.toggle("down", !connected);
  state.textContent = [
    connected ? "" : t("online.reconnecting"),
    me ? t("online.youPlay", { side: sideName(me) }) : t("online.watching"),
    o.watchers && connected ? tp("online.watchers", o.watchers) : "",
  ].filter(Boolean).join(" · ");
  // The clocks wait for each player's first move: say so, or they look stuck.
  $("clock-note").hidden = !o.clock || game.status !== "playing" || game.moves.length >= 2;
  const said = net.news && net.news.id === game.id ? net.news.say() : "";
  $("offer-news").hidden = !said;
  $("offer-news").textContent = said;

  const invite = !!me && !!seat.invite && !both && !ended;
  $("invite").hidden = !invite;
  if (invite) $("invite-link").value = location.origin + seat.invite;
  $("invite-share").hidden = !navigator.share;

  const name = (side) => playerName(game, side);
  const offers = $("offers");
  offers.replaceChildren();
  for (const [who, theirs, own, yes, no] of [
    [o.drawOffer, t("offer.draw", { player: name(o.drawOffer) }), t("offer.myDraw"), "draw-accept", "draw-decline"],
    [o.takebackOffer, t("offer.takeback", { player: name(o.takebackOffer) }), t("offer.myTakeback"), "takeback-accept", "takeback-decline"],
    [o.rematchOffer, t("offer.rematch", { player: name(o.rematchOffer) }), t("offer.myRematch"), "rematch", ""],
  ]) {
    if (!who || o.next) continue;
    const p = el("p", "offer", who === me ? own : theirs);
    if (me && who !== me) {
      for (const [action, label, cls] of [[yes, t("offer.accept"), "primary small"], [no, t("offer.decline"), "small"]]) {
        if (!action) continue;
        const b = el("button", cls, label);
        b.type = "button";
        b.dataset.action = action;
        b.disabled = !!pending;
        p.append(" ", b);
      }
    }
    offers.append(p);
  }

  const playing = game.status === "playing";
  $("online-actions").hidden = !me || shown.confirming;
  const n = game.moves.length;
  const show = {
    "act-abort": playing && n < 2,
    "act-resign": playing && n >= 2,
    "act-draw": playing && both && !o.drawOffer,
    "act-takeback": playing && both && !o.takebackOffer && game.moves.some((m) => sideOfMove(m) === me),
    "act-rematch": ended && both && !game.series && !o.next && !o.rematchOffer,
  };
  for (const [id, on] of Object.entries(show)) {
    $(id).hidden = !on;
    $(id).disabled = !!pending;
  }
}
