// The service worker: keeps every file of one version of the page (its
// markup, style, scripts, catalogs, fonts, icons and the engine's
// WebAssembly module) in a cache named after that version, and answers the
// page's requests for them from it, with or without a network.
//
// Package web writes each build's descriptor where the marker below stands:
// its version and the files to keep. A new version is a new sw.js, which the
// browser installs beside the running one and keeps waiting: the page tells
// it to take over (pwa.js) only between games, and reloads, so the scripts
// never change under a game being played. The API (/api/) is never cached.

const BUILD = /*BUILD*/ {};
const CACHE = `endodoi-${BUILD.version}`;
const scope = new URL(self.registration.scope);
const FILES = new Set(BUILD.files);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      // Revalidated with the server, so that no older copy from the HTTP
      // cache is kept under this version's name.
      cache.addAll(BUILD.files.map((f) => new Request(new URL(f, scope), { cache: "no-cache" }))),
    ),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("endodoi-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data === "activate") self.skipWaiting();
  else if (event.data === "version" && event.ports[0]) event.ports[0].postMessage(BUILD.version);
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  const path = url.pathname.slice(scope.pathname.length);
  let key;
  if (req.mode === "navigate") {
    if (path !== "" && path !== "index.html") return;
    key = "./";
  } else if (FILES.has(path)) {
    key = path;
  } else {
    return; // the API, and anything else, from the network
  }
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(new URL(key, scope)))
      .then((hit) => {
        if (!hit) return fetch(req);
        // A copy without the kept URL, so that the script's own address is
        // the one asked for, query included (the worker reads its module's
        // name there).
        return url.search ? new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers: hit.headers }) : hit;
      }),
  );
});
