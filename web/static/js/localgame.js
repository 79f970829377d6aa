// The controller of a game on this device (game.js): two people taking
// turns, or a person against the computer, whose reply follows after a
// short, natural pause. A hint, taking a move back, resigning, a rematch
// and the next game of a series are its own.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { other } from "./notation.js";
import { playerName, playerLabel, offBoardEnd, hintSentence } from "./explain.js";
import { busy, clearMessage, showError, announce, sleep } from "./ui.js";
import { $, shown, motion, render, setGame, recover, playOut, sendMove, skip, confirmResign, endConfirm, setThinking, setHint, hide, ONLINE_PARTS } from "./game.js";

const computerSide = () => (shown.game && shown.game.computer ? shown.game.computer.side : null);
const computerToMove = () => !!shown.game && shown.game.status === "playing" && shown.game.toMove === computerSide();

/** The controller of local games; onlinegame.js has the same methods. */
export const localGame = {
  resignButton: "resign", // the id of the button that asks to resign
  /** Wires its own controls, once. */
  init() {
    $("hint").addEventListener("click", askHint);
    $("takeback").addEventListener("click", takeback);
    $("resign").addEventListener("click", confirmResign);
    $("rematch").addEventListener("click", rematch);
  },
  /** A game of its kind is about to be shown, and is left. */
  open() {},
  close() {},
  /** Whether the game is followed live: opening it again leaves it be. */
  following: () => false,
  /** A new view of the game is shown; another: of another game. */
  adopt() {},
  /** After the game is shown or moved: the computer's turn. */
  resume: computerTurn,
  /** The row this browser plays: the person's against the computer, else South's. */
  ownSide: (g) => (g.computer ? other(g.computer.side) : "s"),
  /** Whether the person may move, at the latest position of a game being played. */
  canMove: () => !computerToMove(),
  /** Whether a hole of side's clicked during a move's animation is played after it. */
  mayQueue: (side) => side !== computerSide(),
  /** Why no move may be made now, or "". */
  refusal: () => (computerToMove() ? t("msg.computerTurn") : ""),
  move: (letter) => sendMove(letter),
  /** Whether a game view from the server is newer than the one shown. */
  newer: () => true,
  /** The status line. */
  status,
  /** Draws its own parts of the screen. */
  render(ended, over, canMove) {
    const g = shown.game;
    $("new-game").classList.add("primary");
    $("next-game").textContent = t("play.nextGame");
    $("rematch").hidden = !ended || !!g.series;
    hide(...ONLINE_PARTS);
    // Against the computer the person resigns, even while it moves; between two people, the side to move.
    $("resign").hidden = over;
    const who = g.computer ? "" : playerName(g, g.toMove);
    $("resign-sure").textContent = who ? t("play.resignFor", { player: who }) : t("act.resignSure");
    $("hint").disabled = !canMove;
    $("hint").hidden = $("takeback").hidden = false;
    // A finished game of a series is counted in the tally, and a resignation
    // stands: such a game stays as it ended.
    $("takeback").disabled = g.moves.length === 0 || !!motion.anim || motion.thinking || (over && !!g.series) || g.status === "resigned";
  },
  resign: resignHere,
  next: nextInSeries,
};

function status() {
  const g = shown.game;
  if (g.status === "aborted") return t("status.aborted");
  if (g.status !== "playing") return t("status.over");
  if (computerToMove()) return t("status.computerMoves");
  if (computerSide()) return t("status.yourMove");
  return t("status.toMove", { player: playerLabel(g, g.toMove) });
}

let resigning = false; // the person resigns: the computer makes no further move
let turn = null; // the computer's move under way (asked, paused for, shown), or null

/** Lets the computer move while it is its turn, each reply after a natural pause. */
async function computerTurn(my) {
  while (my === shown.token && computerToMove() && !resigning) {
    turn = computerMove(my);
    try {
      await turn;
    } finally {
      turn = null;
    }
  }
}

async function computerMove(my) {
  setThinking(true);
  const started = performance.now();
  let res;
  try {
    res = await api.computer(shown.game.id, shown.game.moves.length);
    // At least about 700 ms, a little more at random: an instant reply feels abrupt.
    if (!resigning) await sleep(700 + Math.random() * 450 - (performance.now() - started));
  } finally {
    setThinking(false);
  }
  if (my === shown.token) await playOut(res.game, res.sowing, my, { quick: resigning });
}

async function askHint() {
  const g = shown.game;
  if (!g || g.status !== "playing") return;
  const my = shown.token;
  await busy(async () => {
    try {
      const h = await api.hint(g.id);
      if (my !== shown.token) return;
      clearMessage();
      setHint(h);
      announce(hintSentence(h, shown.game.toMove));
    } catch (err) {
      await recover(err, my);
    }
  });
}

async function takeback() {
  if (!shown.game) return;
  const my = shown.token;
  await busy(async () => {
    try {
      const g = await api.takeback(shown.game.id, shown.game.moves.length);
      if (my !== shown.token) return;
      setGame(g);
      clearMessage();
      render();
      announce(status());
    } catch (err) {
      await recover(err, my);
    }
  });
}

async function resignHere() {
  endConfirm();
  if (!shown.game || shown.game.online || shown.game.status !== "playing") return render();
  const my = shown.token;
  // The computer's move under way lands at once, and is the last.
  resigning = true;
  skip();
  await busy(async () => {
    try {
      if (turn) await turn.catch(() => {});
      const g = shown.game;
      if (my !== shown.token || g.status !== "playing") return render();
      const v = await api.action(g.id, "resign", g.moves.length);
      if (my !== shown.token) return;
      setGame(v);
      render();
      announce(offBoardEnd(v).join(" "));
      $($("rematch").hidden ? "new-game" : "rematch").focus();
    } catch (err) {
      await recover(err, my);
    } finally {
      resigning = false;
    }
  });
}

/** A new game with the same settings, the players' sides swapped. */
async function rematch() {
  const g = shown.game;
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

async function nextInSeries() {
  const s = shown.game && shown.game.series;
  if (!s) return;
  await busy(async () => {
    try {
      const g = await api.nextInSeries(s.id);
      location.hash = `#/play/${g.id}`;
    } catch (err) {
      await recover(err, shown.token);
    }
  });
}
