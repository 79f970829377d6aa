// The carved board: two rows of recessed holes, North's on top lettered A..
// from right to left, South's at the bottom lettered a.. from left to right,
// so that seeds travel counterclockwise. Each hole is a <button> showing its
// seeds and its count; the captured piles sit beside the board. The board
// keeps its physical layout in right-to-left languages (dir="ltr"). Turned
// (setFlipped), it is seen from North's side: the whole table rotated half
// a turn, North's row at the bottom, each hole keeping its letter.

import { t, tp, num } from "./i18n.js";
import { letterOf } from "./notation.js";
import { el, sleep, icon } from "./ui.js";

const DRAWN = 12; // seeds drawn one by one; beyond that a heap and the number
const HEAP = 18; // seeds drawn for a heap
const PILE_DRAWN = 30;

/** A small deterministic random generator, so a hole's seeds keep their places. */
function rand(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The place of seed k (0-based) in a hole, in percent of the pit: a
 * sunflower spiral from the centre outwards, jittered, like seeds settling
 * in a bowl. The place depends only on k and the hole, so adding a seed
 * leaves the others where they lie.
 */
function seedPlace(hole, k, spread) {
  const r = rand(hole * 7919 + k * 104729 + 17);
  const radius = spread * Math.sqrt(k + 0.45) * (0.85 + 0.3 * r());
  const angle = k * 2.39996 + hole * 1.3 + (r() - 0.5) * 0.7;
  return { x: 50 + radius * Math.cos(angle), y: 50 + radius * Math.sin(angle), tone: Math.floor(r() * 3) };
}

function drawSeeds(pit, hole, count) {
  const heap = count > DRAWN;
  const drawn = heap ? HEAP : count;
  const spread = heap ? 7.2 : 9.2;
  pit.classList.toggle("heap", heap);
  // Reuse the seeds already drawn; add or remove only the difference.
  while (pit.children.length > drawn) pit.lastChild.remove();
  for (let k = pit.children.length; k < drawn; k++) {
    const p = seedPlace(hole, k, spread);
    const s = el("span", `seed t${p.tone}`);
    s.style.left = `${p.x}%`;
    s.style.top = `${p.y}%`;
    pit.append(s);
  }
}

export class Board {
  /**
   * container: the element to fill (#board); table: the positioned element
   * around the board and piles, for the hand and flying seeds; piles: {s, n}.
   */
  constructor(container, { table, piles, onHole }) {
    this.container = container;
    this.table = table;
    this.piles = piles;
    this.onHole = onHole;
    this.holes = 0;
    this.flipped = false;
    this.buttons = [];
    this.counts = [];
    this.container.setAttribute("dir", "ltr");
    this.hand = el("div", "hand");
    this.hand.setAttribute("aria-hidden", "true");
    this.hand.hidden = true;
    this.table.append(this.hand);
  }

  /** Builds the holes for a board of h holes a row. */
  setup(h) {
    if (h === this.holes) return;
    this.holes = h;
    this.container.replaceChildren();
    this.container.style.setProperty("--holes", h);
    this.container.classList.toggle("many", h > 10); // narrow holes: letter above count
    const north = el("div", "row north");
    const south = el("div", "row south");
    const groove = el("div", "groove");
    groove.setAttribute("aria-hidden", "true");
    const arrow = el("span", "ccw-arrow");
    arrow.append(icon("ccw"));
    groove.append(arrow, el("span", "ccw-text"));
    this.buttons = [];
    for (let i = 0; i < 2 * h; i++) {
      const b = el("button", "hole");
      b.type = "button";
      b.dataset.hole = letterOf(i, h);
      const pit = el("span", "pit");
      pit.setAttribute("aria-hidden", "true");
      const tag = el("span", "tag");
      tag.setAttribute("aria-hidden", "true");
      // The space makes the visible text "a 4", which the label contains
      // ("South hole a, 4 seeds"): speech input can name the hole as seen.
      // The label's count is hole.seeds, which a language that writes the
      // number after the noun gives bare ("mbegu za shimo a: 4").
      tag.append(el("span", "letter", letterOf(i, h)), " ", el("span", "count", "0"));
      b.append(pit, tag);
      b.addEventListener("click", () => this.onHole && this.onHole(b.dataset.hole));
      this.buttons.push(b);
      (i < h ? south : north).append(b);
    }
    this.container.append(north, groove, south);
    this.counts = Array(2 * h).fill(-1);
    this.labelDirection();
    this.orient();
  }

  /** Turns the board so that North's row is at the bottom (on), or back. */
  setFlipped(on) {
    this.flipped = !!on;
    this.orient();
  }

  /** Lays the rows out for the orientation: the DOM order is the visual order, for the keyboard. */
  orient() {
    this.container.classList.toggle("flipped", this.flipped);
    this.table.classList.toggle("flipped", this.flipped);
    const rows = [".row.north", ".groove", ".row.south"].map((css) => this.container.querySelector(css));
    if (rows.some((r) => !r)) return;
    if (this.flipped) rows.reverse();
    if (rows.some((r, i) => this.container.children[i] !== r)) this.container.append(...rows);
  }

  labelDirection() {
    const text = this.container.querySelector(".ccw-text");
    if (text) text.textContent = t("board.direction");
  }

  /**
   * Shows a position: pos from notation.parsePosition, plus
   * legal: the playable letters (empty when nobody may move here),
   * captured: {s, n} for the piles (the game's score, sweep included),
   * last: {from, to} hole numbers of the last move, hint: a letter.
   */
  show(pos, { legal = [], captured = pos.captured, last = null, hint = null } = {}) {
    this.setup(pos.holes);
    this.legal = new Set(legal);
    for (let i = 0; i < 2 * pos.holes; i++) this.setCount(i, pos.board[i]);
    for (const [i, b] of this.buttons.entries()) {
      const isLegal = this.legal.has(b.dataset.hole);
      b.dataset.legal = String(isLegal);
      b.setAttribute("aria-disabled", String(!isLegal));
      b.classList.toggle("last-from", !!last && last.from === i);
      b.classList.toggle("last-to", !!last && last.to === i);
      b.classList.toggle("hint", hint === b.dataset.hole);
    }
    this.setPile("s", captured.s);
    this.setPile("n", captured.n);
    this.hideHand();
    this.labelHoles();
  }

  /** Sets hole i's count, drawing its seeds; pop marks a seed just dropped. */
  setCount(i, n, pop = false) {
    const b = this.buttons[i];
    if (!b) return;
    const old = this.counts[i];
    this.counts[i] = n;
    b.querySelector(".count").textContent = num(n);
    const pit = b.querySelector(".pit");
    drawSeeds(pit, i, n);
    if (pop && n > old && n <= DRAWN && pit.lastChild) {
      pit.lastChild.classList.add("drop");
    }
    b.classList.toggle("empty", n === 0);
    if (this.legal) this.labelHole(i);
  }

  labelHole(i) {
    const b = this.buttons[i];
    const side = i < this.holes ? t("side.south") : t("side.north");
    const params = { side, letter: b.dataset.hole, seeds: tp("hole.seeds", this.counts[i]) };
    b.setAttribute(
      "aria-label",
      b.dataset.legal === "true" ? t("hole.label", params) : t("hole.labelBlocked", params),
    );
  }

  labelHoles() {
    for (let i = 0; i < this.buttons.length; i++) this.labelHole(i);
    this.labelDirection();
    for (const side of ["s", "n"]) this.setPile(side, Number(this.piles[side].dataset.count || 0));
  }

  setPile(side, n) {
    const pile = this.piles[side];
    pile.dataset.count = String(n);
    const tray = pile.querySelector(".tray");
    const want = Math.min(n, PILE_DRAWN);
    while (tray.children.length > want) tray.lastChild.remove();
    for (let k = tray.children.length; k < want; k++) {
      const r = rand(k * 31 + (side === "s" ? 5 : 11));
      const s = el("span", `seed t${Math.floor(r() * 3)}`);
      // A loose heap: lower layers wide, later seeds nearer the middle.
      const spread = 38 - Math.min(k, 24);
      s.style.left = `${50 + (r() - 0.5) * spread * 1.6}%`;
      s.style.top = `${50 + (r() - 0.5) * spread}%`;
      tray.append(s);
    }
    pile.querySelector(".pile-count").textContent = num(n);
    pile.setAttribute("aria-label", side === "s" ? tp("pile.south", n) : tp("pile.north", n));
  }

  /** The centre of hole i (or a pile element), relative to the table. */
  centre(target) {
    const node = typeof target === "number" ? this.buttons[target].querySelector(".pit") : target;
    const r = node.getBoundingClientRect();
    const base = this.table.getBoundingClientRect();
    return { x: r.left - base.left + r.width / 2, y: r.top - base.top + r.height / 2 };
  }

  /** Shows the sowing hand over hole i with n seeds in it. */
  showHand(i, n) {
    const c = this.centre(i);
    this.hand.hidden = false;
    this.hand.textContent = num(n);
    this.hand.style.transform = `translate(${c.x}px, ${c.y}px)`;
    this.buttons.forEach((b, k) => b.classList.toggle("sowing", k === i));
  }

  hideHand() {
    this.hand.hidden = true;
    for (const b of this.buttons) b.classList.remove("sowing");
  }

  /** Flies count seeds from hole i to side's pile over ms milliseconds. */
  async fly(i, side, count, ms, signal) {
    const from = this.centre(i);
    const to = this.centre(this.piles[side].querySelector(".tray"));
    const shown = Math.min(count, 8);
    const seeds = [];
    for (let k = 0; k < shown; k++) {
      const s = el("span", "seed flying");
      s.style.transform = `translate(${from.x + (k % 3) * 4 - 4}px, ${from.y + Math.floor(k / 3) * 4 - 4}px)`;
      s.style.transitionDuration = `${ms}ms`;
      s.style.transitionDelay = `${k * 25}ms`;
      this.table.append(s);
      seeds.push(s);
    }
    // Two frames, so the start place is laid out before the transition.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (const s of seeds) s.style.transform = `translate(${to.x}px, ${to.y}px)`;
    await sleep(ms + shown * 25, signal);
    for (const s of seeds) s.remove();
  }
}

/**
 * Draws a static board diagram (the rules page): h holes a row with seeds
 * in each, lettered, with the counterclockwise arrow. Not interactive.
 */
export function diagram(container, h, seeds) {
  container.replaceChildren();
  const b = el("div", "board mini");
  b.style.setProperty("--holes", h);
  const north = el("div", "row north");
  const south = el("div", "row south");
  for (let i = 0; i < 2 * h; i++) {
    const hole = el("div", "hole");
    const pit = el("span", "pit");
    drawSeeds(pit, i, seeds);
    const tag = el("span", "tag");
    tag.append(el("span", "letter", letterOf(i, h)), el("span", "count", num(seeds)));
    hole.append(pit, tag);
    (i < h ? south : north).append(hole);
  }
  const groove = el("div", "groove");
  const arrow = el("span", "ccw-arrow");
  arrow.append(icon("ccw"));
  groove.append(arrow, el("span", "ccw-text", t("board.direction")));
  b.append(north, groove, south);
  container.append(b);
}

/**
 * Draws a board's frame into table, a placeholder of the page: the
 * players' strips, the piles and the board, their ids prefixed as the
 * table's ("an-table": "an-board"). data-parts adds "marks" (turn marks,
 * tallies, the piles' labels) and "names" (the game's names, presence,
 * clocks and the computer thinking).
 */
export function drawFrame(table) {
  const p = table.id.slice(0, -5);
  const parts = table.dataset.parts || "";
  const marks = parts.includes("marks");
  const names = parts.includes("names");
  const make = (tag, cls, attrs, ...kids) => {
    const e = el(tag, cls);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    e.append(...kids);
    return e;
  };
  const mute = { "aria-hidden": "true" };
  const rows = [];
  for (const side of ["north", "south"]) {
    const key = { "data-i18n": "side." + side };
    const strip = make("div", "player " + side, { id: p + "player-" + side });
    const pile = make("div", "pile " + side, { id: p + "pile-" + side, "data-count": "0", role: "img" }, make("span", "tray"), make("span", "pile-count", mute, "0"));
    if (marks) strip.append(make("span", "turn-mark", mute));
    if (names) strip.append(make("span", "player-name", { id: "name-" + side }));
    strip.append(make("span", "side-label", { id: p + side + "-label", ...key }));
    if (marks) strip.append(make("span", "tally", { id: p + "tally-" + side }));
    if (marks) pile.append(make("span", "pile-label", { ...mute, ...key }));
    if (names) strip.append(make("span", "presence", { id: "presence-" + side, hidden: "" }), make("span", "clock", { id: "clock-" + side, role: "timer", hidden: "" }));
    if (names && side === "north") {
      strip.append(make("span", "thinking", { id: "thinking", hidden: "" }, make("span", "dots", mute), make("span", "", { "data-i18n": "play.thinking" })));
    }
    rows.push(strip, pile);
  }
  table.replaceChildren(rows[0], rows[1], make("div", "board", { id: p + "board", dir: "ltr" }), rows[3], rows[2]);
}
