// The page as an installable app (manifest.webmanifest, sw.js): registers
// the service worker that keeps every file of this version for playing
// offline. The rest waits until it is needed: the offer of a new version
// (update.js, between games only); sending the games played in this
// browser once the server answers, and, with no server behind the page (the
// static site of `endodoi site`), hiding online play and saying why
// (offline.js).

import { build } from "./build.js";

const later = () => import("./offline.js");
const update = () => import("./update.js");

function watch(reg) {
  const found = () => {
    // A first installation is no update: the page is already this version.
    if (reg.waiting && navigator.serviceWorker.controller) update().then((m) => m.offerUpdate(reg.waiting));
  };
  reg.addEventListener("updatefound", () => reg.installing?.addEventListener("statechange", found));
  found();
}

function sendGames() {
  try {
    if (!localStorage.getItem("endodoi.offlineGames")) return;
  } catch {
    return;
  }
  later()
    .then((m) => m.sync())
    .catch(() => {}); // the server still out of reach: the next time
}

if (!build.server) later().then((m) => m.noServer());
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").then(watch, (err) => console.warn("the service worker was not registered:", err));
}
if (build.server) {
  addEventListener("load", sendGames);
  addEventListener("online", sendGames);
  addEventListener("endodoi:reconnect", sendGames);
}
