// The move list in the project's notation, numbered in pairs ("1. c A 2. e B"),
// each move a button that shows the position after it.

import { t, num } from "./i18n.js";
import { sideOfMove, roundOf } from "./notation.js";
import { el } from "./ui.js";

/**
 * Fills list (an <ol>) with moves; the move at ply current is marked
 * aria-current="step". nameOf(side) names the players; onSelect(ply) is
 * called when a move is chosen.
 */
export function renderMoves(list, moves, current, nameOf, onSelect) {
  list.replaceChildren();
  if (!moves.length) {
    list.append(el("li", "none", t("moves.none")));
    return;
  }
  for (let i = 0; i < moves.length; i += 2) {
    const li = el("li", "pair");
    // The numbers count rounds (a move of each player), as game records do;
    // "move" always means one player's move.
    const no = el("span", "pair-no", `${num(roundOf(i + 1))}.`);
    no.title = t("moves.round", { n: num(roundOf(i + 1)) });
    li.append(no);
    for (let ply = i + 1; ply <= Math.min(i + 2, moves.length); ply++) {
      const move = moves[ply - 1];
      const b = el("button", "move", move);
      b.type = "button";
      b.dataset.ply = String(ply);
      b.setAttribute("aria-label", t("moves.item", { round: num(roundOf(ply)), player: nameOf(sideOfMove(move)), move }));
      if (ply === current) b.setAttribute("aria-current", "step");
      b.addEventListener("click", () => onSelect(ply));
      li.append(b);
    }
    list.append(li);
  }
  // Keep the current move visible inside the list, without scrolling the page.
  const cur = list.querySelector('[aria-current="step"]') || list.lastElementChild;
  if (cur && list.scrollHeight > list.clientHeight) {
    const top = cur.offsetTop; // the list is positioned (style.css)
    if (top < list.scrollTop || top + cur.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
}
