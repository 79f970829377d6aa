// An invitation to an online game, #/join/{code}: the free seat is taken
// with an optional name; a browser that holds a seat already goes to the
// game, and once both seats are taken the invitation is for watching.

import { api } from "./api.js";
import { t, num } from "./i18n.js";
import { playerName } from "./explain.js";
import { other } from "./notation.js";
import { busy, showMessage } from "./ui.js";
import { seatOf, keepSeat, savedName, rememberName, clockName } from "./online.js";

const $ = (id) => document.getElementById(id);
let code = "";

export function initJoin() {
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    join();
  });
}

export async function openJoin(c) {
  code = c || "";
  $("join-form").hidden = $("join-error").hidden = true;
  await busy(async () => {
    try {
      const inv = await api.invite(code);
      if (seatOf(inv.game)) return location.replace(`#/play/${inv.game}`);
      if (!inv.free) return watch(inv.game);
      const g = await api.game(inv.game);
      $("join-text").textContent = t("join.text", {
        player: playerName(g, other(inv.free)),
        holes: num(g.holes),
        clock: clockName(g.online && g.online.clock),
      });
      $("join-name").value = savedName();
      $("join-form").hidden = false;
      $("join-name").focus();
    } catch (err) {
      fail(err);
    }
  });
}

function fail(err) {
  const e = $("join-error");
  e.textContent = err.status === 404 ? t("join.unknown") : err.network ? t("error.network") : t("error.server", { error: err.message });
  e.hidden = false;
}

function watch(id) {
  location.replace(`#/play/${encodeURIComponent(id)}`);
  showMessage(t("join.watching"), "info", { next: true });
}

async function join() {
  const name = $("join-name").value.trim();
  rememberName(name);
  await busy(async () => {
    try {
      const res = await api.join(code, name ? { name } : {});
      const id = res.game ? res.game.id : String(res.watch || "").split("/").pop();
      if (!res.seat) return watch(id);
      keepSeat(id, { side: res.seat.side, token: res.seat.token });
      location.replace(`#/play/${encodeURIComponent(id)}`);
    } catch (err) {
      fail(err);
    }
  });
}
