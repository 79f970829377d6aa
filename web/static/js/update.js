// A new version of the page, which pwa.js finds waiting in the service
// worker: offered between games only ("A new version of En Dodoi is ready
// — Reload"), so that a game being played keeps the scripts it started
// with.

import { t } from "./i18n.js";
import { shown } from "./game.js";

const $ = (id) => document.getElementById(id);
let waiting = null;
let reloading = false;

/** Whether a game is being played on screen: the time not to swap versions. */
function playing() {
  const onPlay = location.hash === "" || location.hash.startsWith("#/play");
  return onPlay && !!shown.game && shown.game.status === "playing";
}

function updateBar() {
  let bar = $("update");
  if (!bar) {
    bar = document.createElement("div");
    bar.id = "update";
    bar.className = "message update";
    bar.dataset.kind = "info";
    bar.setAttribute("role", "status");
    const text = document.createElement("span");
    text.dataset.i18n = "update.ready";
    text.textContent = t("update.ready");
    const button = document.createElement("button");
    button.type = "button";
    button.id = "update-reload";
    button.className = "small primary";
    button.dataset.i18n = "update.reload";
    button.textContent = t("update.reload");
    button.addEventListener("click", () => {
      if (!waiting || playing()) return;
      reloading = true;
      waiting.postMessage("activate"); // sw.js takes over; then the page reloads
    });
    bar.append(text, " ", button);
    $("message").after(bar);
  }
  return bar;
}

const offer = () => {
  if (waiting) updateBar().hidden = playing();
};

/** Offers the version waiting in worker, now or once no game is being played. */
export function offerUpdate(worker) {
  const first = !waiting;
  waiting = worker;
  offer();
  if (!first) return;
  // A game starts and ends without a change of address: look again now and then.
  setInterval(offer, 2000);
  addEventListener("hashchange", offer);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading) location.reload();
  });
}

