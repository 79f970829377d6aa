// The analysis board: load a position or a game record, play moves freely
// for either side, step through them, and read the engine's evaluation of
// the position shown (re-run after every change). A move played at an
// earlier point starts a variation: the moves form a tree, shown as the
// main line with its variations in parentheses. The server judges and plays
// every move (POST /api/position); the page plays no rules itself.

import { api } from "./api.js";
import { Board } from "./board.js";
import { t, num } from "./i18n.js";
import { parsePosition, startPosition, indexOf, ownerOf, letterOf, sideOfMove, roundOf } from "./notation.js";
import { animateSowing } from "./sowing.js";
import { moveSentence, endSentence, resultSentence, evalText, sideName } from "./explain.js";
import { busy, isBusy, showMessage, clearMessage, showError, el, initialAnalysisSpeed, rememberSpeed } from "./ui.js";

const $ = (id) => document.getElementById(id);

// The tree of moves. A node is {id, move, ply, position, parent, children,
// info}: move is the letter played to reach it (null at the root), position
// the notation after it, info the /api/position answer for that position
// (null until asked). A node's first child continues its line; the others
// are its variations.
let board;
let tree = null; // {start, variant, maxLaps, root}
let path = []; // the line followed: nodes from the root to its end
let view = 0; // the index in path of the node shown
let nextId = 1;
let evaluation = null; // the /api/analyze answer for the position shown
let pending = null; // AbortController of the running analysis
let animating = false;
let skipCurrent = null;
let loadedGame = ""; // the game id last opened from the play screen
let loadedLink = ""; // the position link last opened
let speed = initialAnalysisSpeed(); // the analysis board's own animation speed
let linkNote = null; // {node, copied}: what the copy-link button said, about which position

const DEFAULT_LAPS = 1000;
const VARIANTS = ["standard", "cross"];

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
    const holes = tree ? parsePosition(tree.start).holes : 8;
    $("an-input").value = startPosition(holes, 4);
    load($("an-input").value);
  });
  $("an-first").addEventListener("click", () => setView(0));
  $("an-back").addEventListener("click", () => setView(view - 1));
  $("an-forward").addEventListener("click", () => setView(view + 1));
  $("an-last").addEventListener("click", () => setView(path.length - 1));
  $("an-promote").addEventListener("click", promote);
  $("an-delete").addEventListener("click", deleteVariation);
  $("an-copy-link").addEventListener("click", copyLink);
}

// ---------------------------------------------------------------------------
// The tree.

function makeNode(parent, move, position, info = null) {
  return { id: nextId++, move, ply: parent ? parent.ply + 1 : 0, position, parent, children: [], info };
}

/** The nodes from the root to node. */
function pathTo(node) {
  const out = [];
  for (let n = node; n; n = n.parent) out.push(n);
  return out.reverse();
}

/** The letters played from the root to node. */
function movesTo(node) {
  return pathTo(node)
    .slice(1)
    .map((n) => n.move);
}

/** Node and its line onwards: each node's first child. */
function lineFrom(node) {
  const out = [node];
  while (out[out.length - 1].children.length) out.push(out[out.length - 1].children[0]);
  return out;
}

/** The first node of the variation node lies in (itself or an ancestor), or null on the main line. */
function variationStart(node) {
  for (let n = node; n && n.parent; n = n.parent) {
    if (n.parent.children[0] !== n) return n;
  }
  return null;
}

const shown = () => path[view];

/**
 * Follows node: kept on the current line if it is on it, else the line
 * becomes the way to node and onwards along its own line.
 */
function follow(node) {
  const i = path.indexOf(node);
  if (i >= 0) {
    view = i;
    return;
  }
  const to = pathTo(node);
  path = [...to, ...lineFrom(node).slice(1)];
  view = to.length - 1;
}

/** The API's view of the position at node, asked once. */
async function nodeInfo(node) {
  if (!node.info) {
    node.info = await api.position({
      position: tree.start,
      moves: movesTo(node),
      variant: tree.variant,
      maxLaps: tree.maxLaps,
    });
  }
  return node.info;
}

// ---------------------------------------------------------------------------
// Opening and loading.

/** Opens the analysis screen; with a game id, that game at ply. */
export async function openAnalysis(gameId, ply) {
  if (gameId && gameId !== loadedGame) {
    loadedGame = gameId;
    loadedLink = "";
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
  if (!tree) {
    $("an-input").value = startPosition(8, 4);
    await load($("an-input").value);
    return;
  }
  render();
}

/**
 * Opens a position link (#/analysis/position/{notation}[/{variant}[/{maxLaps}]]):
 * the board on exactly that position. A link whose position is not one
 * says so, and leaves the board usable.
 */
export async function openPosition(args) {
  const [text = "", variant = "standard", laps] = args;
  const key = args.join("/");
  if (key === loadedLink && tree) {
    render();
    return;
  }
  loadedLink = key;
  loadedGame = "";
  const maxLaps = laps === undefined ? DEFAULT_LAPS : Number(laps);
  const valid =
    parsePosition(text) !== null &&
    VARIANTS.includes(variant) &&
    Number.isInteger(maxLaps) &&
    maxLaps >= 1 &&
    maxLaps <= 10000 &&
    (laps === undefined || /^\d+$/.test(laps));
  await busy(async () => {
    if (valid) {
      try {
        await setLine({ start: text.trim(), variant, maxLaps, moves: [] }, 0);
        $("an-input").value = text.trim();
        $("an-variant").value = variant;
        clearMessage();
        return;
      } catch (err) {
        // A 400 is the server finding the position impossible; anything
        // else (the network) is said as such.
        if (err.status !== 400) {
          showError(err);
          return;
        }
      }
    }
    if (!tree) {
      $("an-input").value = startPosition(8, 4);
      await load($("an-input").value);
    }
    const shownText = text.length > 80 ? text.slice(0, 80) + "…" : text;
    showMessage(t("analysis.badLink", { position: shownText }));
  });
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
        next = { start: m[1], variant: $("an-variant").value, maxLaps: DEFAULT_LAPS, moves };
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

/** Replaces the whole tree with one line of moves, showing it at ply. */
async function setLine(next, ply) {
  const res = await api.position({ position: next.start, moves: next.moves, variant: next.variant, maxLaps: next.maxLaps });
  if (pending) pending.abort();
  tree = { start: next.start, variant: next.variant, maxLaps: next.maxLaps, root: null };
  tree.root = makeNode(null, null, res.positions[0]);
  let node = tree.root;
  next.moves.forEach((move, i) => {
    const child = makeNode(node, move, res.positions[i + 1]);
    node.children.push(child);
    node = child;
  });
  node.info = res;
  path = lineFrom(tree.root);
  view = Math.max(0, Math.min(ply, path.length - 1));
  evaluation = null;
  await nodeInfo(shown());
  render();
  analyse();
}

// ---------------------------------------------------------------------------
// Moving about the tree.

async function setView(ply) {
  if (!tree || animating) return;
  ply = Math.max(0, Math.min(ply, path.length - 1));
  if (ply === view) return;
  await showNode(path[ply]);
}

/** Shows node, asking the server about its position if need be. */
async function showNode(node) {
  if (!tree || animating) return;
  follow(node);
  evaluation = null; // the hint of the position left must not show here
  render();
  if (node.info) {
    analyse();
    return;
  }
  await busy(async () => {
    try {
      await nodeInfo(node);
      if (shown() !== node) return;
      clearMessage();
      render();
      analyse();
    } catch (err) {
      showError(err);
    }
  });
}

/** Makes the line of the move shown the main line. */
function promote() {
  const node = shown();
  if (!tree || animating || !variationStart(node)) return;
  for (let n = node; n.parent; n = n.parent) {
    const siblings = n.parent.children;
    siblings.splice(siblings.indexOf(n), 1);
    siblings.unshift(n);
  }
  render();
  focusCurrentMove();
}

/** Deletes the variation holding the move shown, with everything after it. */
function deleteVariation() {
  const start = variationStart(shown());
  if (!tree || animating || !start) return;
  const parent = start.parent;
  parent.children.splice(parent.children.indexOf(start), 1);
  path = [];
  showNode(parent).then(focusCurrentMove);
}

/**
 * Puts the keyboard focus on the move shown in the list (or the list's
 * first move), as the button pressed goes away.
 */
function focusCurrentMove() {
  const list = $("an-moves");
  const cur = list.querySelector('[aria-current="step"]') || list.querySelector("button") || $("an-copy-link");
  cur.focus();
}

// ---------------------------------------------------------------------------
// Drawing.

/** The origin and ending holes of the move that led to node, for highlighting. */
function lastHoles(node) {
  const sw = node && node.move && node.info && node.info.sowing;
  if (!sw || !sw.laps || !sw.laps.length) return null;
  return { from: sw.laps[0].from, to: sw.laps[sw.laps.length - 1].to };
}

function render() {
  if (!board || !tree) return;
  const node = shown();
  const info = node.info;
  const pos = parsePosition(node.position);
  const playing = info && info.status === "playing";
  board.show(pos, {
    legal: playing && !animating ? info.legalMoves : [],
    captured: info && info.score && info.status !== "playing" ? { s: info.score.south, n: info.score.north } : pos.captured,
    last: animating ? null : lastHoles(node),
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
  if (info && info.sowing && node.parent) parts.push(moveSentence(null, info.sowing, parsePosition(node.parent.position).holes));
  if (info && info.status !== "playing") parts.push(endSentence(null, info.status, node.position, node.ply));
  $("an-explain").textContent = parts.filter(Boolean).join(" ");
  renderTree();
  $("an-first").disabled = $("an-back").disabled = view === 0;
  $("an-forward").disabled = $("an-last").disabled = view === path.length - 1;
  const inVariation = !!variationStart(node);
  $("an-variation-actions").hidden = !inVariation;
  $("an-promote").disabled = $("an-delete").disabled = !inVariation || animating;
  // The notation isolated left to right, so that a right-to-left label leaves it whole.
  $("an-position").textContent = t("analysis.position", { notation: `\u2066${node.position}\u2069` });
  renderLinkNote();
  renderEvaluation();
}

/** The copy-link feedback, while the position it is about is shown. */
function renderLinkNote() {
  if (linkNote && linkNote.node !== shown()) linkNote = null;
  $("an-link-fallback").hidden = !linkNote || linkNote.copied;
  const text = !linkNote ? "" : linkNote.copied ? t("analysis.linkCopied") : t("analysis.linkSelect");
  const status = $("an-link-status");
  // Rewriting the same words would make a screen reader say them again.
  if (status.textContent !== text) status.textContent = text;
}

/**
 * The move list as a tree: the main line numbered in rounds, each
 * variation in parentheses on a line of its own after the move it replaces,
 * nested ones further in. Every move is a button showing the position
 * after it; the one shown is aria-current="step".
 */
function renderTree() {
  const list = $("an-moves");
  const scroll = list.scrollTop;
  // The list is drawn anew: a move that had the focus gets it back.
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.node : null;
  list.replaceChildren();
  const first = tree.root.children[0];
  if (!first) {
    list.append(el("li", "none", t("moves.none")));
    return;
  }
  renderLine(list, first, true, "li");
  list.scrollTop = scroll;
  if (focused) {
    const again = list.querySelector(`[data-node="${focused}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  // Keep the move shown visible inside the list, without scrolling the page.
  const cur = list.querySelector('[aria-current="step"]');
  if (cur && list.scrollHeight > list.clientHeight) {
    const top = cur.offsetTop; // the list is positioned (style.css)
    if (top < list.scrollTop || top + cur.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
}

/**
 * Appends to container the line starting at node (node, its first child,
 * ...), in rounds; each move's variations follow it. With own, node's own
 * variations (its later siblings) follow it too; a variation's first move
 * leaves its siblings to the line it branches from. tag is the element of a
 * round: li in the list, span inside a variation.
 */
function renderLine(container, node, own, tag) {
  let round = null;
  for (let n = node; n; n = n.children[0]) {
    if (!round || n.ply % 2 === 1) {
      round = el(tag, "pair");
      const r = roundOf(n.ply);
      const no = el("span", "pair-no", n.ply % 2 === 1 ? `${num(r)}.` : `${num(r)}…`);
      no.title = t("moves.round", { n: num(r) });
      round.append(no);
      container.append(round);
    }
    round.append(moveButton(n));
    // Past the first move the line follows first children, whose later
    // siblings are their variations.
    const alternatives = n !== node || own ? n.parent.children.slice(1) : [];
    for (const alt of alternatives) {
      const block = el(tag, "variation");
      const group = el("span", "variation-line");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", t("analysis.variation"));
      const open = el("span", "paren", "(");
      open.setAttribute("aria-hidden", "true");
      const close = el("span", "paren", ")");
      close.setAttribute("aria-hidden", "true");
      group.append(open);
      renderLine(group, alt, false, "span");
      group.append(close);
      block.append(group);
      container.append(block);
    }
    if (alternatives.length) round = null;
  }
}

function moveButton(node) {
  const b = el("button", "move", node.move);
  b.type = "button";
  b.dataset.ply = String(node.ply);
  b.dataset.node = String(node.id);
  b.setAttribute("aria-label", t("moves.item", { round: num(roundOf(node.ply)), player: sideName(sideOfMove(node.move)), move: node.move }));
  if (node === shown()) b.setAttribute("aria-current", "step");
  b.addEventListener("click", () => showNode(node));
  return b;
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
        position: tree.start,
        moves: movesTo(shown()),
        variant: tree.variant,
        maxLaps: tree.maxLaps,
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

// ---------------------------------------------------------------------------
// Playing.

/** A hole clicked: play it at the position shown, as a new variation if the line goes on. */
export function tryMove(letter) {
  if (!tree) return;
  const node = shown();
  const info = node.info;
  if (!info) return;
  if (isBusy() && !pending) return showMessage(t("msg.busy"), "info");
  if (animating) return;
  if (info.status !== "playing") return showMessage(t("msg.over"), "info");
  const pos = parsePosition(node.position);
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
  play(node, letter);
}

/** A letter typed: the side to move's hole with that letter. */
export function typeLetter(key) {
  if (!tree) return;
  const pos = parsePosition(shown().position);
  const k = key.toLowerCase().charCodeAt(0) - 97;
  if (k >= pos.holes) return showMessage(t("msg.noSuchHole", { letter: key }), "info");
  tryMove(letterOf(pos.toMove === "s" ? k : pos.holes + k, pos.holes));
}

/**
 * Plays letter at node: the server answers with the position and the
 * sowing, which is animated. A move already in the tree there is followed;
 * a new one is added after node's other moves, so it starts a variation
 * when the line goes on.
 */
async function play(node, letter) {
  if (pending) pending.abort();
  const before = parsePosition(node.position);
  await busy(async () => {
    try {
      const res = await api.position({ position: tree.start, moves: [...movesTo(node), letter], variant: tree.variant, maxLaps: tree.maxLaps });
      if (shown() !== node) return;
      animating = true;
      evaluation = null;
      render();
      const ctl = new AbortController();
      skipCurrent = () => ctl.abort();
      await animateSowing(board, before, res.sowing, { speed, signal: ctl.signal, onLap: () => {} });
      skipCurrent = null;
      animating = false;
      let child = node.children.find((c) => c.move === letter);
      if (!child) {
        child = makeNode(node, letter, res.position);
        node.children.push(child);
      }
      child.info = res;
      // The line now goes through the move played, then on along its own line.
      path = [];
      follow(child);
      render();
      analyse();
    } catch (err) {
      animating = false;
      skipCurrent = null;
      showError(err);
      render();
    }
  });
}

/** Escape on the analysis screen: finish the move's animation. */
export function skipAnalysis() {
  if (skipCurrent) skipCurrent();
}

/** Steps with the arrow keys on the analysis screen. */
export function stepAnalysis(delta) {
  if (!tree) return;
  if (delta === -Infinity) setView(0);
  else if (delta === Infinity) setView(path.length - 1);
  else setView(view + delta);
}

// ---------------------------------------------------------------------------
// The position link.

/** Encodes a route part; commas, frequent in positions, stay readable. */
const part = (s) => encodeURIComponent(s).replace(/%2C/gi, ",");

/** The address that opens the analysis board on the position shown. */
export function positionLink() {
  const node = shown();
  let hash = "#/analysis/position/" + part(node.position);
  if (tree.variant !== "standard" || tree.maxLaps !== DEFAULT_LAPS) hash += "/" + part(tree.variant);
  if (tree.maxLaps !== DEFAULT_LAPS) hash += "/" + tree.maxLaps;
  return location.origin + location.pathname + location.search + hash;
}

/** Copies the position link; without a clipboard, shows it selected to copy by hand. */
async function copyLink() {
  if (!tree) return;
  const node = shown();
  const link = positionLink();
  const input = $("an-link");
  input.value = link;
  linkNote = null;
  renderLinkNote();
  let copied = false;
  try {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      await navigator.clipboard.writeText(link);
      copied = true;
    }
  } catch {
    // Refused (no permission, the page not focused): copied by hand below.
  }
  if (shown() !== node) return;
  linkNote = { node, copied };
  renderLinkNote();
  if (!copied) {
    input.focus();
    input.select();
  }
}

/** Re-translates after a change of language. */
export function renderAnalysis() {
  render();
}
