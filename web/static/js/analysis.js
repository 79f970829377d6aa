// The analysis board: load a position or a game record, play moves freely
// for either side, step through them, and read the engine's evaluation of
// the position shown (re-run after every change).

import { api } from "./api.js";
import { Board } from "./board.js";
import { t, num } from "./i18n.js";
import { parsePosition, startPosition, indexOf, ownerOf, letterOf } from "./notation.js";
import { animateSowing } from "./sowing.js";
import { renderMoves } from "./moves.js";
import { moveSentence, endSentence, resultSentence, evalText, sideName } from "./explain.js";
import { busy, isBusy, showMessage, clearMessage, showError, el, initialAnalysisSpeed, rememberSpeed } from "./ui.js";

const $ = (id) => document.getElementById(id);

let board;
let line = null; // {start, variant, maxLaps, moves, positions}
let view = 0; // the ply shown
let info = null; // the /api/position answer for the position shown
let explain = null; // () => sentence about the last move played here
let evaluation = null; // the /api/analyze answer for the position shown
let pending = null; // AbortController of the running analysis
let animating = false;
let loadedGame = ""; // the game id last opened from the play screen
let speed = initialAnalysisSpeed(); // the analysis board's own animation speed

export function initAnalysis() {
  board = new Board($("an-board"), {
    table: $("an-table"),
    piles: { s: $("an-pile-south"), n: $("an-pile-north") },
    onHole: tryMove,
  });
  $("an-speed").value = speed;
  $("an-speed").addEventListener("change", (e) => {
    speed = e.target.value;
    rememberSpeed(speed, true);
  });
  // A click on the board during an animation finishes it at once.
  $("an-table").addEventListener("click", () => {
    if (animating) skipAnalysis();
  });
  $("an-load").addEventListener("click", () => load($("an-input").value));
  $("an-reset").addEventListener("click", () => {
    const holes = line ? parsePosition(line.start).holes : 8;
    $("an-input").value = startPosition(holes, 4);
    load($("an-input").value);
  });
  $("an-first").addEventListener("click", () => setView(0));
  $("an-back").addEventListener("click", () => setView(view - 1));
  $("an-forward").addEventListener("click", () => setView(view + 1));
  $("an-last").addEventListener("click", () => setView(line ? line.moves.length : 0));
}

/** Opens the analysis screen; with a game id, that game at ply. */
export async function openAnalysis(gameId, ply) {
  if (gameId && gameId !== loadedGame) {
    loadedGame = gameId;
    await busy(async () => {
      try {
        const g = await api.game(gameId);
        $("an-input").value = [g.start, ...g.moves].join(" ");
        $("an-variant").value = g.variant;
        const at = ply === undefined ? g.moves.length : Math.min(ply, g.moves.length);
        await setLine({ start: g.start, variant: g.variant, maxLaps: g.maxLaps, moves: g.moves }, at);
        clearMessage();
      } catch (err) {
        showError(err);
      }
    });
    return;
  }
  if (!line) {
    $("an-input").value = startPosition(8, 4);
    await load($("an-input").value);
    return;
  }
  render();
}

/**
 * Reads the text box: a position, optionally followed by moves
 * ("4,4,4/4,4,4 s 0 0 a B"), or a game record in text or JSON form.
 */
async function load(text) {
  text = text.trim() || startPosition(8, 4);
  const m = /^\s*([0-9,]+\/[0-9,]+\s+[sn]\s+\d+\s+\d+)((?:\s+(?:\d+\.+|[a-pA-P]))*)\s*$/.exec(text);
  await busy(async () => {
    try {
      let next;
      if (m) {
        const moves = m[2].split(/\s+/).filter((w) => /^[a-pA-P]$/.test(w));
        next = { start: m[1], variant: $("an-variant").value, maxLaps: 1000, moves };
      } else {
        const rec = await api.parseRecord(text);
        $("an-variant").value = rec.variant === "cross" ? "cross" : "standard";
        next = { start: rec.start, variant: rec.variant, maxLaps: rec.maxLaps, moves: rec.moves || [] };
      }
      clearMessage();
      await setLine(next, next.moves.length);
    } catch (err) {
      showError(err);
    }
  });
}

/** Replaces the line of moves, showing it at ply. */
async function setLine(next, ply) {
  const res = await api.position({ position: next.start, moves: next.moves, variant: next.variant, maxLaps: next.maxLaps });
  line = { ...next, positions: res.positions };
  explain = null;
  view = ply;
  info = ply === next.moves.length ? res : null;
  if (!info) info = await positionInfo(ply);
  render();
  analyse();
}

/** The API's view of the position after the first ply moves of the line. */
function positionInfo(ply) {
  return api.position({
    position: line.start,
    moves: line.moves.slice(0, ply),
    variant: line.variant,
    maxLaps: line.maxLaps,
  });
}

async function setView(ply) {
  if (!line || animating) return;
  ply = Math.max(0, Math.min(ply, line.moves.length));
  if (ply === view) return;
  view = ply;
  explain = null;
  info = null;
  render();
  await busy(async () => {
    try {
      const res = await positionInfo(ply);
      if (view !== ply) return;
      info = res;
      clearMessage();
      render();
      analyse();
    } catch (err) {
      showError(err);
    }
  });
}

function render() {
  if (!board || !line) return;
  const pos = parsePosition(line.positions[view]);
  const playing = info && info.status === "playing";
  board.show(pos, {
    legal: playing && !animating ? info.legalMoves : [],
    captured: info && info.score && info.status !== "playing" ? { s: info.score.south, n: info.score.north } : pos.captured,
    hint: evaluation && evaluation.lines && evaluation.lines[0] && !animating ? evaluation.lines[0].move : null,
  });
  let status = "";
  if (info) {
    status =
      info.status === "playing"
        ? t("analysis.toMove", { side: sideName(info.toMove) })
        : t("analysis.over", { result: resultSentence(null, info.result, info.score) });
  }
  $("an-status").textContent = status;
  const parts = [];
  if (explain) parts.push(explain());
  if (info && info.status !== "playing") parts.push(endSentence(null, info.status, line.positions[view], view));
  $("an-explain").textContent = parts.filter(Boolean).join(" ");
  renderMoves($("an-moves"), line.moves, view, sideName, setView);
  $("an-first").disabled = $("an-back").disabled = view === 0;
  $("an-forward").disabled = $("an-last").disabled = view === line.moves.length;
  $("an-position").textContent = t("analysis.position", { notation: line.positions[view] });
  renderEvaluation();
}

function renderEvaluation() {
  const out = $("an-eval");
  const list = $("an-lines");
  list.replaceChildren();
  if (!evaluation) {
    out.textContent = t("analysis.thinking");
    return;
  }
  if (evaluation.status !== "playing") {
    out.textContent = resultSentence(null, evaluation.result, evaluation.score);
    return;
  }
  const best = evaluation.lines[0];
  out.textContent = best ? evalText(best.final, best.exact) : "";
  // With endgame databases on the server, the exact outcome of best play.
  const solved = evaluation.solved;
  if (solved) {
    const n = num(Math.abs(solved.south));
    out.textContent =
      solved.south > 0 ? t("analysis.solvedSouth", { n }) : solved.south < 0 ? t("analysis.solvedNorth", { n }) : t("analysis.solvedDraw");
  }
  for (const l of evaluation.lines) {
    const li = el("li", "line");
    li.append(el("span", "line-eval", t("eval.line", { move: l.move, eval: evalText(l.final, l.exact) })));
    const pv = el("span", "pv", l.pv.join(" "));
    pv.dir = "ltr";
    li.append(pv);
    list.append(li);
  }
}

/** Runs the engine on the position shown; a newer request cancels an older one. */
async function analyse() {
  if (pending) pending.abort();
  const ctl = new AbortController();
  pending = ctl;
  evaluation = null;
  renderEvaluation();
  try {
    const res = await api.analyze(
      {
        position: line.start,
        moves: line.moves.slice(0, view),
        variant: line.variant,
        maxLaps: line.maxLaps,
        multiPv: 3,
        timeMs: 1000,
      },
      ctl.signal,
    );
    if (pending !== ctl) return;
    evaluation = res;
    render();
  } catch (err) {
    if (err.name === "AbortError") return;
    if (pending === ctl) showError(err);
  } finally {
    if (pending === ctl) pending = null;
  }
}

/** A hole clicked: play it here, cutting off any moves after the position shown. */
export function tryMove(letter) {
  if (!line || !info) return;
  if (isBusy() && !pending) return showMessage(t("msg.busy"), "info");
  if (animating) return;
  if (info.status !== "playing") return showMessage(t("msg.over"), "info");
  const pos = parsePosition(line.positions[view]);
  const i = indexOf(letter, pos.holes);
  if (i < 0) return showMessage(t("msg.noSuchHole", { letter }), "info");
  if (ownerOf(i, pos.holes) !== pos.toMove) {
    return showMessage(
      t("msg.notYours", { letter, player: sideName(ownerOf(i, pos.holes)), mover: sideName(pos.toMove) }),
      "info",
    );
  }
  if (pos.board[i] === 0) return showMessage(t("msg.empty", { letter }), "info");
  if (!info.legalMoves.includes(letter)) return showMessage(t("msg.endless", { letter }), "info");
  clearMessage();
  play(letter);
}

/** A letter typed: the side to move's hole with that letter. */
export function typeLetter(key) {
  if (!line) return;
  const pos = parsePosition(line.positions[view]);
  const k = key.toLowerCase().charCodeAt(0) - 97;
  if (k >= pos.holes) return showMessage(t("msg.noSuchHole", { letter: key }), "info");
  tryMove(letterOf(pos.toMove === "s" ? k : pos.holes + k, pos.holes));
}

async function play(letter) {
  if (pending) pending.abort();
  const moves = [...line.moves.slice(0, view), letter];
  const before = parsePosition(line.positions[view]);
  await busy(async () => {
    try {
      const res = await api.position({ position: line.start, moves, variant: line.variant, maxLaps: line.maxLaps });
      animating = true;
      evaluation = null;
      render();
      const ctl = new AbortController();
      skipCurrent = () => ctl.abort();
      await animateSowing(board, before, res.sowing, { speed, signal: ctl.signal, onLap: () => {} });
      skipCurrent = null;
      animating = false;
      line = { ...line, moves, positions: res.positions };
      view = moves.length;
      info = res;
      const sowing = res.sowing;
      const h = before.holes;
      explain = sowing ? () => moveSentence(null, sowing, h) : null;
      render();
      analyse();
    } catch (err) {
      animating = false;
      showError(err);
      render();
    }
  });
}

let skipCurrent = null;

/** Escape on the analysis screen: finish the move's animation. */
export function skipAnalysis() {
  if (skipCurrent) skipCurrent();
}

/** Steps with the arrow keys on the analysis screen. */
export function stepAnalysis(delta) {
  if (!line) return;
  if (delta === -Infinity) setView(0);
  else if (delta === Infinity) setView(line.moves.length);
  else setView(view + delta);
}

/** Re-translates after a change of language. */
export function renderAnalysis() {
  render();
}

