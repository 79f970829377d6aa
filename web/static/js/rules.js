// The little of docs/rules.md the page needs itself: reading the position
// notation, hole letters and numbers, and tracing a sowing lap by lap (for
// replaying old moves, whose traces the API does not keep). The server
// stays the judge of legality; the page always snaps to its positions.

const LOWER = "abcdefghijklmnop";
const UPPER = "ABCDEFGHIJKLMNOP";

/**
 * Parses "<south a..>/<north A..> <s|n> <south captured> <north captured>"
 * into {holes, board (numbered 0..2H-1: a.. then A..), toMove, captured:{s,n}}.
 * Returns null for text that is not a position.
 */
export function parsePosition(text) {
  const m = /^\s*([0-9,]+)\/([0-9,]+)\s+([sn])\s+(\d+)\s+(\d+)\s*$/.exec(text || "");
  if (!m) return null;
  const south = m[1].split(",").map(Number);
  const north = m[2].split(",").map(Number);
  if (south.length !== north.length || south.length < 2 || south.length > 16) return null;
  if ([...south, ...north].some((x) => !Number.isFinite(x))) return null;
  return {
    holes: south.length,
    board: [...south, ...north],
    toMove: m[3],
    captured: { s: Number(m[4]), n: Number(m[5]) },
  };
}

/** The notation of a start position with holes × seeds, South to move. */
export function startPosition(holes, seeds) {
  const row = Array(holes).fill(seeds).join(",");
  return `${row}/${row} s 0 0`;
}

/** The letter of hole number i on a board of h holes a row. */
export function letterOf(i, h) {
  return i < h ? LOWER[i] : UPPER[i - h];
}

/** The number of the hole named letter, or -1. */
export function indexOf(letter, h) {
  let i = LOWER.indexOf(letter);
  if (i >= 0 && i < h) return i;
  i = UPPER.indexOf(letter);
  if (i >= 0 && i < h) return h + i;
  return -1;
}

/** The side ("s" or "n") owning hole i. */
export function ownerOf(i, h) {
  return i < h ? "s" : "n";
}

/** The side a move letter belongs to. */
export function sideOfMove(letter) {
  return letter === letter.toLowerCase() ? "s" : "n";
}

export const other = (side) => (side === "s" ? "n" : "s");

/** The seeds on the board of a parsed position. */
export function boardSeeds(pos) {
  return pos.board.reduce((a, b) => a + b, 0);
}

/** The seeds in side's row. */
export function rowSeeds(pos, side) {
  const h = pos.holes;
  const row = side === "s" ? pos.board.slice(0, h) : pos.board.slice(h);
  return row.reduce((a, b) => a + b, 0);
}

/**
 * Traces the move letter in pos like the API's sowing view:
 * {move, laps:[{from, seeds, to}], captureFrom, captured}, or null if the
 * move is empty or does not end within maxLaps laps.
 */
export function traceMove(pos, letter, variant = "standard", maxLaps = 1000) {
  const h = pos.holes;
  const n = 2 * h;
  const b = pos.board.slice();
  let from = indexOf(letter, h);
  if (from < 0 || b[from] === 0) return null;
  const mover = sideOfMove(letter);
  const laps = [];
  for (;;) {
    if (laps.length === maxLaps) return null; // endless: not a legal move
    const seeds = b[from];
    b[from] = 0;
    let i = from;
    for (let k = 0; k < seeds; k++) {
      i = (i + 1) % n;
      b[i]++;
    }
    laps.push({ from, seeds, to: i });
    if (b[i] === 1) break; // the last seed fell into an empty hole
    from = i;
  }
  const end = laps[laps.length - 1].to;
  const opposite = n - 1 - end;
  const own = ownerOf(end, h) === mover;
  let captureFrom = -1;
  let captured = 0;
  if ((own || variant === "cross") && b[opposite] > 0) {
    captureFrom = opposite;
    captured = b[opposite] + 1;
  }
  return { move: letter, laps, captureFrom, captured };
}
