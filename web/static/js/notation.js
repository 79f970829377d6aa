// The position notation of docs/rules.md as the page reads it: positions,
// hole letters and numbers, sides. The page plays no rules itself; the
// server judges every move and sends each sowing lap by lap.

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

/** The round of move ply (from 1): a round is one move of each player, as game records number them. */
export const roundOf = (ply) => Math.ceil(ply / 2);

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
