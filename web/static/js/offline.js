// Play with no server: the answers of the server's API (docs/api.md) for the
// games on this device, the analysis board, Learn and the puzzles, made in
// the browser by the rules and the engine compiled to WebAssembly
// (engine-worker.js, the server's own Go code), and the games kept in
// IndexedDB until the server takes them.
//
// The rule: a new game is made on the server when it answers, else in this
// browser ("local-" ids), and is played where it was made. A game of this
// browser is sent to the server, through its idempotent import, once it is
// over or has been left for a newer one; its own [Offline "..."] tag makes
// the import key of each game its own, so a game sent twice (a page closed
// before it heard the answer) is stored once. api.js asks this module when
// the server cannot be reached, when there is none (the static site), and
// for every local game. It also holds the static site's changes to the
// page, which pwa.js leaves for later.

import { build } from "./build.js";
import { ApiError, needsServer } from "./errors.js";
import { t, translatePage } from "./i18n.js";
import { unreachable, reached } from "./reconnect.js";

const LOCAL = "local-";
/** Whether id names a game kept in this browser. */
export const isLocal = (id) => typeof id === "string" && id.startsWith(LOCAL);

// ---------------------------------------------------------------------------
// The engine's worker.

let worker = null;
let nextCall = 1;
const calls = new Map();

function startWorker() {
  const wasm = build.wasm ? `../${build.wasm}` : "../endodoi.wasm";
  const w = new Worker(new URL(`./engine-worker.js?wasm=${encodeURIComponent(wasm)}`, import.meta.url), { type: "module" });
  w.onmessage = (e) => {
    const c = calls.get(e.data.id);
    if (!c) return;
    calls.delete(e.data.id);
    if (e.data.error) c.reject(new ApiError(422, e.data.error));
    else c.resolve(e.data);
  };
  w.onerror = (e) => {
    // A worker that cannot start (its module missing) fails every call.
    for (const c of calls.values()) c.reject(new ApiError(500, `engine: ${e.message || "the worker failed"}`));
    calls.clear();
    worker = null;
    w.terminate();
  };
  return w;
}

/** One request of cmd/wasm, answered by the worker. */
export function engine(request) {
  worker ||= startWorker();
  const id = nextCall++;
  return new Promise((resolve, reject) => {
    calls.set(id, { resolve, reject });
    worker.postMessage({ ...request, id });
  });
}

// ---------------------------------------------------------------------------
// The games kept in this browser.

const DB = "endodoi";
const STORE = "games";
let dbOpen = null;

function db() {
  dbOpen ||= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return dbOpen;
}

async function tx(mode, fn) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const x = d.transaction(STORE, mode);
    const store = x.objectStore(STORE);
    let out;
    const req = fn(store);
    if (req) req.onsuccess = () => (out = req.result);
    x.oncomplete = () => resolve(out);
    x.onerror = () => reject(x.error);
    x.onabort = () => reject(x.error || new Error("IndexedDB: aborted"));
  });
}

const load = (id) => tx("readonly", (s) => s.get(id));
const save = (rec) => tx("readwrite", (s) => s.put(rec));
const all = () => tx("readonly", (s) => s.getAll());

// A flag for pwa.js, which sends the games when the server answers again
// without loading this module unless there is something to send.
const PENDING = "endodoi.offlineGames";
const markPending = () => {
  try {
    localStorage.setItem(PENDING, "1");
  } catch {
    // Storage refused: the games are sent at the next local game.
  }
};

// ---------------------------------------------------------------------------
// The games of this browser, played by the server's own Go code (package
// play, in the worker's module: cmd/wasm's games.go), which answers each
// request as the server would. This module keeps the games in IndexedDB:
// before a request it hands the module the games it concerns, as kept
// (another tab of this browser may have played them meanwhile), and keeps
// the games each answer says it changed before the answer is used.

/** Hands the worker's module the games kept here (all of them, or the one of id). */
async function keep(id) {
  const games = id ? [await load(id)].filter(Boolean) : await all();
  if (games.length) await engine({ op: "keep", games });
  return games;
}

/** Keeps the games an answer of the module changed. */
async function keepSaved(saved) {
  for (const rec of saved || []) await save(rec);
  if (saved && saved.length) markPending();
}

// What the module says needs the server, in the page's words.
const needs = { online: () => t("offline.online"), series: () => t("offline.series"), review: () => t("offline.review") };

/** A request of the API, answered by the module: its body, or an ApiError. */
async function device(method, path, body) {
  const out = await engine({ op: "api", api: { method, path, body: body === undefined ? "" : JSON.stringify(body) } });
  await keepSaved(out.saved);
  if (out.needsServer) throw needsServer(needs[out.needsServer]?.());
  if (out.status >= 400) throw new ApiError(out.status, (out.body && out.body.error) || `HTTP ${out.status}`);
  return out.text !== undefined && out.body === undefined ? out.text : out.body;
}

/** Marks an answer's games as this browser's. */
function local(v) {
  if (v && v.game) v.game.local = true;
  else if (v && v.id) v.local = true;
  if (v && v.games) for (const g of v.games) g.local = true;
  return v;
}

/** A request about one game of this browser. */
async function gameRequest(method, path, id, body) {
  if (!(await keep(id)).length) throw new ApiError(404, `no game "${id}"`);
  const v = local(await device(method, path, body));
  // A game that ends is sent as soon as the server answers.
  const g = v && (v.game || v);
  if (method === "POST" && g && g.status && g.status !== "playing" && build.server) queueMicrotask(() => sync().catch(() => {}));
  return v;
}

async function lineOf(req, limits) {
  const s = await engine({ op: "search", ...req, ...limits, book: true });
  return { move: s.move, score: s.score, exact: s.exact, final: s.final, pv: s.pv };
}

async function analyze(body) {
  const req = { position: body.position, moves: body.moves || [], variant: body.variant, maxLaps: body.maxLaps };
  const g = await engine({ op: "game", ...req });
  const out = { position: g.position, status: g.status, result: g.result, score: g.score, lines: [] };
  if (g.status !== "playing" || !g.legalMoves.length) return out;
  // One line: the worker's search gives the best move only.
  const limits = body.depth ? { depth: Math.min(body.depth, 64) } : { timeMs: Math.min(body.timeMs || 1000, 10_000) };
  out.lines.push(await lineOf(req, limits));
  return out;
}

async function position(body) {
  const moves = body.moves || [];
  const req = { position: body.position, variant: body.variant, maxLaps: body.maxLaps };
  const g = await engine({ op: "game", ...req, moves });
  const out = {
    position: g.position,
    positions: g.positions,
    toMove: g.toMove,
    legalMoves: g.legalMoves,
    status: g.status,
    result: g.result,
    score: g.score,
  };
  if (moves.length) out.sowing = g.sowings[g.sowings.length - 1];
  return out;
}

/**
 * Adds the games of this browser not yet sent to a list of the server's (or
 * to none, with no server), most recently played first.
 */
export async function mergeList(list, limit, offset) {
  await keep();
  const here = local(await device("GET", `/api/games?limit=${list ? 200 : limit}&offset=${list ? 0 : offset}`));
  if (!list) return here;
  const byId = new Map();
  for (const g of [...(list.games || []), ...here.games]) byId.set(g.id, g);
  const games = [...byId.values()];
  games.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
  return { games };
}

// ---------------------------------------------------------------------------
// Sending the games to the server.

/** The text record of a game kept in this browser. */
export async function recordText(id) {
  await keep(id);
  return device("GET", `/api/games/${encodeURIComponent(id)}/record?format=text`);
}

let syncing = null;

/**
 * Sends every game of this browser that is over, or left for a newer one,
 * to the server, once. Resolves to the number sent; a server that cannot
 * be reached leaves them for the next time. The games sent are told to the
 * page in an "endodoi:sent" event, whose detail maps each id of this
 * browser to the server's.
 */
export function sync() {
  if (!build.server) return Promise.resolve(0);
  syncing ||= (async () => {
    const sent = {};
    try {
      await keep();
      const out = (await engine({ op: "outbox" })).games; // the oldest change first
      const newest = out[out.length - 1];
      for (const g of out) {
        if (g === newest && g.playing) continue; // still being played here
        let res;
        try {
          res = await fetch("/api/games/import", {
            method: "POST",
            headers: { Accept: "application/json", "Content-Type": "application/json" },
            body: JSON.stringify({ record: g.record }),
          });
        } catch (err) {
          unreachable(); // asked again when it answers
          throw err;
        }
        if (res.status < 500) reached();
        if (!res.ok && (res.status >= 500 || res.status === 429)) break; // later
        // A record the server will never take is kept here, not sent again.
        const id = res.ok ? (await res.json()).id : "refused";
        if (res.ok) sent[g.id] = id;
        await keepSaved((await engine({ op: "sent", game: g.id, sent: id })).saved);
      }
      // Kept while a game stays here only (refused), so that the list still shows it.
      if ((await all()).every((r) => r.sent && r.sent !== "refused")) localStorage.removeItem(PENDING);
    } finally {
      syncing = null;
      if (Object.keys(sent).length) dispatchEvent(new CustomEvent("endodoi:sent", { detail: sent }));
    }
    return Object.keys(sent).length;
  })();
  return syncing;
}

// ---------------------------------------------------------------------------
// The API's answers.

/**
 * Answers a request of the API in the browser, as the server would, or
 * throws: an ApiError as the server's, or needsServer's plain sentence.
 */
export async function answer(method, path, body) {
  const url = new URL(path, location.href);
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent); // ["api", ...]
  const route = `${method} /${parts.slice(1, 2).join("/")}`;
  if (route === "GET /games" && parts.length === 2) {
    if (url.searchParams.has("ids")) return { games: [] }; // online games: none without the server
    return mergeList(null, Number(url.searchParams.get("limit")) || 50, Number(url.searchParams.get("offset")) || 0);
  }
  if (route === "POST /games" && parts.length === 2) return local(await device(method, url.pathname, body));
  if (parts[1] === "games" && isLocal(parts[2])) return gameRequest(method, url.pathname + url.search, parts[2], body);
  switch (route) {
    case "POST /position":
      return position(body);
    case "POST /analyze":
      return analyze(body);
    case "GET /online":
      return { games: [] };
  }
  throw needsServer();
}

// ---------------------------------------------------------------------------
// The static site: no online play.

const $ = (id) => document.getElementById(id);

/** Says why online play and the review are missing, on the start screen and the list of games (style.css hides what needs a server). */
export function noServer() {
  document.documentElement.dataset.server = "none";
  for (const where of [$("start-heading"), document.querySelector("#view-history h1")]) {
    if (!where) continue;
    const note = document.createElement("p");
    note.className = "site-note";
    note.dataset.i18n = "offline.site";
    note.textContent = t("offline.site");
    where.after(note);
  }
}

/** Shows, in place of a screen that needs a server (the lobby, a profile...), why it is not here and what is. */
export function explainNoServer() {
  let view = $("view-noserver");
  if (!view) {
    view = document.createElement("section");
    view.id = "view-noserver";
    view.className = "view prose";
    const h1 = document.createElement("h1");
    h1.dataset.i18n = "site.heading";
    const p = document.createElement("p");
    p.dataset.i18n = "site.needsServer";
    const links = document.createElement("p");
    links.className = "controls";
    for (const [href, key, cls] of [["#/play", "nav.play", "button primary"], ["#/learn", "learn.nav", "button"]]) {
      const a = document.createElement("a");
      Object.assign(a, { href, className: cls });
      a.dataset.i18n = key;
      links.append(a, " ");
    }
    view.append(h1, p, links);
    $("main").append(view);
  }
  translatePage(view);
  view.hidden = false;
}
