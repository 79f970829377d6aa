// The review of a finished game (docs/api.md, "Review"): the server's engine
// grades every move in the background; this panel, under the board, starts
// the review, shows its progress, then each player's accuracy, an evaluation
// graph and the best line at each mistake, whose moves step through on the
// board, and marks the grades in the move list. Moves are named by round,
// as the move list numbers them.

import { needsServer, ApiError } from "./errors.js";
import { t, tp, num, signed, language } from "./i18n.js";
import { busy, showError, announce, el } from "./ui.js";
import { playerName, hasReview } from "./explain.js";
import { parsePosition, indexOf, sideOfMove, roundOf } from "./notation.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const POLL = 600; // ms between looks at a review under way
// The marks in the move list; a good move has none.
const SYMBOL = { best: "!", good: "", inaccuracy: "?!", mistake: "?", blunder: "??" };
// The graph's drawing box: wide and low, to leave room for the board above it.
const W = 400;
const H = 120;
const PAD = 6;

let game = null; // the game view shown, when it is finished
let view = 0; // the ply shown
let goTo = () => {}; // shows a ply of the game
let showAt = () => {}; // shows a position off the game's moves in place of a ply's
let step = null; // the best line's position the board shows, as the game screen last showed it, or null
let state = null; // {key, id, status, progress, review, error}
let timer = 0;
let wanted = null; // the game whose review was asked for from the list of games
let lines = new Set(); // the plies whose best line is shown
let drawn = ""; // what the panel shows, to redraw it only when that changes
let marking = false; // the move list is due to be marked

/** Asks for the review of game id, to start once the game is shown (from the list of games). */
export function requestReview(id) {
  wanted = id;
  if (state && state.id === id && (state.status === "none" || state.status === "failed")) {
    wanted = null;
    start();
  }
}

/**
 * Shows the review panel of g (a game view, or null) at ply; setView(ply)
 * shows a ply, showPreview(ply, p) shows p (a position of a best line:
 * {position, from, text}) in place of ply's, and shown is the one shown.
 */
export function renderReview(g, ply, setView, showPreview, shown) {
  const panel = $("review");
  if (!panel) return;
  goTo = setView;
  showAt = showPreview;
  step = shown || null;
  view = ply;
  const over = hasReview(g);
  if (!over) {
    game = null;
    panel.hidden = true;
    stop();
    state = null;
    return;
  }
  game = g;
  const key = `${g.id}/${g.moves.length}`;
  if (!state || state.key !== key) {
    stop();
    lines = new Set();
    state = { key, id: g.id, status: "loading", progress: { done: 0, total: g.moves.length } };
    refresh(state);
  }
  panel.hidden = false;
  draw();
  // The move list is drawn after this call: mark it once it is.
  if (!marking) {
    marking = true;
    queueMicrotask(() => {
      marking = false;
      markMoves();
    });
  }
}

function stop() {
  clearTimeout(timer);
  timer = 0;
}

/** The review endpoint of game id: GET reads it, POST starts it. */
async function call(method, id) {
  if (id.startsWith("local-")) {
    // A game kept in this browser (offline.js) is reviewed once the server has it.
    throw needsServer(t("offline.review"));
  }
  const init = { method, headers: { Accept: "application/json" } };
  if (method === "POST") {
    init.body = "{}";
    init.headers["Content-Type"] = "application/json";
  }
  let res;
  try {
    res = await fetch(`/api/games/${encodeURIComponent(id)}/review`, init);
  } catch {
    throw new ApiError(0, "network", true);
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    // A body that is not JSON still has a status.
  }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `HTTP ${res.status}`);
  return data;
}

/** Takes an answer of the server into s, if s is still the review shown. */
function take(s, answer) {
  if (s !== state) return false;
  const before = s.status;
  Object.assign(s, { status: answer.status, progress: answer.progress, review: answer.review, error: answer.error });
  if (s.status === "queued" || s.status === "running") timer = setTimeout(() => refresh(s), POLL);
  draw();
  markMoves();
  if (before !== "done" && s.status === "done" && before !== "loading") announce(t("review.ready"));
  return true;
}

/** Reads the review (and starts it if it was asked for from the list of games). */
async function refresh(s) {
  try {
    const answer = await call("GET", s.id);
    if (!take(s, answer)) return;
    if (wanted !== s.id) return;
    wanted = null;
    if (s.status === "none" || s.status === "failed") await start();
    $("review").scrollIntoView({ block: "nearest" });
  } catch (err) {
    if (s !== state) return;
    // A game of this browser's, offline: the section says why, no alarm.
    s.status = err.offline ? "offline" : "error";
    draw();
    if (!err.offline) showError(err);
  }
}

async function start() {
  const s = state;
  if (!s) return;
  stop();
  await busy(async () => {
    try {
      take(s, await call("POST", s.id));
    } catch (err) {
      if (s === state) showError(err);
    }
  });
}

/** The labels' words. */
function labelText(label) {
  return {
    best: t("review.label.best"),
    good: t("review.label.good"),
    inaccuracy: t("review.label.inaccuracy"),
    mistake: t("review.label.mistake"),
    blunder: t("review.label.blunder"),
  }[label];
}

/** Marks each move of the list with its grade: a symbol, and words for screen readers. */
function markMoves() {
  const rv = state && state.status === "done" && state.review;
  if (!rv) return;
  for (const b of document.querySelectorAll("#moves button.move[data-ply]")) {
    const p = rv.plies[Number(b.dataset.ply) - 1];
    if (!p || b.dataset.grade) continue;
    b.dataset.grade = p.label;
    b.classList.add(`rv-${p.label}`);
    const words = labelText(p.label);
    b.title = words;
    b.setAttribute("aria-label", `${b.getAttribute("aria-label")}, ${words}`);
    if (SYMBOL[p.label]) {
      const mark = el("span", "rv-mark", SYMBOL[p.label]);
      mark.setAttribute("aria-hidden", "true");
      b.append(mark);
    }
  }
}

/** Redraws the panel when what it shows has changed; else only the graph's cursor and the line's step. */
function draw() {
  const s = state;
  const sig = [s.key, s.status, s.progress && s.progress.done, language(), [...lines].join(",")].join("|");
  if (sig === drawn) {
    moveCursor();
    markStep();
    return;
  }
  drawn = sig;
  const body = $("review-body");
  // The focused control is drawn anew: keep the focus on it.
  const focus = body.contains(document.activeElement) ? document.activeElement.dataset.rv : "";
  body.replaceChildren(...content(s));
  if (focus) {
    const again = body.querySelector(`[data-rv="${focus}"]`);
    if (again) again.focus();
  }
  drawHow(s.review);
  moveCursor();
  markStep();
}

function button(text, cls, rv, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.dataset.rv = rv;
  b.addEventListener("click", onClick);
  return b;
}

function content(s) {
  switch (s.status) {
    case "none":
      return [el("p", "", t("review.intro")), button(t("review.start"), "primary", "start", start)];
    case "queued":
    case "running": {
      const text = s.status === "queued" ? t("review.queued") : t("review.progress", { done: num(s.progress.done), total: num(s.progress.total) });
      const label = el("p", "review-status", text);
      label.id = "review-progress-label";
      const bar = el("progress", "review-progress");
      bar.id = "review-progress";
      bar.max = s.progress.total;
      bar.value = s.progress.done;
      bar.setAttribute("aria-labelledby", "review-progress-label");
      return [label, bar];
    }
    case "offline":
      return [el("p", "", t("offline.review"))];
    case "failed":
    case "error":
      return [el("p", "", t("review.failed")), button(t("review.retry"), "", "start", start)];
    case "done":
      return done(s.review);
  }
  return [el("p", "muted", t("review.loading"))];
}

function done(rv) {
  const players = el("ul", "review-players");
  for (const side of ["s", "n"]) {
    const pl = rv.players[side];
    const li = el("li");
    li.dataset.side = side;
    const name = playerName(game, side);
    const acc = pl.accuracy === null || pl.accuracy === undefined
      ? t("review.allForced", { player: name })
      : t("review.accuracy", { player: name, accuracy: num(pl.accuracy / 100, { style: "percent", maximumFractionDigits: 1 }) });
    li.append(el("strong", "", acc));
    const counts = [
      tp("review.count.blunder", pl.counts.blunder),
      tp("review.count.mistake", pl.counts.mistake),
      tp("review.count.inaccuracy", pl.counts.inaccuracy),
      tp("review.meanLoss", pl.meanLoss),
    ];
    li.append(el("span", "muted", counts.join(" · ")));
    players.append(li);
  }

  // The graph and the grades beside the mistakes: on a desktop the graph
  // fits under the board, in view with it; on a phone the columns stack.
  const chart = el("div", "review-chart");
  chart.append(el("h3", "", t("review.graph")), graph(rv), players);
  const notes = el("div", "review-notes");
  notes.append(el("h3", "", t("review.mistakes")));
  const bad = rv.plies.filter((p) => p.label === "mistake" || p.label === "blunder");
  if (!bad.length) notes.append(el("p", "muted", t("review.noMistakes")));
  else {
    // Not an ordered list: its numbers would read as move numbers.
    const list = el("ul", "review-mistakes");
    for (const p of bad) list.append(mistake(p));
    notes.append(list);
  }
  const grid = el("div", "review-grid");
  grid.append(chart, notes);
  return [grid];
}

/** The round number before the move at ply in a line: "3." for a round's first move, "3…" for its second. */
function roundMark(ply) {
  return ply % 2 === 1 ? `${num(roundOf(ply))}.` : `${num(roundOf(ply))}…`;
}

/** Shows move k of p's best line on the board, in place of the position before p's move. */
function showStep(p, k) {
  const position = p.pvPositions && p.pvPositions[k];
  if (!position) return;
  const move = p.pv[k];
  showAt(p.ply - 1, {
    line: p.ply,
    k,
    position,
    from: indexOf(move, game.holes),
    text: t("review.lineViewing", {
      played: p.move,
      round: num(roundOf(p.ply + k)),
      player: playerName(game, sideOfMove(move)),
      move,
    }),
  });
  revealBoard();
}

/** The step of p's line the board shows: -1 for none. */
function stepOf(p) {
  return step && step.line === p.ply ? step.k : -1;
}

/** Scrolls the board into view when a choice in the panel changed it out of sight. */
function revealBoard() {
  const table = $("table");
  if (!table) return;
  const r = table.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) table.scrollIntoView({ block: "nearest" });
}

/** Marks the step of the best line the board shows, and enables the line's back and forward buttons. */
function markStep() {
  const rv = state && state.status === "done" && state.review;
  if (!rv) return;
  for (const li of document.querySelectorAll("#review .review-mistakes li[data-ply]")) {
    const p = rv.plies[Number(li.dataset.ply) - 1];
    if (!p) continue;
    const k = stepOf(p);
    for (const b of li.querySelectorAll("button[data-step]")) {
      if (Number(b.dataset.step) === k) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    }
    const back = li.querySelector('button[data-rv^="back-"]');
    const forward = li.querySelector('button[data-rv^="forward-"]');
    if (back) back.disabled = k < 0;
    if (forward) forward.disabled = k >= p.pv.length - 1 || !p.pvPositions;
  }
}

/** A mistake or blunder, with its best line on request. */
function mistake(p) {
  const li = el("li");
  li.dataset.ply = String(p.ply);
  li.classList.add(`rv-${p.label}`);
  const lost = tp("review.lost", p.loss);
  const text = t("review.item", {
    round: num(roundOf(p.ply)),
    player: playerName(game, p.side),
    move: p.move,
    label: labelText(p.label),
    lost: p.exact && p.bestExact ? t("review.exactValue", { value: lost }) : lost,
    best: p.best,
  });
  li.append(el("p", "", text));
  const id = `review-line-${p.ply}`;
  const shown = lines.has(p.ply);
  const b = button(shown ? t("review.hideLine") : t("review.showLine"), "small", `line-${p.ply}`, () => {
    if (lines.has(p.ply)) lines.delete(p.ply);
    else lines.add(p.ply);
    // The line starts from the position before the move: show it.
    if (lines.has(p.ply)) {
      goTo(p.ply - 1);
      revealBoard();
    }
    draw();
  });
  b.setAttribute("aria-expanded", String(shown));
  b.setAttribute("aria-controls", id);
  li.append(b);
  const line = el("div", "review-line");
  line.id = id;
  line.hidden = !shown;
  const head = el("p", "", t("review.lineFrom", { move: p.move, round: num(roundOf(p.ply)) }));
  head.append(" ", el("span", "muted", t("review.lineScore", { score: signed(p.bestScore) })));
  line.append(head, lineMoves(p));
  li.append(line);
  return li;
}

/**
 * The moves of p's best line, numbered by round like the move list, each a
 * button that shows the position after it; with back and forward buttons
 * to step through the line.
 */
function lineMoves(p) {
  const box = el("div", "review-steps");
  const list = el("ol", "pv review-pv");
  list.dir = "ltr";
  list.setAttribute("aria-label", t("review.lineMoves"));
  let pair = null;
  let before = parsePosition(game.positions[p.ply - 1]);
  p.pv.forEach((move, k) => {
    const ply = p.ply + k; // its place in the game's numbering
    if (!pair || ply % 2 === 1) {
      pair = el("li", "pair");
      const no = el("span", "pair-no", roundMark(ply));
      no.setAttribute("aria-hidden", "true");
      pair.append(no);
      list.append(pair);
    }
    const side = sideOfMove(move);
    const after = p.pvPositions ? parsePosition(p.pvPositions[k]) : null;
    let label = t("moves.item", { round: num(roundOf(ply)), player: playerName(game, side), move });
    const b = button(move, "move", `step-${p.ply}-${k}`, () => showStep(p, k));
    b.dataset.step = String(k);
    b.disabled = !after;
    pair.append(b);
    const took = after && before ? after.captured[side] - before.captured[side] : 0;
    if (took > 0) {
      // Beside the button, not in it: a button's name starts with what it shows.
      label += `, ${tp("review.captures", took)}`;
      const mark = el("span", "rv-took", `+${num(took)}`);
      mark.setAttribute("aria-hidden", "true");
      pair.append(mark);
    }
    b.setAttribute("aria-label", label);
    before = after;
  });
  const back = button("", "small", `back-${p.ply}`, () => {
    const k = stepOf(p);
    if (k > 0) showStep(p, k - 1);
    else if (k === 0) {
      goTo(p.ply - 1);
      revealBoard();
    }
  });
  const forward = button("", "small", `forward-${p.ply}`, () => showStep(p, Math.min(p.pv.length - 1, stepOf(p) + 1)));
  back.innerHTML = '<svg class="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false"><path d="M12 3v10L4 8z"/></svg>';
  forward.innerHTML = '<svg class="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false"><path d="M4 3v10l8-5z"/></svg>';
  back.setAttribute("aria-label", t("review.lineBack"));
  back.title = t("review.lineBack");
  forward.setAttribute("aria-label", t("review.lineForward"));
  forward.title = t("review.lineForward");
  const nav = el("span", "review-step-nav");
  nav.append(back, forward);
  box.append(list, nav);
  // In the line the arrows step through it, not through the game; like the
  // game's, they follow the reading direction.
  box.addEventListener("keydown", (e) => {
    const rtl = document.documentElement.dir === "rtl";
    const d = { ArrowLeft: rtl ? 1 : -1, ArrowRight: rtl ? -1 : 1 }[e.key];
    if (!d || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    e.stopPropagation();
    (d < 0 ? back : forward).click();
  });
  return box;
}

/** The evaluation graph: South's expected final margin after each ply, clickable. */
function graph(rv) {
  const ev = rv.evaluation.map((e) => e.south);
  const n = ev.length - 1;
  const top = Math.max(4, Math.ceil(Math.max(...ev.map(Math.abs))));
  const x = (i) => PAD + (i * (W - 2 * PAD)) / Math.max(1, n);
  const y = (v) => H / 2 - (v / top) * (H / 2 - PAD);
  const wrap = el("div", "review-graph");
  wrap.append(el("span", "review-axis", t("review.ahead", { player: playerName(game, "s") })));
  const svg = document.createElementNS(SVG, "svg");
  svg.id = "review-graph";
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-labelledby", "review-summary");
  const add = (tag, attrs, parent = svg) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    parent.append(e);
    return e;
  };
  add("rect", { x: 0, y: 0, width: W, height: H, class: "rv-bg" });
  add("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "rv-zero" });
  const pts = ev.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  add("path", { d: `M${x(0).toFixed(1)},${H / 2} L${pts.join(" L")} L${x(n).toFixed(1)},${H / 2} Z`, class: "rv-area" });
  add("polyline", { points: pts.join(" "), class: "rv-eval" });
  add("line", { x1: x(view), y1: 0, x2: x(view), y2: H, class: "rv-cursor", id: "review-cursor" });
  for (const p of rv.plies) {
    if (p.label !== "mistake" && p.label !== "blunder" && p.label !== "inaccuracy") continue;
    const c = add("circle", { cx: x(p.ply).toFixed(1), cy: y(ev[p.ply]).toFixed(1), r: p.label === "inaccuracy" ? 2.5 : 3.5, class: `rv-dot rv-${p.label}` });
    c.dataset.ply = String(p.ply);
  }
  svg.addEventListener("click", (e) => {
    const r = svg.getBoundingClientRect();
    const at = ((e.clientX - r.left) / r.width) * W;
    goTo(Math.max(0, Math.min(n, Math.round(((at - PAD) / (W - 2 * PAD)) * n))));
    revealBoard();
  });
  wrap.append(svg, el("span", "review-axis", t("review.ahead", { player: playerName(game, "n") })));
  const summary = el("p", "review-summary muted", t("review.summary", {
    south: playerName(game, "s"),
    start: signed(ev[0]),
    end: signed(ev[n]),
    low: signed(Math.min(...ev)),
    high: signed(Math.max(...ev)),
  }));
  summary.id = "review-summary";
  const hint = el("p", "review-summary muted", t("review.graphHint"));
  const box = el("div");
  box.append(wrap, summary, hint);
  return box;
}

function moveCursor() {
  const c = $("review-cursor");
  const rv = state && state.review;
  if (!c || !rv) return;
  const n = rv.evaluation.length - 1;
  const at = (PAD + (Math.min(view, n) * (W - 2 * PAD)) / Math.max(1, n)).toFixed(1);
  c.setAttribute("x1", at);
  c.setAttribute("x2", at);
}

/** "How moves are graded", with the thresholds of the review (or the server's defaults). */
function drawHow(rv) {
  const th = rv ? rv.thresholds : { inaccuracy: 1, mistake: 3, blunder: 6 };
  const half = rv ? rv.halfLoss : 4;
  $("review-how-text").replaceChildren(
    el("p", "", t("review.how1")),
    el("p", "", t("review.how2", { inaccuracy: num(th.inaccuracy), mistake: num(th.mistake), blunder: num(th.blunder) })),
    el("p", "", t("review.how3", { half: num(half) })),
  );
}
