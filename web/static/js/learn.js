// The Learn screen: seven short lessons on small boards, each with one task
// to do on the board, then puzzles whose answers the endgame databases
// prove (learn/puzzles.json, made by internal/puzzles). Every move goes to
// the server (POST /api/position), which judges it and sends its sowing lap
// by lap; the page plays no rules itself. Progress stays in localStorage.
// Routes: #/learn, #/learn/lesson/{1..7}, #/learn/puzzle/{id}.

import { api } from "./api.js";
import { Board } from "./board.js";
import { t, tp, num } from "./i18n.js";
import { parsePosition, letterOf, indexOf, ownerOf, boardSeeds } from "./notation.js";
import { animateSowing } from "./sowing.js";
import { endSentence, resultSentence, sideName } from "./explain.js";
import { busy, isBusy, showMessage, clearMessage, showError, announce, el, sleep } from "./ui.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "endodoi.learn";
const SPEED_KEY = "endodoi.learnSpeed";
const SERIES_START = { s: "1,1,1/1,1,1 s 0 0", n: "1,1,1/1,1,1 n 0 0" };
const SERIES_TARGET = 2;

// The sowing's last hole and, for messages, letters.
const end = (sw) => sw.laps[sw.laps.length - 1].to;
const lapsText = (sw) => tp("laps", sw.laps.length);
const over = (res) => res.status !== "playing";
const ending = (res) => [endSentence(null, res.status, res.position, 1), resultSentence(null, res.result, res.score)].join(" ");

/*
 * The lessons. Each has a start position, its texts and a judge: given the
 * server's answer to the learner's move, it says done, wrong (with why) or,
 * for lessons of several moves, how the play goes on. The texts are
 * functions, so that a change of language re-renders them.
 */
const LESSONS = [
  {
    start: "1,0,3,1/0,0,0,1 s 0 0",
    title: () => t("learn.l1.title"),
    body: () => [t("learn.l1.p1"), t("learn.l1.p2")],
    task: () => t("learn.l1.task"),
    judge: (res, h) =>
      res.sowing.laps.length === 1 && letterOf(end(res.sowing), h) === "B"
        ? { done: t("learn.l1.right") }
        : { wrong: t("learn.l1.wrong", { hole: letterOf(end(res.sowing), h) }) },
  },
  {
    start: "2,0,2,1/0,1,1,1 s 0 0",
    title: () => t("learn.l2.title"),
    body: () => [t("learn.l2.p1")],
    task: () => t("learn.l2.task"),
    judge: (res, h) =>
      res.sowing.laps.length >= 3
        ? { done: t("learn.l2.right", { laps: lapsText(res.sowing) }) }
        : { wrong: t("learn.l2.wrong", { laps: lapsText(res.sowing), hole: letterOf(end(res.sowing), h) }) },
  },
  {
    start: "1,0,1/0,3,1 s 0 0",
    title: () => t("learn.l3.title"),
    body: () => [t("learn.l3.p1")],
    task: () => t("learn.l3.task"),
    judge: (res, h) =>
      res.sowing.captureFrom === indexOf("B", h)
        ? { done: t("learn.l3.right", { seeds: tp("seeds", res.sowing.captured) }) }
        : { wrong: t("learn.l3.wrong", { hole: letterOf(end(res.sowing), h) }) },
  },
  {
    start: "1,0,2,2/0,0,2,1 s 0 0",
    title: () => t("learn.l4.title"),
    body: () => [t("learn.l4.p1")],
    task: () => t("learn.l4.task"),
    judge: (res, h) => {
      const e = end(res.sowing);
      if (res.sowing.captured > 0) return { done: t("learn.l4.right") };
      return { wrong: t("learn.l4.wrong", { hole: letterOf(e, h), own: letterOf(2 * h - 1 - e, h) }) };
    },
  },
  {
    start: "1,0,3/0,0,0 s 3 5",
    title: () => t("learn.l5.title"),
    body: () => [t("learn.l5.p1"), t("learn.l5.p2")],
    task: () => t("learn.l5.task"),
    judge: (res) =>
      res.status === "no-legal-move" && res.result === "1-0"
        ? { done: t("learn.l5.right", { end: ending(res) }) }
        : { wrong: t("learn.l5.wrong") },
  },
  {
    start: "2,1,1/0,2,0 s 4 2",
    both: true, // the learner moves for both sides
    title: () => t("learn.l6.title"),
    body: () => [t("learn.l6.p1")],
    task: () => t("learn.l6.task"),
    judge: (res) => {
      if (res.status === "repetition") return { done: t("learn.l6.right", { end: ending(res) }) };
      if (over(res)) return { wrong: t("learn.l6.wrong") };
      const seen = res.positions.filter((p) => p === res.position).length;
      return { note: tp("learn.l6.seen", seen) };
    },
  },
  {
    series: true, // a series against the computer; judged game by game
    start: SERIES_START.s,
    title: () => t("learn.l7.title"),
    body: () => [t("learn.l7.p1"), t("learn.l7.p2")],
    task: () => t("learn.l7.task"),
  },
];

const LEVELS = [() => t("learn.level1"), () => t("learn.level2"), () => t("learn.level3")];

let board;
let puzzles = null; // from learn/puzzles.json, loaded on first need
let progress = loadProgress();
let stage = null; // the lesson or puzzle shown, or null for the menu
let anim = null; // AbortController of the running animation
let speed = initialSpeed();

function initialSpeed() {
  try {
    const s = localStorage.getItem(SPEED_KEY);
    if (["slow", "normal", "fast", "instant"].includes(s)) return s;
  } catch {
    // Storage disabled.
  }
  return matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "normal";
}

function loadProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(STORE_KEY) || "{}");
    const list = (x) => (Array.isArray(x) ? x.filter((v) => typeof v === "string") : []);
    return { lessons: list(p.lessons), puzzles: list(p.puzzles) };
  } catch {
    return { lessons: [], puzzles: [] };
  }
}

function saveProgress() {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(progress));
  } catch {
    // Not kept; still shown for this visit.
  }
}

function mark(kind, id) {
  const list = progress[kind];
  if (!list.includes(id)) list.push(id);
  saveProgress();
}

export function initLearn() {
  board = new Board($("learn-board"), {
    table: $("learn-table"),
    piles: { s: $("learn-pile-south"), n: $("learn-pile-north") },
    onHole: tryMove,
  });
  $("learn-table").addEventListener("click", (e) => {
    if (anim && !e.target.closest(".hole")) anim.abort();
  });
  $("learn-speed").value = speed;
  $("learn-speed").addEventListener("change", (e) => {
    speed = e.target.value;
    try {
      localStorage.setItem(SPEED_KEY, speed);
    } catch {
      // Not remembered; still used now.
    }
  });
  $("learn-again").addEventListener("click", () => restart());
  $("learn-solution").addEventListener("click", showSolution);
  $("learn-next-game").addEventListener("click", nextSeriesGame);
  $("learn-next").addEventListener("click", goNext);
  $("learn-reset").addEventListener("click", () => {
    $("learn-reset-confirm").hidden = false;
    $("learn-reset-yes").focus();
  });
  $("learn-reset-no").addEventListener("click", () => {
    $("learn-reset-confirm").hidden = true;
    $("learn-reset").focus();
  });
  $("learn-reset-yes").addEventListener("click", () => {
    progress = { lessons: [], puzzles: [] };
    saveProgress();
    $("learn-reset-confirm").hidden = true;
    renderMenu();
    $("learn-reset").focus();
    announce(t("learn.resetDone"));
  });
}

async function loadPuzzles() {
  if (puzzles) return puzzles;
  const res = await fetch("learn/puzzles.json");
  if (!res.ok) throw new Error(`puzzles: ${res.status}`);
  puzzles = (await res.json()).puzzles;
  return puzzles;
}

/** Opens the Learn screen: the menu, or a lesson or puzzle named by the route. */
export async function openLearn(args) {
  stopAnimation();
  await busy(async () => {
    try {
      await loadPuzzles();
      const [kind, id] = args;
      const n = Number(id);
      if (kind === "lesson" && Number.isInteger(n) && n >= 1 && n <= LESSONS.length) {
        await begin({ type: "lesson", index: n - 1 });
      } else if (kind === "puzzle" && puzzles.some((p) => p.id === id)) {
        await begin({ type: "puzzle", index: puzzles.findIndex((p) => p.id === id) });
      } else {
        stage = null;
        render();
      }
    } catch (err) {
      stage = null;
      render();
      showError(err);
    }
  });
  const focus = stage ? $("learn-title") : null;
  if (focus) focus.focus();
}

/** Called when the screen is left: a running animation ends at once. */
export function leaveLearn() {
  stopAnimation();
}

function stopAnimation() {
  if (anim) anim.abort();
}

/** Sets up a lesson or puzzle at its start. */
async function begin(what) {
  const item = what.type === "lesson" ? LESSONS[what.index] : puzzles[what.index];
  stage = {
    ...what,
    item,
    start: item.position || item.start,
    moves: [],
    res: null,
    state: "playing", // playing, done, wrong, solution
    feedback: null, // () => text
    last: null,
    series: item.series ? { wins: { s: 0, n: 0 }, games: 0, first: "s" } : null,
  };
  await load();
}

/** Asks the server for the stage's position after its moves. */
async function load() {
  const s = stage;
  s.res = await api.position({ position: s.start, moves: s.moves });
  if (stage !== s) return;
  render();
  await computerTurn();
}

async function restart() {
  if (!stage || anim) return;
  clearMessage();
  await busy(async () => {
    try {
      await begin({ type: stage.type, index: stage.index });
    } catch (err) {
      showError(err);
    }
  });
}

/** The learner clicked a hole. */
function tryMove(letter) {
  if (!stage || !stage.res) return;
  if (anim) return;
  if (isBusy()) return showMessage(t("msg.busy"), "info");
  const res = stage.res;
  if (stage.state !== "playing" || over(res)) return showMessage(t("learn.finished"), "info");
  const pos = parsePosition(res.position);
  const i = indexOf(letter, pos.holes);
  const mine = stage.item.both ? pos.toMove : "s";
  if (ownerOf(i, pos.holes) !== pos.toMove || pos.toMove !== mine) {
    return showMessage(
      t("msg.notYours", { letter, player: sideName(ownerOf(i, pos.holes)), mover: sideName(pos.toMove) }),
      "info",
    );
  }
  if (pos.board[i] === 0) return showMessage(t("msg.empty", { letter }), "info");
  if (!res.legalMoves.includes(letter)) return showMessage(t("msg.endless", { letter }), "info");
  clearMessage();
  busy(async () => {
    await play(letter);
    await computerTurn();
  });
}

/** Plays letter on the stage: the server's answer, animated, then judged. */
async function play(letter, { judge = true } = {}) {
  const s = stage;
  const before = parsePosition(s.res.position);
  try {
    const res = await api.position({ position: s.start, moves: [...s.moves, letter] });
    if (stage !== s) return;
    await animate(before, res);
    if (stage !== s) return;
    s.moves.push(letter);
    s.res = res;
    const sw = res.sowing;
    s.last = sw ? { from: sw.laps[0].from, to: end(sw) } : null;
    if (judge) verdict(res);
    render();
    // On a phone the verdict is below the board: bring it into view.
    if (s.feedback) $("learn-feedback").scrollIntoView({ block: "nearest" });
  } catch (err) {
    if (stage === s) render();
    showError(err);
  }
}

/** Shows the move's sowing, then the sweep if the game ended so. */
async function animate(before, res) {
  anim = new AbortController();
  const signal = anim.signal;
  renderBoard({ animating: true });
  try {
    await animateSowing(board, before, res.sowing, {
      speed,
      signal,
      onLap: (lap, laps, hand) => {
        $("learn-lap").textContent = t("play.lap", { lap: num(lap), laps: num(laps), hand: num(hand) });
      },
    });
    if (res.status === "no-legal-move" && speed !== "instant" && !signal.aborted) {
      const pos = parsePosition(res.position);
      const to = pos.toMove === "s" ? "n" : "s";
      if (boardSeeds(pos) > 0) {
        await sleep(300, signal);
        await Promise.all(pos.board.map((n, i) => (n > 0 ? board.fly(i, to, n, 500, signal) : null)));
      }
    }
  } finally {
    $("learn-lap").textContent = "";
    anim = null;
  }
}

/** Judges the learner's move and records the outcome on the stage. */
function verdict(res) {
  const s = stage;
  if (s.type === "puzzle") {
    const pz = s.item;
    const letter = res.sowing.move;
    const right = letter === pz.answer;
    s.state = right ? "done" : "wrong";
    if (right) mark("puzzles", pz.id);
    s.feedback = () => [right ? t("learn.pz.right") : t("learn.pz.wrong"), outcome(pz, letter), right ? "" : t("learn.pz.tryOrShow")]
      .filter(Boolean)
      .join(" ");
    return;
  }
  if (s.series) return seriesVerdict(res);
  const h = parsePosition(res.position).holes;
  const v = s.item.judge(res, h);
  if (v.done) {
    s.state = "done";
    mark("lessons", String(s.index + 1));
    s.feedback = () => s.item.judge(res, h).done;
  } else if (v.wrong) {
    s.state = "wrong";
    s.feedback = () => s.item.judge(res, h).wrong;
  } else {
    s.feedback = () => s.item.judge(res, h).note;
  }
}

/** What a puzzle's move leads to with best play, from the databases' values. */
function outcome(pz, letter) {
  const v = pz.values[letter];
  if (pz.kind === "most") {
    if (v > 0) return tp("learn.pz.more", v, { move: letter });
    if (v < 0) return tp("learn.pz.fewer", -v, { move: letter });
    return t("learn.pz.same", { move: letter });
  }
  const pos = parsePosition(pz.position);
  const margin = pos.captured.s - pos.captured.n + v;
  let result = t("learn.pz.draw");
  if (margin > 0) result = tp("learn.pz.win", margin);
  if (margin < 0) result = tp("learn.pz.lose", -margin);
  return t("learn.pz.afterSave", { move: letter, outcome: result });
}

/** Shows a puzzle's answer: back to the start, then its move, animated. */
async function showSolution() {
  const s = stage;
  if (!s || s.type !== "puzzle" || anim) return;
  clearMessage();
  await busy(async () => {
    try {
      s.moves = [];
      s.last = null;
      s.res = await api.position({ position: s.start, moves: [] });
      s.state = "solution";
      s.feedback = () => [t("learn.pz.solutionIs", { move: s.item.answer }), outcome(s.item, s.item.answer)].join(" ");
      render();
      await play(s.item.answer, { judge: false });
    } catch (err) {
      showError(err);
    }
  });
}

// The series lesson: games on the small board against the computer, the
// first player changing from game to game, until one side has two wins.

function seriesVerdict(res) {
  const s = stage;
  const sr = s.series;
  if (!over(res)) {
    s.feedback = null;
    return;
  }
  if (res.result === "1-0") sr.wins.s++;
  if (res.result === "0-1") sr.wins.n++;
  sr.games++;
  const game = () => ending(res);
  if (sr.wins.s >= SERIES_TARGET) {
    s.state = "done";
    mark("lessons", String(s.index + 1));
    s.feedback = () => [game(), t("learn.l7.right", { s: num(sr.wins.s), n: num(sr.wins.n) })].join(" ");
  } else if (sr.wins.n >= SERIES_TARGET) {
    s.state = "wrong";
    s.feedback = () => [game(), t("learn.l7.wrong", { s: num(sr.wins.s), n: num(sr.wins.n) })].join(" ");
  } else {
    s.feedback = game;
  }
}

async function nextSeriesGame() {
  const s = stage;
  if (!s || !s.series || anim || !s.res || !over(s.res)) return;
  // Draws count for the alternation too: every game played changes the first player.
  s.series.first = s.series.games % 2 === 0 ? "s" : "n";
  s.start = SERIES_START[s.series.first];
  s.moves = [];
  s.feedback = null;
  s.last = null;
  await busy(async () => {
    try {
      await load();
      $("learn-table").scrollIntoView({ block: "nearest" });
    } catch (err) {
      showError(err);
    }
  });
}

/** In the series, the computer (the server's engine) moves for North. */
async function computerTurn() {
  const s = stage;
  try {
    while (stage === s && s.series && s.res && !over(s.res) && s.res.toMove === "n") {
      $("learn-status").textContent = t("play.thinking");
      const a = await api.analyze({ position: s.start, moves: s.moves, depth: 12 });
      await sleep(400); // an instant reply feels abrupt
      if (stage !== s || !a.lines || !a.lines.length) return;
      await play(a.lines[0].move);
    }
  } catch (err) {
    if (stage === s) render();
    showError(err);
  }
}

function goNext() {
  if (!stage) return;
  if (stage.type === "lesson" && stage.index + 1 < LESSONS.length) {
    location.hash = `#/learn/lesson/${stage.index + 2}`;
    return;
  }
  const start = stage.type === "puzzle" ? stage.index + 1 : 0;
  const next = puzzles.slice(start).find((p) => !progress.puzzles.includes(p.id)) || puzzles[start];
  location.hash = next ? `#/learn/puzzle/${next.id}` : "#/learn";
}

// Rendering.

/** Draws the screen from the state; called after every change and language switch. */
export function render() {
  if (!board) return;
  $("learn-menu").hidden = !!stage;
  $("learn-stage").hidden = !stage;
  if (!stage) {
    renderMenu();
    return;
  }
  const s = stage;
  const lesson = s.type === "lesson";
  $("learn-stage").dataset.state = s.state;
  $("learn-stage").dataset.kind = lesson ? `lesson-${s.index + 1}` : `puzzle-${s.item.id}`;
  $("learn-where").textContent = lesson
    ? t("learn.lessonOf", { n: num(s.index + 1), total: num(LESSONS.length) })
    : `${t("learn.puzzleOf", { n: num(s.index + 1), total: num(puzzles.length) })} · ${LEVELS[s.item.level - 1]()}`;
  const done = lesson ? progress.lessons.includes(String(s.index + 1)) : progress.puzzles.includes(s.item.id);
  $("learn-where-done").hidden = !done;
  $("learn-title").textContent = lesson ? s.item.title() : s.item.kind === "most" ? t("learn.pz.most") : t("learn.pz.save");
  const text = $("learn-text");
  text.replaceChildren();
  const paras = lesson ? s.item.body() : [s.item.kind === "most" ? t("learn.pz.taskMost") : t("learn.pz.taskSave")];
  for (const p of paras) text.append(el("p", "", p));
  $("learn-task").textContent = lesson ? s.item.task() : t("learn.pz.task");
  renderBoard({ animating: !!anim });

  const fb = $("learn-feedback");
  fb.textContent = s.feedback ? s.feedback() : "";
  fb.dataset.kind = s.state;
  const finished = s.state !== "playing";
  const seriesGameOver = s.series && s.res && over(s.res) && s.state === "playing";
  $("learn-again").hidden = !(finished || s.moves.length > 0 || s.series);
  $("learn-solution").hidden = !(s.type === "puzzle" && s.state === "wrong");
  $("learn-next-game").hidden = !seriesGameOver;
  $("learn-next").hidden = !(s.state === "done" || s.state === "solution");
  renderStatus();
}

function renderBoard({ animating }) {
  const s = stage;
  if (!s || !s.res) return;
  const res = s.res;
  const pos = parsePosition(res.position);
  const ended = over(res);
  const mover = s.item.both ? pos.toMove : "s";
  const canMove = !animating && s.state === "playing" && !ended && pos.toMove === mover;
  $("learn-board").classList.toggle("ended", ended && !animating);
  board.show(pos, {
    legal: canMove ? res.legalMoves : [],
    captured: ended ? { s: res.score.south, n: res.score.north } : pos.captured,
    last: s.last,
  });
  $("learn-south-label").textContent = s.item.both ? t("side.south") : t("learn.you");
  const turn = !ended && s.state === "playing";
  $("learn-player-south").classList.toggle("to-move", turn && pos.toMove === "s");
  $("learn-player-north").classList.toggle("to-move", turn && pos.toMove === "n");
  for (const side of ["s", "n"]) {
    const tally = $(side === "s" ? "learn-tally-south" : "learn-tally-north");
    tally.replaceChildren();
    if (!s.series) {
      tally.removeAttribute("role");
      tally.removeAttribute("aria-label");
      continue;
    }
    const wins = s.series.wins[side];
    for (let k = 0; k < wins; k++) tally.append(el("span", "pin"));
    tally.setAttribute("role", "img");
    tally.setAttribute("aria-label", t("series.pins", { wins: num(wins) }));
  }
}

function renderStatus() {
  const s = stage;
  const res = s.res;
  let text = "";
  if (s.series) {
    const sr = s.series;
    text = t("learn.l7.game", {
      n: num(sr.games + (over(res) ? 0 : 1)),
      player: sideName(parsePosition(s.start).toMove),
      target: num(SERIES_TARGET),
    });
  } else if (s.type === "puzzle" && s.state === "playing") {
    const pos = parsePosition(s.start);
    text = t("learn.pz.score", { s: num(pos.captured.s), n: num(pos.captured.n) });
  } else if (res && !over(res) && s.state === "playing" && s.item.both) {
    text = t("status.toMove", { player: sideName(res.toMove) });
  }
  $("learn-status").textContent = text;
}

function renderMenu() {
  const lessonsDone = LESSONS.filter((_, i) => progress.lessons.includes(String(i + 1))).length;
  const list = puzzles || [];
  const solved = list.filter((p) => progress.puzzles.includes(p.id)).length;
  $("learn-progress").textContent = t("learn.progress", {
    lessons: num(lessonsDone),
    lessonsTotal: num(LESSONS.length),
    puzzles: num(solved),
    puzzlesTotal: num(list.length),
  });
  const ol = $("learn-lessons");
  ol.replaceChildren();
  LESSONS.forEach((lesson, i) => {
    const done = progress.lessons.includes(String(i + 1));
    const a = el("a", "learn-item", lesson.title());
    a.href = `#/learn/lesson/${i + 1}`;
    a.dataset.lesson = String(i + 1);
    a.dataset.done = String(done);
    const li = el("li");
    li.append(a);
    if (done) li.append(el("span", "learn-done", t("learn.done")));
    ol.append(li);
  });
  const box = $("learn-puzzles");
  box.replaceChildren();
  for (let level = 1; level <= LEVELS.length; level++) {
    const group = list.map((p, i) => ({ p, i })).filter(({ p }) => p.level === level);
    if (!group.length) continue;
    box.append(el("h3", "", LEVELS[level - 1]()));
    const ul = el("ul", "learn-grid");
    for (const { p, i } of group) {
      const ok = progress.puzzles.includes(p.id);
      const a = el("a", "learn-puzzle", num(i + 1));
      a.href = `#/learn/puzzle/${p.id}`;
      a.dataset.puzzle = p.id;
      a.dataset.solved = String(ok);
      a.setAttribute("aria-label", ok ? t("learn.puzzleSolved", { n: num(i + 1) }) : t("learn.puzzleLabel", { n: num(i + 1) }));
      const li = el("li");
      li.append(a);
      ul.append(li);
    }
    box.append(ul);
  }
}
