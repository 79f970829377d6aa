// Sentences about games: who plays, what a move did, why a game ended and
// who won. Shared by the game and the analysis board.

import { t, tp, num, signed } from "./i18n.js";
import { letterOf, parsePosition, boardSeeds, rowSeeds, other, sideOfMove } from "./notation.js";

export function sideName(side) {
  return side === "s" ? t("side.south") : t("side.north");
}

/** What to call side's player in game (a game view): the name, the computer or the side. */
export function playerName(game, side) {
  const name = game && (side === "s" ? game.south : game.north);
  if (name) return name;
  if (game && game.computer && game.computer.side === side) {
    return t("player.computer", { level: num(game.computer.level) });
  }
  return sideName(side);
}

/** "Naserian (South)", or just "South" when the player has no name. */
export function playerLabel(game, side) {
  const name = playerName(game, side);
  const s = sideName(side);
  return name === s ? s : t("player.named", { name, side: s });
}

/** "South sowed c: 5 laps, captured 7 seeds from B." */
export function moveSentence(game, sowing, holes) {
  const side = sideOfMove(sowing.move);
  const params = {
    player: playerName(game, side),
    move: sowing.move,
    laps: tp("laps", sowing.laps.length),
  };
  if (sowing.captureFrom >= 0) {
    return t("move.capture", {
      ...params,
      seeds: tp("seeds", sowing.captured),
      hole: letterOf(sowing.captureFrom, holes),
    });
  }
  return t("move.noCapture", params);
}

/**
 * The sowing of move ply (from 1) of a game view, from its sowings
 * (docs/api.md), or null when the view leaves it out.
 */
export function sowingOf(game, ply) {
  const k = ply - 1 - (game.sowingsFrom || 0);
  return (game.sowings && k >= 0 && game.sowings[k]) || null;
}

/** The sentence of move ply of a game view: what it sowed and captured. */
export function playedSentence(game, ply) {
  const sowing = sowingOf(game, ply);
  if (sowing) return moveSentence(game, sowing, game.holes);
  const move = game.moves[ply - 1];
  return t("play.sowed", { player: playerName(game, sideOfMove(move)), move });
}

/**
 * Why a game ended other than by the rules of play (a resignation; online
 * also time, agreement, abort, expiry): [headline, reason], or null.
 */
export function offBoardEnd(g) {
  const end = g.online && g.online.end ? g.online.end : g.status === "resigned" ? "resign" : "";
  if (!end) return null;
  const loser = g.result === "1-0" ? "n" : g.result === "0-1" ? "s" : g.toMove;
  const player = playerName(g, loser);
  let head = t("result.wins", { player: playerName(g, other(loser)) });
  if (g.result === "1/2-1/2") head = t("result.agreed");
  if (g.result === "*") head = end === "aborted" ? t("status.aborted") : t("result.none");
  const why = {
    resign: t("end.resign", { player }),
    timeout: t("end.timeout", { player }),
    aborted: t("end.aborted"),
    expired: t("end.expired", { player }),
  }[end];
  return [head, why || ""];
}

/**
 * Why a finished game ended: the sweep or the repetition. final is the
 * final position's notation, ply the number of moves played.
 */
export function endSentence(game, status, final, ply) {
  const pos = parsePosition(final);
  if (!pos) return "";
  const n = boardSeeds(pos);
  if (status === "repetition") return tp("end.repetition", n);
  if (status !== "no-legal-move") return "";
  const stuck = pos.toMove;
  const params = { player: playerName(game, stuck), other: playerName(game, other(stuck)) };
  if (n === 0) return t("end.empty", params);
  if (ply === 0) return tp("end.sweepStart", n, params);
  if (rowSeeds(pos, stuck) > 0) return tp("end.endless", n, params);
  return tp("end.sweep", n, params);
}

/** "Naserian wins, 31 to 17." or "A draw, 24 each." from a result token and score. */
export function resultSentence(game, result, score) {
  if (result === "1-0") {
    return t("result.win", { player: playerName(game, "s"), winner: num(score.south), loser: num(score.north) });
  }
  if (result === "0-1") {
    return t("result.win", { player: playerName(game, "n"), winner: num(score.north), loser: num(score.south) });
  }
  if (result === "1/2-1/2") return t("result.draw", { score: num(score.south) });
  return "";
}

/**
 * A game's result for lists, from its summary (docs/api.md): the winner by
 * name, the score with the winner's first, and how the game ended when not
 * simply by the last capture: "Naserian won, 31 to 17 (on time)".
 */
export function listResult(g) {
  if (g.status === "aborted") return t("result.aborted");
  if (g.result === "*") return t("result.short.playing");
  const sc = g.score;
  let text = t("result.short.draw");
  if (g.result === "1-0" || g.result === "0-1") {
    const winner = g.result === "1-0" ? "s" : "n";
    const player = playerName(g, winner);
    const [w, l] = !sc ? [] : winner === "s" ? [sc.south, sc.north] : [sc.north, sc.south];
    text = sc ? t("result.wonScore", { player, winner: num(w), loser: num(l) }) : t("result.won", { player });
  } else if (g.result === "1/2-1/2" && sc) {
    text = sc.south === sc.north ? t("result.drawEach", { score: num(sc.south) }) : t("result.drawScore", { south: num(sc.south), north: num(sc.north) });
  }
  const how = endHow(g.status);
  return how ? t("result.how", { result: text, how }) : text;
}

/** How a game ended, in a few words for lists: "on time", "by resignation". */
export function endHow(status) {
  switch (status) {
    case "no-legal-move":
      return t("how.noMove");
    case "repetition":
      return t("how.repetition");
    case "resigned":
      return t("how.resigned");
    case "timeout":
      return t("how.timeout");
    case "agreed":
      return t("how.agreed");
    case "expired":
      return t("how.expired");
  }
  return "";
}

/** An engine score from South's view in words: "+1.5 for South", proven or not. */
export function evalText(final, exact) {
  let text;
  if (Math.abs(final) < 0.05) text = t("eval.even");
  else if (final > 0) text = t("eval.south", { score: signed(final) });
  else text = t("eval.north", { score: signed(-final) });
  return exact ? `${text} (${t("eval.proven")})` : text;
}

/** A hint in words, for the side to move (toMove). */
export function hintSentence(hint, toMove) {
  const margin = toMove === "s" ? hint.final : -hint.final;
  const n = num(Math.abs(margin), { maximumFractionDigits: 1 });
  let text;
  if (Math.abs(margin) < 0.05) text = t("hint.even", { move: hint.move });
  else if (margin > 0) text = t("hint.ahead", { move: hint.move, n });
  else text = t("hint.behind", { move: hint.move, n });
  return hint.exact ? `${text} ${t("hint.proven")}` : text;
}

/** Whether g (a game view, or null) is a finished game with moves: one that has a review. */
export function hasReview(g) {
  return !!g && g.moves.length > 0 && (g.status !== "playing" || !!(g.online && g.online.end));
}
