// The game screen: the board, the players, the move list and the game's
// controls. Moves go to the server; the answer's sowing trace is animated
// before the board snaps to the server's position, and earlier moves replay
// from the sowings of the game's view: the page plays no rules itself.
// Against the computer its reply follows after a short, natural pause. An
// online game follows its live connection (online.js): each change the
// server sends is shown, a move animated, and the seat this browser holds
// may move and act. The player's own row is at the bottom unless the board
// is turned; the choice is remembered for each game.

import { api } from "./api.js";
import { Board } from "./board.js";
import { t, tp, num } from "./i18n.js";
import { parsePosition, indexOf, ownerOf, letterOf, startPosition, boardSeeds, other, sideOfMove } from "./notation.js";
import { animateSowing } from "./sowing.js";
import { renderMoves } from "./moves.js";
import {
  moveSentence, endSentence, resultSentence, hintSentence, playerName, playerLabel, sideName,
  sowingOf, playedSentence, offBoardEnd, hasReview,
} from "./explain.js";
import { busy, isBusy, showMessage, clearMessage, showError, announce, sleep, el, initialSpeed, rememberSpeed } from "./ui.js";
import { openNewGame } from "./newgame.js";
import { Live, seatOf, keepSeat, clockText, click, soundOn, setSound, initSound } from "./online.js";

const $ = (id) => document.getElementById(id);

let board;
let game = null; // the game view from the API, or null
let view = 0; // the ply shown: 0 is the start
let preview = null; // a position of a best line the review shows instead of view's: {position, from, text}
let hint = null; // the hint for the current position
let explain = null; // () => the sentence under the board, re-made when the language changes
let anim = null; // AbortController of the running animation, for Skip
let landing = false; // the running animation is of a move just made: the next mover may click at once
let queued = null; // the hole clicked during that animation, played as soon as it is cut short
let thinking = false;
let token = 0; // bumped when another game opens: older async work then stops
let speed = initialSpeed();
let flipped = false; // the board shows North's row at the bottom
let live = null; // the live connection of the online game shown
let seat = null; // {side, token} of the online game shown, when this browser plays it
let connected = false;
let inbox = []; // live messages not yet shown
let stamp = 0; // performance.now() when the clocks shown were read
let pending = null; // a move or action sent on the live connection, awaiting its answer
let confirming = false; // the resign confirmation is shown
let reading = false; // the inbox is being read
let copied = 0; // the timer that hides "Link copied"
let news = null; // {id, say}: the latest answer to an offer in game id, worded for this browser
let sent = ""; // the last action this page sent

export function initPlay() {
  board = new Board($("board"), {
    table: $("table"),
    piles: { s: $("pile-south"), n: $("pile-north") },
    onHole: tryMove,
  });
  $("table").addEventListener("click", (e) => {
    // A click anywhere on the table during an animation finishes it; the
    // holes say so themselves (tryMove).
    if (anim && !e.target.closest(".hole")) skip();
  });
  $("speed").value = speed;
  $("speed").addEventListener("change", (e) => {
    speed = e.target.value;
    rememberSpeed(speed);
  });
  $("skip").addEventListener("click", skip);
  $("new-game").addEventListener("click", () => openNewGame());
  $("start-choice").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-opponent]");
    if (b) openNewGame(b.dataset.opponent);
  });
  $("hint").addEventListener("click", askHint);
  $("takeback").addEventListener("click", takeback);
  $("next-game").addEventListener("click", nextGame);
  $("play-through").addEventListener("click", playThrough);
  $("analyse-game").addEventListener("click", () => {
    location.hash = game ? `#/analysis/${game.id}/${view}` : "#/analysis";
  });
  $("back-to-game").addEventListener("click", () => setView(game.moves.length));
  $("step-first").addEventListener("click", () => setView(0));
  $("step-back").addEventListener("click", () => setView(view - 1));
  $("step-forward").addEventListener("click", () => setView(view + 1));
  $("step-last").addEventListener("click", () => setView(game ? game.moves.length : 0));
  $("sound").checked = soundOn();
  $("sound").addEventListener("change", (e) => setSound(e.target.checked));
  initSound();
  $("online").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-action]");
    if (!b) return;
    if (b.dataset.action !== "resign") return act(b.dataset.action);
    confirmResign();
  });
  $("resign").addEventListener("click", confirmResign);
  $("resign-yes").addEventListener("click", () => (game && !game.online ? resignHere() : act("resign")));
  $("resign-no").addEventListener("click", () => {
    confirming = false;
    render();
    $(game && game.online ? "act-resign" : "resign").focus();
  });
  $("rematch").addEventListener("click", rematch);
  $("copy-link").addEventListener("click", copyLink);
  $("flip-board").addEventListener("click", flipBoard);
  $("invite-copy").addEventListener("click", copyInvite);
  $("invite-share").addEventListener("click", () =>
    navigator.share({ title: t("app.title"), text: t("invite.text"), url: $("invite-link").value }).catch(() => {}),
  );
  setInterval(renderClocks, 200);
}

/** Shows the game id, at ply (default: the latest), and lets the computer move if it is its turn. */
export async function openGame(id, ply) {
  if (game && game.id === id && (anim || thinking || live)) {
    // The game is moving on screen, or live: leave it be.
    if (!anim) view = ply === undefined ? game.moves.length : Math.max(0, Math.min(ply, game.moves.length));
    preview = null;
    render();
    return;
  }
  const my = ++token;
  stopAnimation();
  closeLive();
  await busy(async () => {
    try {
      const g = await api.game(id);
      if (my !== token) return;
      seat = g.online ? seatOf(id) : null;
      setGame(g);
      if (ply !== undefined) view = Math.max(0, Math.min(ply, g.moves.length));
      if (g.online) {
        live = new Live(id, seat && seat.token, onLive, (up) => {
          connected = up;
          render();
        });
      }
      render();
      await computerTurn(my);
    } catch (err) {
      if (my !== token) return;
      showError(err);
      game = null;
      render();
    }
  });
}

/** Resumes the most recent unfinished game, or offers a new one. */
export async function resumeOrNew() {
  if (game && game.status === "playing") {
    location.replace(`#/play/${game.id}`);
    return;
  }
  await busy(async () => {
    try {
      const list = await api.listGames(20, 0);
      const open = (list.games || []).find((g) => g.result === "*" && g.status !== "aborted" && (!g.online || seatOf(g.id)));
      if (open) {
        location.replace(`#/play/${open.id}`);
        return;
      }
      // No game to go on with: the ways to play (renderEmpty).
      token++;
      stopAnimation();
      closeLive();
      game = null;
      render();
    } catch (err) {
      showError(err);
      render();
    }
  });
}

/** Called when the play screen is left: a running animation finishes at once. */
export function leavePlay() {
  if (anim) anim.abort();
  closeLive();
}

function closeLive() {
  if (live) live.close();
  live = seat = null;
  connected = confirming = false;
  inbox = [];
  settle();
}

function setGame(g) {
  if (!game || game.id !== g.id) {
    flipped = flipOf(g);
    confirming = false;
    clearTimeout(copied);
    sent = "";
    $("copy-feedback").textContent = "";
    $("game-link").hidden = true;
  }
  stamp = performance.now();
  if (g.online && seat && g.online.next && !seatOf(g.online.next)) keepSeat(g.online.next, { side: seat.side, token: seat.token });
  game = g;
  view = g.moves.length;
  preview = null;
  hint = null;
  explain = lastMoveExplanation();
}

/** The sentence for the latest move of a freshly loaded game. */
function lastMoveExplanation() {
  const g = game;
  const ply = g.moves.length;
  if (ply === 0) return null;
  return () => playedSentence(g, ply);
}

function endText(g) {
  if (g.status === "playing") return "";
  return endSentence(g, g.status, g.position, g.moves.length);
}

const computerSide = () => (game && game.computer ? game.computer.side : null);
const computerToMove = () => !!game && game.status === "playing" && game.toMove === computerSide();

/** The origin and ending holes of the move that led to ply, for highlighting. */
function lastHoles(ply) {
  if (!game || ply < 1) return null;
  const sw = sowingOf(game, ply);
  if (sw) return { from: sw.laps[0].from, to: sw.laps[sw.laps.length - 1].to };
  return { from: indexOf(game.moves[ply - 1], game.holes), to: -1 };
}

// The side of the board: the player's own row at the bottom, unless the
// person turned the board for this game (remembered for the latest games).
const FLIP_KEY = "endodoi.flip";
const FLIPS_KEPT = 100;

function flips() {
  try {
    const m = JSON.parse(localStorage.getItem(FLIP_KEY));
    return m && typeof m === "object" ? m : {};
  } catch {
    return {};
  }
}

/** The row this browser plays in g: the person's against the computer, its seat's online, else South's. */
function ownSide(g) {
  if (g.online) return seat ? seat.side : "s";
  if (g.computer) return other(g.computer.side);
  return "s";
}

function flipOf(g) {
  const v = flips()[g.id];
  return typeof v === "boolean" ? v : ownSide(g) === "n";
}

function flipBoard() {
  if (!game) return;
  flipped = !flipped;
  const m = flips();
  delete m[game.id]; // the newest last, so that the oldest go first
  m[game.id] = flipped;
  const ids = Object.keys(m);
  for (const id of ids.slice(0, Math.max(0, ids.length - FLIPS_KEPT))) delete m[id];
  try {
    localStorage.setItem(FLIP_KEY, JSON.stringify(m));
  } catch {
    // Not remembered; turned for now.
  }
  render();
}

// review.js is loaded when a finished game is first shown: most visits never need it.
let review = null;
let reviewLoading = null;

/** Draws everything from the state; cheap enough to call after any change. */
export function render() {
  if (!board) return;
  if (review) review.renderReview(game, view, setView, showPreview, preview); // the review of a finished game
  else if (hasReview(game) && !reviewLoading) {
    reviewLoading = import("./review.js").then(
      (m) => {
        review = m;
        render();
      },
      () => {
        reviewLoading = null; // tried again at the next drawing
      },
    );
  }
  if (!game) {
    renderEmpty();
    return;
  }
  const total = game.moves.length;
  $("start-choice").hidden = true;
  $("play-layout").hidden = false;
  // During an online game being played the board is what matters: New game steps back.
  $("new-game").classList.toggle("primary", !(game.online && game.status === "playing"));
  const atEnd = view === total && !preview;
  const over = game.status !== "playing";
  if (over) confirming = false;
  const pos = parsePosition(preview ? preview.position : game.positions[view]);
  const online = game.online;
  const seated = !online || (online.seats.s && online.seats.n);
  const canMove = atEnd && !over && !computerToMove() && !anim && (!online || (seated && !pending && !!seat && seat.side === game.toMove));
  // The result shows once the last move's animation is over.
  const ended = over && !anim;
  // At the end the piles hold the score, the sweep included: the holes the
  // sweep emptied show empty, and seeds that count for nobody (after a
  // repetition) are drawn faded.
  const captured = atEnd ? { s: game.score.south, n: game.score.north } : pos.captured;
  const shown = atEnd && game.status === "no-legal-move" ? { ...pos, board: pos.board.map(() => 0) } : pos;
  $("board").classList.toggle("ended", atEnd && over);
  board.setFlipped(flipped);
  $("flip-board").setAttribute("aria-pressed", String(flipped));
  $("flip-board").disabled = false;
  board.show(shown, {
    legal: canMove ? game.legalMoves : [],
    captured,
    last: preview ? { from: preview.from, to: -1 } : lastHoles(view),
    hint: canMove && hint ? hint.move : null,
  });

  for (const side of ["s", "n"]) {
    const strip = $(side === "s" ? "player-south" : "player-north");
    const name = playerName(game, side);
    $(side === "s" ? "name-south" : "name-north").textContent = name;
    // Without a name the side is the name: say it once.
    strip.querySelector(".side-label").hidden = name === sideName(side);
    strip.classList.toggle("to-move", !over && pos.toMove === side);
  }
  $("thinking").hidden = !thinking;

  // While a move is animated, the board shows the position before it: its mover is sowing.
  $("status").textContent = anim ? t("status.sowing", { player: playerName(game, pos.toMove) }) : statusText();
  const result = $("result");
  result.hidden = !ended;
  result.replaceChildren();
  if (ended) {
    const [head, why] = offBoardEnd(game) || [resultSentence(game, game.result, game.score), endText(game)];
    result.append(el("strong", "", head));
    if (why) result.append(el("p", "", why));
  }
  renderSeries(ended);
  if (online) $("next-game").hidden = !ended || !(online.next || (game.series && !game.series.over && seat));
  // The players follow the next game by themselves; a spectator is shown the way.
  $("next-game").textContent = online && online.next && !seat ? t("online.watchNext") : t("play.nextGame");
  $("rematch").hidden = !!online || !ended || !!game.series;
  renderOnline(ended, seated);
  renderResign(over);

  renderMoves($("moves"), game.moves, view, (side) => playerName(game, side), setView);
  $("step-first").disabled = $("step-back").disabled = view === 0 || !!anim;
  $("step-forward").disabled = $("step-last").disabled = atEnd || !!anim;
  $("viewing").hidden = atEnd || !!anim;
  $("viewing-text").textContent = preview
    ? preview.text
    : view === 0
      ? t("view.viewingStart")
      : t("view.viewing", { round: num(Math.ceil(view / 2)), player: playerName(game, sideOfMove(game.moves[view - 1])), move: game.moves[view - 1] });

  $("hint").disabled = !canMove;
  $("hint").hidden = $("takeback").hidden = !!online;
  // A finished game of a series is counted in the tally, and a resignation
  // stands: such a game stays as it ended.
  $("takeback").disabled = total === 0 || !!anim || thinking || (over && !!game.series) || game.status === "resigned";
  $("play-through").disabled = total === 0 || !!anim;
  $("analyse-game").disabled = $("copy-link").disabled = false;
  $("skip").disabled = !anim;

  let text = "";
  if (!anim && !preview) {
    if (atEnd) text = explain ? explain() : "";
    else if (view > 0) text = playedSentence(game, view);
  }
  $("explain").textContent = text;
  $("hint-text").hidden = !(canMove && hint);
  $("hint-text").textContent = canMove && hint ? hintSentence(hint, game.toMove) : "";
}

function renderEmpty() {
  // Nothing to show: the ways to play take the screen.
  $("start-choice").hidden = false;
  $("play-layout").hidden = true;
  $("board").classList.remove("ended");
  flipped = false;
  board.setFlipped(false);
  $("flip-board").setAttribute("aria-pressed", "false");
  board.show(parsePosition(startPosition(8, 4)), { legal: [] });
  $("name-south").textContent = t("side.south");
  $("name-north").textContent = t("side.north");
  for (const label of document.querySelectorAll("#table .side-label")) label.hidden = true;
  $("player-south").classList.remove("to-move");
  $("player-north").classList.remove("to-move");
  $("thinking").hidden = true;
  $("status").textContent = t("play.noGame");
  $("result").hidden = true;
  $("series-info").hidden = true;
  $("next-game").hidden = true;
  $("rematch").hidden = true;
  $("online").hidden = true;
  $("resign").hidden = $("resign-confirm").hidden = true;
  confirming = false;
  for (const id of ["clock-south", "clock-north", "presence-south", "presence-north"]) $(id).hidden = true;
  $("tally-south").replaceChildren();
  $("tally-north").replaceChildren();
  renderMoves($("moves"), [], 0, () => "", () => {});
  for (const id of ["step-first", "step-back", "step-forward", "step-last", "hint", "takeback", "play-through", "analyse-game", "skip", "copy-link", "flip-board"]) {
    $(id).disabled = true;
  }
  $("viewing").hidden = true;
  $("explain").textContent = "";
  $("hint-text").hidden = true;
}

function statusText() {
  const g = game;
  if (g.status === "aborted") return t("status.aborted");
  if (g.status !== "playing") return g.online && g.online.next && !seat ? t("online.nextStarted") : t("status.over");
  if (g.online) {
    if (!g.online.seats.s || !g.online.seats.n) return seat ? t("online.waitFriend") : t("online.waitSecond");
    if (!seat) return t("status.toMove", { player: playerLabel(g, g.toMove) });
    return seat.side === g.toMove ? t("status.yourMove") : t("online.waitingFor", { player: playerName(g, g.toMove) });
  }
  if (computerToMove()) return t("status.computerMoves");
  if (computerSide()) return t("status.yourMove");
  return t("status.toMove", { player: playerLabel(g, g.toMove) });
}

function renderSeries(ended) {
  const s = game.series;
  const info = $("series-info");
  for (const side of ["s", "n"]) {
    const tally = $(side === "s" ? "tally-south" : "tally-north");
    tally.replaceChildren();
    if (!s) {
      tally.removeAttribute("role");
      tally.removeAttribute("aria-label");
      continue;
    }
    const wins = side === "s" ? s.wins.south : s.wins.north;
    for (let k = 0; k < wins; k++) tally.append(el("span", "pin"));
    tally.setAttribute("role", "img");
    tally.setAttribute("aria-label", t("series.pins", { wins: num(wins) }));
  }
  info.hidden = !s;
  $("next-game").hidden = !s || s.over || !ended;
  if (!s) return;
  info.replaceChildren(el("span", "series-target", t("series.target", { n: num(s.target) })));
  if (s.draws) info.append(el("span", "series-draws", tp("series.draws", s.draws)));
  if (s.over && s.winner) info.append(el("strong", "series-won", t("series.won", { player: playerName(game, s.winner) })));
}

/** Shows ply (clamped); a read-only view of an earlier position unless it is the latest. */
export function setView(ply) {
  if (!game || anim) return;
  view = Math.max(0, Math.min(ply, game.moves.length));
  preview = null;
  render();
}

/** Shows p, a position off the game's moves (a best line's, from the review), in place of ply's. */
function showPreview(ply, p) {
  if (!game || anim) return;
  view = Math.max(0, Math.min(ply, game.moves.length));
  preview = p;
  render();
}

/** Stops a running animation (Skip, Escape). */
export function skip() {
  if (anim) anim.abort();
}

function stopAnimation() {
  if (anim) anim.abort();
  anim = null;
  thinking = false;
}

/** A click on a hole or its letter typed: play it, or say why not. */
export function tryMove(letter) {
  if (!game) {
    openNewGame();
    return;
  }
  if (anim) {
    // A click during an animation finishes it at once; during a move's
    // animation a hole of the next mover's is also played then, so that
    // watching a move never costs its answerer time.
    const i = indexOf(letter, game.holes);
    const next = game.toMove;
    const mayPlay = game.online ? !!seat && seat.side === next : next !== computerSide();
    if (landing && mayPlay && i >= 0 && game.status === "playing" && ownerOf(i, game.holes) === next) queued = letter;
    return skip();
  }
  if (isBusy()) return showMessage(t("msg.busy"), "info");
  play(letter);
}

/** Plays letter on the latest position, or says why it cannot be played. */
function play(letter) {
  const why = refusal(letter);
  if (why) return showMessage(why, "info");
  clearMessage();
  playMove(letter);
}

/** Why letter cannot be played now, or "". */
function refusal(letter) {
  if (view !== game.moves.length) return t("msg.viewing");
  if (game.status !== "playing") return t("msg.over");
  const o = game.online;
  if (o && !seat) return t("online.watching");
  if (o && (!o.seats.s || !o.seats.n)) return t("online.waitFriend");
  if (o && pending) return t("msg.busy");
  if (o && game.toMove !== seat.side) return t("online.waitingFor", { player: playerName(game, game.toMove) });
  if (computerToMove()) return t("msg.computerTurn");
  const pos = parsePosition(game.position);
  const i = indexOf(letter, pos.holes);
  if (i < 0) return t("msg.noSuchHole", { letter });
  if (ownerOf(i, pos.holes) !== pos.toMove) {
    return t("msg.notYours", {
      letter,
      player: playerName(game, ownerOf(i, pos.holes)),
      mover: playerName(game, pos.toMove),
    });
  }
  if (pos.board[i] === 0) return t("msg.empty", { letter });
  if (!game.legalMoves.includes(letter)) return t("msg.endless", { letter });
  return "";
}

/** A letter typed on the keyboard: the hole of the side to move with that letter, in either case. */
export function typeLetter(key) {
  if (!game) return;
  // During a move's animation the board still shows the position before
  // it; a key then names a hole for the move after it.
  const pos = parsePosition(anim && landing ? game.position : game.positions[view]);
  const k = key.toLowerCase().charCodeAt(0) - 97;
  if (k >= pos.holes) return showMessage(t("msg.noSuchHole", { letter: key }), "info");
  tryMove(letterOf(pos.toMove === "s" ? k : pos.holes + k, pos.holes));
}

async function playMove(letter) {
  const my = token;
  const g = game;
  if (g.online && live && live.send({ type: "move", move: letter, ply: g.moves.length })) return waitReply();
  await busy(async () => {
    try {
      const res = await api.move(g.id, letter, g.moves.length, seat && seat.token);
      if (my !== token || !newer(res.game)) return;
      clearMessage();
      await playOut(res.game, res.sowing, my);
      await computerTurn(my);
    } catch (err) {
      await recover(err, my);
    }
  });
}

/** Shows an API error; a conflict means the game changed elsewhere, so reload it. */
async function recover(err, my) {
  stopAnimation();
  if (err.status === 409 && game && my === token) {
    // The server's own words ("the game has 2 moves, not 1: reload it")
    // are for programs: the page says what happened, once.
    try {
      setGame(await api.game(game.id));
      showMessage(t("error.reloaded"), "info");
    } catch (err2) {
      showError(err2);
    }
  } else showError(err);
  render();
}

/** Lets the computer move while it is its turn, each reply after a natural pause. */
async function computerTurn(my) {
  while (my === token && computerToMove()) {
    thinking = true;
    render();
    const started = performance.now();
    let res;
    try {
      res = await api.computer(game.id, game.moves.length);
      // At least about 700 ms, a little more at random: an instant reply feels abrupt.
      await sleep(700 + Math.random() * 450 - (performance.now() - started));
    } finally {
      thinking = false;
    }
    if (my !== token) return;
    await playOut(res.game, res.sowing, my);
  }
}

/**
 * Animates the move that led to next (a game view) and then shows next;
 * quick skips the animation, brisk paces it for a player waiting to
 * answer. A hole clicked meanwhile is played at once after it.
 */
async function playOut(next, sowing, my, { quick = false, brisk = false } = {}) {
  const ply = next.moves.length;
  const before = parsePosition(next.positions[ply - 1]);
  click();
  stamp = performance.now();
  hint = null;
  anim = new AbortController();
  landing = true;
  queued = null;
  const signal = anim.signal;
  game = next;
  view = ply - 1;
  render();
  try {
    await animateSowing(board, before, sowing, { speed: quick ? "instant" : speed, signal, onLap: showLap, onCapture: () => click("capture"), brisk });
    if (next.status === "no-legal-move" && !signal.aborted) await animateSweep(next, signal);
  } finally {
    $("lap-info").textContent = "";
    anim = null;
    landing = false;
  }
  const letter = queued;
  queued = null;
  if (my !== token) return;
  view = ply;
  explain = () => moveSentence(next, sowing, next.holes);
  render();
  const status = next.status === "playing" ? statusText() : resultSentence(next, next.result, next.score);
  announce(
    t("move.announce", {
      sentence: [moveSentence(next, sowing, next.holes), endText(next)].filter(Boolean).join(" "),
      status,
    }),
  );
  // Not awaited: online, the reply to it comes through the inbox being read.
  if (letter && game === next) play(letter);
}

function showLap(lap, laps, hand) {
  $("lap-info").textContent = t("play.lap", { lap: num(lap), laps: num(laps), hand: num(hand) });
}

/** The sweep at the end: the seeds left fly to the last mover's pile. */
async function animateSweep(next, signal) {
  if (speed === "instant") return;
  const pos = parsePosition(next.position);
  const to = pos.toMove === "s" ? "n" : "s";
  if (boardSeeds(pos) === 0) return;
  await sleep(400, signal);
  const flights = [];
  pos.board.forEach((n, i) => {
    if (n > 0 && !signal.aborted) flights.push(board.fly(i, to, n, 600, signal));
  });
  await Promise.all(flights);
  board.setPile(to, to === "s" ? next.score.south : next.score.north);
}

async function askHint() {
  if (!game || game.status !== "playing") return;
  const my = token;
  await busy(async () => {
    try {
      const h = await api.hint(game.id);
      if (my !== token) return;
      hint = h;
      clearMessage();
      render();
      announce(hintSentence(h, game.toMove));
    } catch (err) {
      await recover(err, my);
    }
  });
}

async function takeback() {
  if (!game) return;
  const my = token;
  await busy(async () => {
    try {
      const g = await api.takeback(game.id, game.moves.length);
      if (my !== token) return;
      setGame(g);
      clearMessage();
      render();
      announce(statusText());
    } catch (err) {
      await recover(err, my);
    }
  });
}

/** Asks before resigning: a resignation cannot be taken back. */
function confirmResign() {
  if (!game || game.status !== "playing") return;
  confirming = true;
  render();
  $("resign-yes").focus();
}

/**
 * The resignation of a game on one device, and its confirmation (online
 * the seat's own buttons resign). Against the computer the person resigns;
 * between two people, the side to move.
 */
function renderResign(over) {
  const online = !!game.online;
  $("resign").hidden = online || over;
  $("resign").disabled = !!anim || thinking;
  $("resign-confirm").hidden = !confirming;
  const who = online || game.computer ? "" : playerName(game, game.toMove);
  $("resign-sure").textContent = who ? t("play.resignFor", { player: who }) : t("act.resignSure");
}

async function resignHere() {
  confirming = false;
  const g = game;
  if (!g || g.online || g.status !== "playing") return render();
  const my = token;
  await busy(async () => {
    try {
      const v = await api.action(g.id, "resign", g.moves.length);
      if (my !== token) return;
      setGame(v);
      render();
      announce(offBoardEnd(v).join(" "));
      $($("rematch").hidden ? "new-game" : "rematch").focus();
    } catch (err) {
      await recover(err, my);
    }
  });
}

/** A new game with the same settings, the players' sides swapped. */
async function rematch() {
  const g = game;
  if (!g || g.online) return;
  const body = { position: g.start, variant: g.variant, maxLaps: g.maxLaps };
  if (g.north) body.south = g.north;
  if (g.south) body.north = g.south;
  if (g.computer) body.computer = { side: other(g.computer.side), level: g.computer.level };
  await busy(async () => {
    try {
      const next = await api.createGame(body);
      location.hash = `#/play/${next.id}`;
    } catch (err) {
      showError(err);
    }
  });
}

/** Copies the game's link; where the clipboard is not available, shows it selected. */
async function copyLink() {
  if (!game) return;
  const url = new URL(`#/play/${game.id}`, location.href).href;
  const field = $("game-link");
  const say = (text) => {
    clearTimeout(copied);
    $("copy-feedback").textContent = text;
    copied = setTimeout(() => ($("copy-feedback").textContent = ""), 5000);
  };
  try {
    await navigator.clipboard.writeText(url);
    field.hidden = true;
    say(t("play.linkCopied"));
  } catch {
    field.value = url;
    field.hidden = false;
    field.focus();
    field.select();
    say(t("invite.select"));
  }
}

async function nextGame() {
  if (game && game.online) {
    if (game.online.next) location.hash = `#/play/${game.online.next}`;
    else act("rematch");
    return;
  }
  const s = game && game.series;
  if (!s) return;
  await busy(async () => {
    try {
      const g = await api.nextInSeries(s.id);
      location.hash = `#/play/${g.id}`;
    } catch (err) {
      await recover(err, token);
    }
  });
}

/** Replays the game's moves with animation from the viewed position (or the start) to the latest. */
async function playThrough() {
  if (!game || !game.moves.length || anim) return;
  const my = token;
  const g = game;
  const from = view === g.moves.length ? 0 : view;
  anim = new AbortController();
  const signal = anim.signal;
  const pace = speed === "instant" ? "fast" : speed;
  await busy(async () => {
    try {
      for (let ply = from + 1; ply <= g.moves.length && !signal.aborted; ply++) {
        const before = parsePosition(g.positions[ply - 1]);
        view = ply - 1;
        render();
        board.show(before, { legal: [], last: lastHoles(ply - 1) });
        await animateSowing(board, before, sowingOf(g, ply), { speed: pace, signal, onLap: showLap });
        view = ply;
        $("explain").textContent = playedSentence(g, ply);
        board.show(parsePosition(g.positions[ply]), { legal: [], last: lastHoles(ply) });
        await sleep(500, signal);
      }
    } finally {
      $("lap-info").textContent = "";
      anim = null;
    }
    if (my !== token) return;
    view = g.moves.length;
    render();
  });
}

// ---------------------------------------------------------------------------
// Online games.

/** Whether a game view is newer than the one shown (always, offline). */
const newer = (g) => !game || !game.online || g.online.rev > game.online.rev;

/** Shows a game view from the server unless an older one; true if shown. */
function take(g) {
  if (!game || g.id !== game.id || g.online.rev < game.online.rev) return false;
  if (g.online.rev > game.online.rev) setGame(g);
  else {
    game.online = g.online; // the same game: who is here, the clocks
    stamp = performance.now();
  }
  render();
  return true;
}

function onLive(m) {
  if (m.type === "error") {
    settle();
    showMessage(t("error.server", { error: m.error }));
    render();
  } else if (m.type === "game" && game && m.game && m.game.id === game.id) {
    inbox.push(m);
    // A newer change cuts the move being shown short: the game moved on.
    if (anim && landing && m.game.online.rev > game.online.rev) skip();
    if (!reading) readInbox(token);
  }
}

/** Shows the live messages in order: a move animated, anything else at once. */
async function readInbox(my) {
  reading = true;
  await busy(async () => {
    while (inbox.length && my === token) {
      while (anim) await sleep(50); // a move of this page's own, or a play-through
      if (!inbox.length || my !== token) break;
      const m = inbox.shift();
      const g = m.game;
      const shown = game.online.rev;
      if (pending && g.online.rev > pending.rev && m.event !== "presence" && m.event !== "join") settle();
      const before = game.online;
      if (g.online.rev > shown && m.event === "move" && m.sowing && g.moves.length === game.moves.length + 1) {
        report(m.event, g, before);
        // Another's move is shown briskly: its answerer's clock runs.
        const mover = sideOfMove(g.moves[g.moves.length - 1]);
        await playOut(g, m.sowing, my, { quick: inbox.length > 1, brisk: !seat || seat.side !== mover });
      } else if (take(g) && g.online.rev > shown) tell(m.event, g, before);
    }
  });
  reading = false;
  if (inbox.length) readInbox(token); // a newer game's, arrived meanwhile
}

/** Says what the opponent did; follows a rematch. */
function tell(event = "", g, before) {
  const o = g.online;
  const mine = seat && seat.side;
  if (event === "presence") return;
  const said = report(event, g, before);
  render();
  let text = "";
  if (event === "draw-offer" && o.drawOffer && o.drawOffer !== mine) text = t("offer.draw", { player: playerName(g, o.drawOffer) });
  else if (event === "takeback-request" && o.takebackOffer && o.takebackOffer !== mine) text = t("offer.takeback", { player: playerName(g, o.takebackOffer) });
  else if (event.startsWith("rematch") && o.rematchOffer && o.rematchOffer !== mine) text = t("offer.rematch", { player: playerName(g, o.rematchOffer) });
  else if (event === "join" && mine) text = t("online.joined", { player: playerName(g, other(mine)) });
  else if (g.status !== "playing" && event !== "presence") {
    text = [said, ...(offBoardEnd(g) || [resultSentence(g, g.result, g.score), endText(g)])].filter(Boolean).join(" ");
  } else if (event === "takeback" || event === "takeback-accept") text = [said, statusText()].filter(Boolean).join(" ");
  else text = said;
  if (event.startsWith("rematch") && o.next && !mine) {
    text = [text, t("online.nextStarted")].filter(Boolean).join(" ");
    showMessage(t("online.nextStarted"), "info");
  }
  if (text) announce(text);
  if (event.startsWith("rematch") && o.next && mine) location.hash = `#/play/${o.next}`;
}

/**
 * Keeps the word on event (a change of g, whose online part was before)
 * that replaces the one shown before: an answer to an offer, an offer
 * lapsing with a move, an abort, worded for this browser's seat (or for a
 * spectator); "" for the other changes. Returns it.
 */
function report(event, g, before) {
  const mine = seat ? seat.side : "";
  const byMe = sent;
  if (event === "abort") sent = "";
  // After an accepted rematch the players read it in the new game.
  const id = event.startsWith("rematch") && g.online.next && mine ? g.online.next : g.id;
  news = { id, say: () => newsText(event, g, before || {}, mine, byMe) };
  return news.say();
}

/** The words of report, from the side of mine ("" for a spectator). */
function newsText(event, g, before, mine, byMe) {
  const name = (side) => playerName(g, side);
  // An answer to offerer's offer, by the other player.
  const answer = (offerer, [byYou, toYou, between]) => {
    if (!offerer) return "";
    const actor = other(offerer);
    if (mine === actor) return byYou({ player: name(offerer) });
    if (mine === offerer) return toYou({ player: name(actor) });
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
      return mine ? t("news.aborted", { player: name(other(mine)) }) : "";
    case "move": {
      const lapsed = [];
      if (before.drawOffer && !o.drawOffer) {
        lapsed.push(before.drawOffer === mine ? t("news.drawLapsedYours") : t("news.drawLapsed", { offerer: name(before.drawOffer) }));
      }
      if (before.takebackOffer && !o.takebackOffer) {
        lapsed.push(before.takebackOffer === mine ? t("news.takebackLapsedYours") : t("news.takebackLapsed", { offerer: name(before.takebackOffer) }));
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
        pending = { rev: game.online.rev, done: () => (clearTimeout(timer), resolve()) };
      }),
  );
  render();
  return done;
}

function settle() {
  const p = pending;
  pending = null;
  if (p) p.done();
}

/** A seat's action: on the live connection, else over HTTP. */
async function act(action) {
  confirming = false;
  const g = game;
  if (!g || !seat) return;
  sent = action;
  if (live && live.send({ type: "action", action, ply: g.moves.length })) return waitReply();
  await busy(async () => {
    try {
      const before = game.online;
      const res = await api.action(g.id, action, g.moves.length, seat.token);
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
  const o = game && game.online;
  for (const side of ["s", "n"]) {
    const c = $(side === "s" ? "clock-south" : "clock-north");
    c.hidden = !o || !o.clock || !o.clocks;
    if (c.hidden) continue;
    const running = o.running === side && game.status === "playing";
    const left = o.clocks[side] - (running ? performance.now() - stamp : 0);
    const text = clockText(left, o.clock.days);
    if (c.textContent !== text) c.textContent = text;
    c.classList.toggle("low", left < 10000);
    c.classList.toggle("running", running);
  }
}

/** The online parts: clocks, presence, the invitation, offers and the seat's actions. */
function renderOnline(ended, seated) {
  const o = game.online;
  const mine = seat && seat.side;
  $("online").hidden = !o;
  for (const side of ["s", "n"]) {
    const p = $(side === "s" ? "presence-south" : "presence-north");
    // Without the live connection nobody's presence is known.
    p.hidden = !o || !o.seats[side] || mine === side || ended || !connected;
    if (p.hidden) continue;
    p.classList.toggle("here", !!o.connected[side]);
    p.textContent = o.connected[side] ? t("online.here") : t("online.away");
  }
  renderClocks();
  if (!o) return;
  const state = $("live-state");
  state.classList.toggle("down", !connected);
  state.textContent = [
    connected ? "" : t("online.reconnecting"),
    mine ? t("online.youPlay", { side: sideName(mine) }) : t("online.watching"),
    o.watchers && connected ? tp("online.watchers", o.watchers) : "",
  ].filter(Boolean).join(" · ");
  // The clocks wait for each player's first move: say so, or they look stuck.
  $("clock-note").hidden = !o.clock || game.status !== "playing" || game.moves.length >= 2;
  const said = news && news.id === game.id ? news.say() : "";
  $("offer-news").hidden = !said;
  $("offer-news").textContent = said;

  const invite = !!mine && !!seat.invite && !seated && !ended;
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
    const p = el("p", "offer", who === mine ? own : theirs);
    if (mine && who !== mine) {
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
  $("online-actions").hidden = !mine || confirming;
  const n = game.moves.length;
  const show = {
    "act-abort": playing && n < 2,
    "act-resign": playing && n >= 2,
    "act-draw": playing && seated && !o.drawOffer,
    "act-takeback": playing && seated && !o.takebackOffer && game.moves.some((m) => sideOfMove(m) === mine),
    "act-rematch": ended && seated && !game.series && !o.next && !o.rematchOffer,
  };
  for (const [id, on] of Object.entries(show)) {
    $(id).hidden = !on;
    $(id).disabled = !!pending;
  }
}
