// The game screen's core, shared by the controllers of local games
// (localgame.js) and online games (onlinegame.js, loaded when an online
// game is first shown): the board, the players, the move list, the view of
// earlier moves and the animation of a move. Moves go to the server; the
// answer's sowing trace is animated before the board snaps to the server's
// position, and earlier moves replay from the sowings of the game's view:
// the page plays no rules itself. The player's own row is at the bottom
// unless the board is turned; the choice is remembered for each game.
//
// The controller of the game shown says who may move, plays a move, words
// the status and draws its own controls; localGame lists its methods.

import { api } from "./api.js";
import { Board } from "./board.js";
import { t, tp, num } from "./i18n.js";
import { parsePosition, indexOf, ownerOf, letterOf, startPosition, boardSeeds, sideOfMove, roundOf } from "./notation.js";
import { animateSowing } from "./sowing.js";
import { renderMoves } from "./moves.js";
import { moveSentence, endSentence, resultSentence, hintSentence, playerName, sideName, sowingOf, playedSentence, offBoardEnd, hasReview } from "./explain.js";
import { busy, isBusy, showMessage, clearMessage, showError, announce, sleep, el, initialSpeed, rememberSpeed } from "./ui.js";
import { openNewGame } from "./newgame.js";
import { seatOf, click, soundOn, setSound, initSound } from "./online.js";

export const $ = (id) => document.getElementById(id);

// The state below is game.js's own: the controllers read it, and change it
// through the functions exported here.

/** The game shown and how. */
export const shown = {
  game: null, // the game view from the API, or null
  view: 0, // the ply shown: 0 is the start
  preview: null, // a position of a best line the review shows instead of view's: {position, from, text}
  hint: null, // the hint for the current position
  explain: null, // () => the sentence under the board, re-made when the language changes
  flipped: false, // the board shows North's row at the bottom
  confirming: false, // the resign confirmation is shown
  token: 0, // bumped when another game opens: older async work then stops
};

/** What moves on the board. */
export const motion = {
  anim: null, // AbortController of the running animation, for Skip
  landing: false, // the running animation is of a move just made: the next mover may click at once
  queued: null, // the hole clicked during that animation, played as soon as it is cut short
  thinking: false, // the computer is choosing its move
  speed: initialSpeed(),
};

const screen = {
  board: null,
  local: null, // the local games' controller
  online: null, // a promise of the online games' controller
  loadOnline: null, // () => a promise of its module
  ctl: null, // the controller of the game shown
  copied: 0, // the timer that hides "Link copied"
  review: null, // review.js, loaded when a finished game is first shown: most visits never need it
  reviewLoading: null,
};

export function initPlay(local, loadOnline) {
  Object.assign(screen, { local, loadOnline, ctl: local });
  screen.board = new Board($("board"), {
    table: $("table"),
    piles: { s: $("pile-south"), n: $("pile-north") },
    onHole: tryMove,
  });
  $("table").addEventListener("click", (e) => {
    // A click anywhere on the table during an animation finishes it; the
    // holes say so themselves (tryMove).
    if (motion.anim && !e.target.closest(".hole")) skip();
  });
  $("speed").value = motion.speed;
  $("speed").addEventListener("change", (e) => {
    motion.speed = e.target.value;
    rememberSpeed(motion.speed);
  });
  $("skip").addEventListener("click", skip);
  $("new-game").addEventListener("click", () => openNewGame());
  $("start-choice").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-opponent]");
    if (b) openNewGame(b.dataset.opponent);
  });
  $("next-game").addEventListener("click", () => screen.ctl.next());
  $("play-through").addEventListener("click", playThrough);
  $("analyse-game").addEventListener("click", () => {
    location.hash = shown.game ? `#/analysis/${shown.game.id}/${shown.view}` : "#/analysis";
  });
  $("back-to-game").addEventListener("click", () => setView(shown.game.moves.length));
  $("step-first").addEventListener("click", () => setView(0));
  $("step-back").addEventListener("click", () => setView(shown.view - 1));
  $("step-forward").addEventListener("click", () => setView(shown.view + 1));
  $("step-last").addEventListener("click", () => setView(shown.game ? shown.game.moves.length : 0));
  $("sound").checked = soundOn();
  $("sound").addEventListener("change", (e) => setSound(e.target.checked));
  initSound();
  $("resign-yes").addEventListener("click", () => screen.ctl.resign());
  $("resign-no").addEventListener("click", () => {
    shown.confirming = false;
    render();
    $(screen.ctl.resignButton).focus();
  });
  $("copy-link").addEventListener("click", copyLink);
  $("flip-board").addEventListener("click", flipBoard);
  // On a phone the panel goes under the board and its review: the result
  // (with a rated game's rating change) comes first, under the board.
  const narrow = matchMedia("(max-width: 900px)");
  const placeResult = () => (narrow.matches ? $("explain").before($("result")) : $("status").after($("result")));
  narrow.addEventListener("change", placeResult);
  placeResult();
  local.init();
}

/** The controller of g's kind. */
function controllerOf(g) {
  if (!g.online) return screen.local;
  screen.online ||= screen.loadOnline().then(
    (m) => (m.onlineGame.init(), m.onlineGame),
    (err) => {
      screen.online = null; // tried again at the next opening
      throw err;
    },
  );
  return screen.online;
}

/** Shows the game id, at ply (default: the latest), and lets the computer move if it is its turn. */
export async function openGame(id, ply) {
  const s = shown;
  if (s.game && s.game.id === id && (motion.anim || motion.thinking || screen.ctl.following())) {
    // The game is moving on screen, or live: leave it be.
    if (!motion.anim) s.view = ply === undefined ? s.game.moves.length : clamp(ply);
    s.preview = null;
    render();
    return;
  }
  const my = ++s.token;
  stopAnimation();
  leave();
  await busy(async () => {
    try {
      const g = await api.game(id);
      const ctl = await controllerOf(g);
      if (my !== s.token) return;
      screen.ctl = ctl;
      ctl.open(g);
      setGame(g);
      if (ply !== undefined) s.view = clamp(ply);
      render();
      await screen.ctl.resume(my);
    } catch (err) {
      if (my !== s.token) return;
      showError(err);
      s.game = null;
      render();
    }
  });
}

/** Resumes the most recent unfinished game, or offers a new one. */
export async function resumeOrNew() {
  if (shown.game && shown.game.status === "playing") {
    location.replace(`#/play/${shown.game.id}`);
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
      shown.token++;
      stopAnimation();
      leave();
      shown.game = null;
      render();
    } catch (err) {
      showError(err);
      render();
    }
  });
}

/**
 * Shows the game shown from the server if it is one of sent (ids of this
 * browser's games -> the server's), once it is over and still.
 */
export function showSent(sent) {
  const g = shown.game;
  const to = g && sent[g.id];
  if (!to || g.status === "playing") return;
  if (motion.anim || motion.thinking) return void setTimeout(() => showSent(sent), 300);
  location.replace(`#/play/${encodeURIComponent(to)}` + (shown.view < g.moves.length ? `/${shown.view}` : ""));
}

/** Called when the play screen is left: a running animation finishes at once. */
export function leavePlay() {
  if (motion.anim) motion.anim.abort();
  leave();
}

function leave() {
  screen.ctl.close();
  shown.confirming = false;
}

const clamp = (ply) => Math.max(0, Math.min(ply, shown.game.moves.length));

/** Shows the game view g, at its latest move. */
export function setGame(g) {
  const s = shown;
  const another = !s.game || s.game.id !== g.id;
  if (another) {
    s.flipped = flipOf(g);
    s.confirming = false;
    clearTimeout(screen.copied);
    $("copy-feedback").textContent = "";
    $("game-link").hidden = true;
  }
  screen.ctl.adopt(g, another);
  s.game = g;
  s.view = g.moves.length;
  s.preview = null;
  s.hint = null;
  // The sentence for the latest move of a freshly loaded game.
  s.explain = g.moves.length ? () => playedSentence(g, g.moves.length) : null;
}

export function endText(g) {
  if (g.status === "playing") return "";
  return endSentence(g, g.status, g.position, g.moves.length);
}

/** The origin and ending holes of the move that led to ply, for highlighting. */
function lastHoles(ply) {
  const g = shown.game;
  if (!g || ply < 1) return null;
  const sw = sowingOf(g, ply);
  if (sw) return { from: sw.laps[0].from, to: sw.laps[sw.laps.length - 1].to };
  return { from: indexOf(g.moves[ply - 1], g.holes), to: -1 };
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

function flipOf(g) {
  const v = flips()[g.id];
  return typeof v === "boolean" ? v : screen.ctl.ownSide(g) === "n";
}

function flipBoard() {
  const g = shown.game;
  if (!g) return;
  shown.flipped = !shown.flipped;
  const m = flips();
  delete m[g.id]; // the newest last, so that the oldest go first
  m[g.id] = shown.flipped;
  const ids = Object.keys(m);
  for (const id of ids.slice(0, Math.max(0, ids.length - FLIPS_KEPT))) delete m[id];
  try {
    localStorage.setItem(FLIP_KEY, JSON.stringify(m));
  } catch {
    // Not remembered; turned for now.
  }
  render();
}

/** Hides the elements of ids. */
export function hide(...ids) {
  for (const id of ids) $(id).hidden = true;
}

/** The online parts, hidden for the other games. */
export const ONLINE_PARTS = ["online", "clock-south", "clock-north", "presence-south", "presence-north"];

/** Draws everything from the state; cheap enough to call after any change. */
export function render() {
  const { board, ctl } = screen;
  if (!board) return;
  const s = shown;
  const game = s.game;
  const anim = motion.anim;
  if (screen.review) screen.review.renderReview(game, s.view, setView, showPreview, s.preview); // the review of a finished game
  else if (hasReview(game) && !screen.reviewLoading) {
    screen.reviewLoading = import("./review.js").then(
      (m) => {
        screen.review = m;
        render();
      },
      () => {
        screen.reviewLoading = null; // tried again at the next drawing
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
  const atEnd = s.view === total && !s.preview;
  const over = game.status !== "playing";
  if (over) s.confirming = false;
  const pos = parsePosition(s.preview ? s.preview.position : game.positions[s.view]);
  const canMove = atEnd && !over && !anim && ctl.canMove();
  // The result shows once the last move's animation is over.
  const ended = over && !anim;
  // At the end the piles hold the score, the sweep included: the holes the
  // sweep emptied show empty, and seeds that count for nobody (after a
  // repetition) are drawn faded.
  const captured = atEnd ? { s: game.score.south, n: game.score.north } : pos.captured;
  const drawn = atEnd && game.status === "no-legal-move" ? { ...pos, board: pos.board.map(() => 0) } : pos;
  $("board").classList.toggle("ended", atEnd && over);
  board.setFlipped(s.flipped);
  $("flip-board").setAttribute("aria-pressed", String(s.flipped));
  $("flip-board").disabled = false;
  board.show(drawn, {
    legal: canMove ? game.legalMoves : [],
    captured,
    last: s.preview ? { from: s.preview.from, to: -1 } : lastHoles(s.view),
    hint: canMove && s.hint ? s.hint.move : null,
  });

  for (const side of ["s", "n"]) {
    const strip = $(side === "s" ? "player-south" : "player-north");
    const name = playerName(game, side);
    $(side === "s" ? "name-south" : "name-north").textContent = name;
    // Without a name the side is the name: say it once.
    strip.querySelector(".side-label").hidden = name === sideName(side);
    strip.classList.toggle("to-move", !over && pos.toMove === side);
  }
  $("thinking").hidden = !motion.thinking;

  // While a move is animated, the board shows the position before it: its mover is sowing.
  $("status").textContent = anim ? t("status.sowing", { player: playerName(game, pos.toMove) }) : ctl.status();
  const result = $("result");
  result.hidden = !ended;
  result.replaceChildren();
  if (ended) {
    const [head, why] = offBoardEnd(game) || [resultSentence(game, game.result, game.score), endText(game)];
    result.append(el("strong", "", head));
    if (why) result.append(el("p", "", why));
  }
  renderSeries(ended);
  $("resign-confirm").hidden = !s.confirming;
  ctl.render(ended, over, canMove);

  renderMoves($("moves"), game.moves, s.view, (side) => playerName(game, side), setView);
  $("step-first").disabled = $("step-back").disabled = s.view === 0 || !!anim;
  $("step-forward").disabled = $("step-last").disabled = atEnd || !!anim;
  $("viewing").hidden = atEnd || !!anim;
  $("viewing-text").textContent = s.preview
    ? s.preview.text
    : s.view === 0
      ? t("view.viewingStart")
      : t("view.viewing", { round: num(roundOf(s.view)), player: playerName(game, sideOfMove(game.moves[s.view - 1])), move: game.moves[s.view - 1] });

  $("play-through").disabled = total === 0 || !!anim;
  $("analyse-game").disabled = $("copy-link").disabled = false;
  $("skip").disabled = !anim;

  let text = "";
  if (!anim && !s.preview) {
    if (atEnd) text = s.explain ? s.explain() : "";
    else if (s.view > 0) text = playedSentence(game, s.view);
  }
  $("explain").textContent = text;
  $("hint-text").hidden = !(canMove && s.hint);
  $("hint-text").textContent = canMove && s.hint ? hintSentence(s.hint, game.toMove) : "";
}

function renderEmpty() {
  // Nothing to show: the ways to play take the screen.
  $("start-choice").hidden = false;
  $("play-layout").hidden = true;
  $("board").classList.remove("ended");
  shown.flipped = false;
  screen.board.setFlipped(false);
  $("flip-board").setAttribute("aria-pressed", "false");
  screen.board.show(parsePosition(startPosition(8, 4)), { legal: [] });
  $("name-south").textContent = t("side.south");
  $("name-north").textContent = t("side.north");
  for (const label of document.querySelectorAll("#table .side-label")) label.hidden = true;
  $("player-south").classList.remove("to-move");
  $("player-north").classList.remove("to-move");
  $("status").textContent = t("play.noGame");
  hide("thinking", "result", "series-info", "next-game", "rematch", "resign", "resign-confirm", "viewing", "hint-text", ...ONLINE_PARTS);
  shown.confirming = false;
  $("tally-south").replaceChildren();
  $("tally-north").replaceChildren();
  renderMoves($("moves"), [], 0, () => "", () => {});
  for (const id of ["step-first", "step-back", "step-forward", "step-last", "hint", "takeback", "play-through", "analyse-game", "skip", "copy-link", "flip-board"]) {
    $(id).disabled = true;
  }
  $("explain").textContent = "";
}

function renderSeries(ended) {
  const s = shown.game.series;
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
  if (s.over && s.winner) info.append(el("strong", "series-won", t("series.won", { player: playerName(shown.game, s.winner) })));
}

/** Shows ply (clamped); a read-only view of an earlier position unless it is the latest. */
export function setView(ply) {
  if (!shown.game || motion.anim) return;
  shown.view = clamp(ply);
  shown.preview = null;
  render();
}

/** Shows p, a position off the game's moves (a best line's, from the review), in place of ply's. */
function showPreview(ply, p) {
  if (!shown.game || motion.anim) return;
  shown.view = clamp(ply);
  shown.preview = p;
  render();
}

/** Stops a running animation (Skip, Escape). */
export function skip() {
  if (motion.anim) motion.anim.abort();
}

export function stopAnimation() {
  skip();
  motion.anim = null;
  motion.thinking = false;
}

/** A click on a hole or its letter typed: play it, or say why not. */
export function tryMove(letter) {
  const g = shown.game;
  if (!g) {
    openNewGame();
    return;
  }
  if (motion.anim) {
    // A click during an animation finishes it at once; during a move's
    // animation a hole of the next mover's is also played then, so that
    // watching a move never costs its answerer time.
    const i = indexOf(letter, g.holes);
    const next = g.toMove;
    if (motion.landing && screen.ctl.mayQueue(next) && i >= 0 && g.status === "playing" && ownerOf(i, g.holes) === next) motion.queued = letter;
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
  screen.ctl.move(letter);
}

/** Why letter cannot be played now, or "". */
function refusal(letter) {
  const g = shown.game;
  if (shown.view !== g.moves.length) return t("msg.viewing");
  if (g.status !== "playing") return t("msg.over");
  const why = screen.ctl.refusal();
  if (why) return why;
  const pos = parsePosition(g.position);
  const i = indexOf(letter, pos.holes);
  if (i < 0) return t("msg.noSuchHole", { letter });
  if (ownerOf(i, pos.holes) !== pos.toMove) {
    return t("msg.notYours", {
      letter,
      player: playerName(g, ownerOf(i, pos.holes)),
      mover: playerName(g, pos.toMove),
    });
  }
  if (pos.board[i] === 0) return t("msg.empty", { letter });
  if (!g.legalMoves.includes(letter)) return t("msg.endless", { letter });
  return "";
}

/** A letter typed on the keyboard: the hole of the side to move with that letter, in either case. */
export function typeLetter(key) {
  const g = shown.game;
  if (!g) return;
  // During a move's animation the board still shows the position before
  // it; a key then names a hole for the move after it.
  const pos = parsePosition(motion.anim && motion.landing ? g.position : g.positions[shown.view]);
  const k = key.toLowerCase().charCodeAt(0) - 97;
  if (k >= pos.holes) return showMessage(t("msg.noSuchHole", { letter: key }), "info");
  tryMove(letterOf(pos.toMove === "s" ? k : pos.holes + k, pos.holes));
}

/** Plays letter over HTTP (with the seat's token online), shows it, then lets the computer answer. */
export async function sendMove(letter, seatToken) {
  const my = shown.token;
  const g = shown.game;
  await busy(async () => {
    try {
      const res = await api.move(g.id, letter, g.moves.length, seatToken);
      if (my !== shown.token || !screen.ctl.newer(res.game)) return;
      clearMessage();
      await playOut(res.game, res.sowing, my);
      await screen.ctl.resume(my);
    } catch (err) {
      await recover(err, my);
    }
  });
}

/** Shows an API error; a conflict means the game changed elsewhere, so reload it. */
export async function recover(err, my) {
  stopAnimation();
  if (err.status === 409 && shown.game && my === shown.token) {
    // The server's own words ("the game has 2 moves, not 1: reload it")
    // are for programs: the page says what happened, once.
    try {
      setGame(await api.game(shown.game.id));
      showMessage(t("error.reloaded"), "info");
    } catch (err2) {
      showError(err2);
    }
  } else showError(err);
  render();
}

/**
 * Animates the move that led to next (a game view) and then shows next;
 * quick skips the animation, brisk paces it for a player waiting to
 * answer. A hole clicked meanwhile is played at once after it.
 */
export async function playOut(next, sowing, my, { quick = false, brisk = false } = {}) {
  const ply = next.moves.length;
  const before = parsePosition(next.positions[ply - 1]);
  click();
  screen.ctl.adopt(next, false);
  shown.hint = null;
  const anim = (motion.anim = new AbortController());
  motion.landing = true;
  motion.queued = null;
  const signal = anim.signal;
  shown.game = next;
  shown.view = ply - 1;
  render();
  try {
    await animateSowing(screen.board, before, sowing, { speed: quick ? "instant" : motion.speed, signal, onLap: showLap, onCapture: () => click("capture"), brisk });
    if (next.status === "no-legal-move" && !signal.aborted) await animateSweep(next, signal);
  } finally {
    $("lap-info").textContent = "";
    motion.anim = null;
    motion.landing = false;
  }
  const letter = motion.queued;
  motion.queued = null;
  if (my !== shown.token) return;
  shown.view = ply;
  shown.explain = () => moveSentence(next, sowing, next.holes);
  render();
  const status = next.status === "playing" ? screen.ctl.status() : resultSentence(next, next.result, next.score);
  announce(
    t("move.announce", {
      sentence: [moveSentence(next, sowing, next.holes), endText(next)].filter(Boolean).join(" "),
      status,
    }),
  );
  // Not awaited: online, the reply to it comes through the inbox being read.
  if (letter && shown.game === next) play(letter);
}

function showLap(lap, laps, hand) {
  $("lap-info").textContent = t("play.lap", { lap: num(lap), laps: num(laps), hand: num(hand) });
}

/** The sweep at the end: the seeds left fly to the last mover's pile. */
async function animateSweep(next, signal) {
  if (motion.speed === "instant") return;
  const pos = parsePosition(next.position);
  const to = pos.toMove === "s" ? "n" : "s";
  if (boardSeeds(pos) === 0) return;
  await sleep(400, signal);
  const flights = [];
  pos.board.forEach((n, i) => {
    if (n > 0 && !signal.aborted) flights.push(screen.board.fly(i, to, n, 600, signal));
  });
  await Promise.all(flights);
  screen.board.setPile(to, to === "s" ? next.score.south : next.score.north);
}

/** Asks before resigning: a resignation cannot be taken back. */
export function confirmResign() {
  if (!shown.game || shown.game.status !== "playing") return;
  shown.confirming = true;
  render();
  $("resign-yes").focus();
}

/** Puts the resign confirmation away (drawn at the next render). */
export function endConfirm() {
  shown.confirming = false;
}

/** Marks the computer thinking, or not, and draws it. */
export function setThinking(on) {
  motion.thinking = on;
  render();
}

/** Shows hint h, the answer of the hint button, for the current position. */
export function setHint(h) {
  shown.hint = h;
  render();
}

/** Takes the online part of a view of the game shown with no other change (who is here, the clocks). */
export function setOnline(online) {
  if (shown.game) shown.game.online = online;
}

/** Copies the game's link; where the clipboard is not available, shows it selected. */
async function copyLink() {
  if (!shown.game) return;
  const url = new URL(`#/play/${shown.game.id}`, location.href).href;
  const field = $("game-link");
  const say = (text) => {
    clearTimeout(screen.copied);
    $("copy-feedback").textContent = text;
    screen.copied = setTimeout(() => ($("copy-feedback").textContent = ""), 5000);
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

/** Replays the game's moves with animation from the viewed position (or the start) to the latest. */
async function playThrough() {
  const g = shown.game;
  if (!g || !g.moves.length || motion.anim) return;
  const my = shown.token;
  const board = screen.board;
  const from = shown.view === g.moves.length ? 0 : shown.view;
  motion.anim = new AbortController();
  const signal = motion.anim.signal;
  const pace = motion.speed === "instant" ? "fast" : motion.speed;
  await busy(async () => {
    try {
      for (let ply = from + 1; ply <= g.moves.length && !signal.aborted; ply++) {
        const before = parsePosition(g.positions[ply - 1]);
        shown.view = ply - 1;
        render();
        board.show(before, { legal: [], last: lastHoles(ply - 1) });
        await animateSowing(board, before, sowingOf(g, ply), { speed: pace, signal, onLap: showLap });
        shown.view = ply;
        $("explain").textContent = playedSentence(g, ply);
        board.show(parsePosition(g.positions[ply]), { legal: [], last: lastHoles(ply) });
        await sleep(500, signal);
      }
    } finally {
      $("lap-info").textContent = "";
      motion.anim = null;
    }
    if (my !== shown.token) return;
    shown.view = g.moves.length;
    render();
  });
}
