// Whether the server can be reached, loaded when a request first finds no
// server (api.js, offline.js): it asks again now and then, and at once when
// the browser says it is online again; when the server answers, the page is
// told with an "endodoi:reconnect" event (the games played meanwhile are
// sent, the messages that said it could not be reached go).

const AGAIN_MS = 5000;
let lost = false;
let timer = 0;

/** A request found no server. */
export function unreachable() {
  if (lost) return;
  lost = true;
  later();
}

/** The server answered: if it could not be reached, it is back. */
export function reached() {
  if (!lost) return;
  lost = false;
  clearTimeout(timer);
  dispatchEvent(new Event("endodoi:reconnect"));
}

function later() {
  clearTimeout(timer);
  // Offline, the browser's "online" event says when to ask again.
  if (navigator.onLine !== false) timer = setTimeout(ask, AGAIN_MS);
}

async function ask() {
  if (!lost) return;
  try {
    // Any answer but a proxy's for a server that is down.
    if ((await fetch("/api/me", { headers: { Accept: "application/json" } })).status < 500) return reached();
  } catch {
    // Not yet.
  }
  later();
}

addEventListener("online", ask);
