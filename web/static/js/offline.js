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

function randomHex(bytes) {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

const rulesOf = (rec) => ({ position: rec.start, moves: rec.moves, variant: rec.variant, maxLaps: rec.maxLaps });

/** The game view of a stored game, as the server's GET /api/games/{id}. */
async function view(rec) {
  const g = await engine({ op: "game", ...rulesOf(rec) });
  return viewOf(rec, g);
}

function viewOf(rec, g) {
  const v = {
    ...g,
    id: rec.id,
    south: rec.south || "",
    north: rec.north || "",
    created: rec.created,
    updated: rec.updated,
    sowingsFrom: 0,
    local: true,
  };
  if (rec.computer) v.computer = rec.computer;
  if (rec.resigned) {
    // The side that resigned loses; the board stays as it was.
    v.status = "resigned";
    v.result = rec.resigned === "s" ? "0-1" : "1-0";
    v.legalMoves = [];
  }
  return v;
}

async function stored(id) {
  const rec = await load(id);
  if (!rec) throw new ApiError(404, `no game "${id}"`);
  return rec;
}

function checkPly(rec, ply, required) {
  if (ply === undefined || ply === null) {
    if (required) throw new ApiError(400, "ply is required");
    return;
  }
  if (ply !== rec.moves.length) throw new ApiError(409, `the game has ${rec.moves.length} moves, not ${ply}: reload it`);
}

const standardStart = (holes, seeds, first) => {
  const row = Array(holes).fill(seeds).join(",");
  return `${row}/${row} ${first === "n" ? "n" : "s"} 0 0`;
};

async function createGame(body = {}) {
  if (body.online) throw needsServer(t("offline.online"));
  if (body.series) throw needsServer(t("offline.series"));
  let first = body.first;
  if (first === "random") first = Math.random() < 0.5 ? "s" : "n";
  const start = body.position || standardStart(body.holes || 8, body.seeds || 4, first);
  const now = new Date().toISOString();
  const rec = {
    id: LOCAL + randomHex(8),
    key: randomHex(16), // the game's own import key, with its moves
    start,
    variant: body.variant || "standard",
    maxLaps: body.maxLaps || 0,
    south: body.south || "",
    north: body.north || "",
    computer: body.computer || null,
    moves: [],
    resigned: "",
    created: now,
    updated: now,
    sent: "", // the server's id once it holds the game
  };
  const v = await view(rec); // checks the start and the rules
  rec.maxLaps = v.maxLaps;
  await save(rec);
  markPending();
  return v;
}

async function afterChange(rec, g) {
  rec.updated = new Date().toISOString();
  await save(rec);
  markPending();
  const v = viewOf(rec, g);
  // A game that ends is sent as soon as the server answers.
  if (v.status !== "playing" && build.server) queueMicrotask(() => sync().catch(() => {}));
  return v;
}

function playable(rec) {
  if (rec.resigned) throw new ApiError(409, "the game is over");
}

async function move(rec, letter, ply, byComputer) {
  playable(rec);
  checkPly(rec, ply, false);
  const side = (await engine({ op: "game", ...rulesOf(rec) })).toMove;
  if (!byComputer && rec.computer && rec.computer.side === side) throw new ApiError(409, "it is the computer's turn");
  const res = await engine({ op: "play", ...rulesOf(rec), move: letter });
  rec.moves.push(letter);
  return { game: await afterChange(rec, res.game), sowing: res.sowing };
}

async function computerMove(rec, ply) {
  playable(rec);
  checkPly(rec, ply, false);
  const g = await engine({ op: "game", ...rulesOf(rec) });
  if (!rec.computer || rec.computer.side !== g.toMove || g.status !== "playing") {
    throw new ApiError(409, "it is not the computer's turn");
  }
  const s = await engine({ op: "search", ...rulesOf(rec), level: rec.computer.level });
  return move(rec, s.move, rec.moves.length, true);
}

async function takeback(rec, ply) {
  checkPly(rec, ply, true);
  if (rec.resigned) throw new ApiError(409, "the game was resigned");
  if (!rec.moves.length) throw new ApiError(409, "no move to take back");
  rec.moves.pop();
  let g = await engine({ op: "game", ...rulesOf(rec) });
  // Against the computer, its reply goes too: the person moves again.
  while (rec.computer && rec.moves.length && g.toMove === rec.computer.side) {
    rec.moves.pop();
    g = await engine({ op: "game", ...rulesOf(rec) });
  }
  return afterChange(rec, g);
}

async function resign(rec, body) {
  if (body.action !== "resign") throw new ApiError(400, `unknown action "${body.action}"`);
  checkPly(rec, body.ply, true);
  const g = await engine({ op: "game", ...rulesOf(rec) });
  if (rec.resigned || g.status !== "playing") throw new ApiError(409, "the game is over");
  rec.resigned = rec.computer ? (rec.computer.side === "s" ? "n" : "s") : g.toMove;
  return afterChange(rec, g);
}

/** The expected final margin from South's view, as the server's "final". */
function finalMargin(position, score) {
  const [, side, south, north] = position.split(" ");
  return (side === "s" ? score : -score) + Number(south) - Number(north);
}

async function lineOf(req, limits) {
  const s = await engine({ op: "search", ...req, ...limits, book: true });
  const g = await engine({ op: "game", ...req });
  return { move: s.move, score: s.score, exact: s.exact, final: finalMargin(g.position, s.score), pv: s.pv };
}

async function hint(rec) {
  playable(rec);
  const g = await engine({ op: "game", ...rulesOf(rec) });
  if (g.status !== "playing") throw new ApiError(409, "the game is over");
  return lineOf(rulesOf(rec), { timeMs: 500 });
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

function summary(v) {
  const s = {
    id: v.id,
    south: v.south,
    north: v.north,
    holes: v.holes,
    variant: v.variant,
    moves: v.moves.length,
    result: v.result,
    created: v.created,
    updated: v.updated,
    score: v.score,
    status: v.status,
    local: true,
  };
  if (v.computer) s.computer = v.computer;
  return s;
}

/** The games of this browser not held by the server, newest first. */
async function unsent() {
  const recs = (await all()).filter((r) => !r.sent || r.sent === REFUSED);
  recs.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
  return Promise.all(recs.map(async (r) => summary(await view(r))));
}

/**
 * Adds the games of this browser not yet sent to a list of the server's (or
 * to none, with no server), most recently played first.
 */
export async function mergeList(list, limit, offset) {
  const byId = new Map();
  for (const g of [...(list ? list.games || [] : []), ...(await unsent())]) byId.set(g.id, g);
  const games = [...byId.values()];
  games.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
  return { games: list ? games : games.slice(offset, offset + limit) };
}

// ---------------------------------------------------------------------------
// Sending the games to the server.

/** The game's record in the text form (docs/game-records.md). */
function recordOf(rec, v) {
  const esc = (s) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  const [, side, south, north] = rec.start.split(" ");
  const standard = south === "0" && north === "0" && side === "s" && new Set(rec.start.split(" ")[0].split(/[,/]/)).size === 1;
  const name = (s) => (rec.computer && rec.computer.side === s ? `endodoi (level ${rec.computer.level})` : s === "s" ? rec.south : rec.north);
  // Dated when last played: the server's import keeps it.
  const tags = [["Date", rec.updated]];
  if (name("s")) tags.push(["South", name("s")]);
  if (name("n")) tags.push(["North", name("n")]);
  tags.push(["Holes", String(v.holes)]);
  if (standard) tags.push(["Seeds", rec.start.split(",")[0]]);
  else tags.push(["Position", rec.start]);
  tags.push(["Variant", v.variant], ["MaxLaps", String(v.maxLaps)]);
  // A resignation is no result of the moves: the record says it (Result stays "*").
  if (rec.resigned) tags.push(["Termination", `resigned; ${rec.resigned === "s" ? "North" : "South"} won`]);
  tags.push(["Offline", rec.key]);
  const head = tags.map(([k, val]) => `[${k} "${esc(val)}"]`).join("\n");
  return `${head}\n\n${rec.moves.join(" ")} ${v.status === "resigned" ? "*" : v.result}\n`;
}

/** The text record of a game kept in this browser. */
export async function recordText(id) {
  const rec = await stored(id);
  return recordOf(rec, await view(rec));
}

let syncing = null;
const REFUSED = "refused";

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
      const recs = (await all()).filter((r) => !r.sent);
      recs.sort((a, b) => (a.updated < b.updated ? -1 : 1));
      const newest = recs[recs.length - 1];
      for (const rec of recs) {
        const v = await view(rec);
        if (rec === newest && v.status === "playing") continue; // still being played here
        let res;
        try {
          res = await fetch("/api/games/import", {
            method: "POST",
            headers: { Accept: "application/json", "Content-Type": "application/json" },
            body: JSON.stringify({ record: recordOf(rec, v) }),
          });
        } catch (err) {
          unreachable(); // asked again when it answers
          throw err;
        }
        if (res.status < 500) reached();
        if (!res.ok) {
          if (res.status >= 500 || res.status === 429) break; // later
          rec.sent = REFUSED; // a record the server will never take: kept here, not sent again
        } else {
          rec.sent = sent[rec.id] = (await res.json()).id;
        }
        await save(rec);
      }
      // Kept while a game stays here only (refused), so that the list still shows it.
      if ((await all()).every((r) => r.sent && r.sent !== REFUSED)) localStorage.removeItem(PENDING);
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
  if (route === "POST /games" && parts.length === 2) return createGame(body);
  if (parts[1] === "games" && isLocal(parts[2])) {
    const rec = await stored(parts[2]);
    const what = `${method} ${parts[3] || ""}`;
    switch (what) {
      case "GET ":
        return view(rec);
      case "POST moves":
        return move(rec, body.move, body.ply, false);
      case "POST computer":
        return computerMove(rec, body.ply);
      case "POST takeback":
        return takeback(rec, body.ply);
      case "POST actions":
        return resign(rec, body);
      case "GET hint":
        return hint(rec);
    }
    throw needsServer(t("offline.review"));
  }
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
