// The JSON API of docs/api.md. Every call marks the page busy while it runs
// and throws an ApiError for a 4xx/5xx answer (with the server's message) or
// a network failure. With no server (the static site), when the server
// cannot be reached, and for the games kept in this browser, offline.js
// answers instead, in the browser (its comment says which requests).

import { busy } from "./ui.js";
import { build } from "./build.js";
import { ApiError } from "./errors.js";

const offline = () => import("./offline.js");
// Loaded when a request first finds no server: it asks until it answers.
let reconnect = null;
const localPath = (path) => path.startsWith("/api/games/local-");
// Set by offline.js while this browser keeps games the server has not taken.
const keepsGames = () => {
  try {
    return !!localStorage.getItem("endodoi.offlineGames");
  } catch {
    return false;
  }
};

async function request(method, path, body, options = {}) {
  if (!build.server || localPath(path)) return busy(async () => (await offline()).answer(method, path, body));
  try {
    return await serverRequest(method, path, body, options);
  } catch (err) {
    if (!err.network) throw err;
    return busy(async () => (await offline()).answer(method, path, body));
  }
}

// Without offline.js.
export async function serverRequest(method, path, body, { signal, token } = {}) {
  return busy(async () => {
    const init = { method, headers: { Accept: "application/json" }, signal };
    // A seat's secret goes in a header only: never in a URL.
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (method === "POST") {
      // The server takes only JSON posts: another site cannot send them.
      init.body = JSON.stringify(body === undefined ? {} : body);
      init.headers["Content-Type"] = "application/json";
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (err) {
      if (err.name === "AbortError") throw err;
      (reconnect ||= import("./reconnect.js")).then((m) => m.unreachable());
      throw new ApiError(0, "network", true);
    }
    if (reconnect && res.status < 500) reconnect.then((m) => m.reached());
    // A body that is not JSON (a proxy's error page) still has a status.
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      throw new ApiError(res.status, (data && data.error) || `HTTP ${res.status}`);
    }
    return data;
  });
}

const enc = encodeURIComponent;

export const api = {
  listGames: async (limit, offset) => {
    const list = await request("GET", `/api/games?limit=${limit}&offset=${offset}`);
    return build.server && offset === 0 && keepsGames() ? (await offline()).mergeList(list, limit, offset) : list;
  },
  createGame: (settings) => request("POST", "/api/games", settings),
  game: (id) => request("GET", `/api/games/${enc(id)}`),
  move: (id, move, ply, token) => request("POST", `/api/games/${enc(id)}/moves`, { move, ply }, { token }),
  action: (id, action, ply, token) => request("POST", `/api/games/${enc(id)}/actions`, { action, ply }, { token }),
  invite: (code) => request("GET", `/api/join/${enc(code)}`),
  join: (code, body) => request("POST", `/api/join/${enc(code)}`, body),
  games: (ids) => request("GET", `/api/games?ids=${ids.map(enc).join(",")}`),
  online: () => request("GET", "/api/online?limit=50"),
  computer: (id, ply) => request("POST", `/api/games/${enc(id)}/computer`, { ply }),
  takeback: (id, ply) => request("POST", `/api/games/${enc(id)}/takeback`, { ply }),
  hint: (id) => request("GET", `/api/games/${enc(id)}/hint`),
  importRecord: (text) => request("POST", "/api/games/import", { record: text }),
  nextInSeries: (seriesId) => request("POST", `/api/series/${enc(seriesId)}/next`),
  series: (seriesId) => request("GET", `/api/series/${enc(seriesId)}`),
  position: (body) => request("POST", "/api/position", body),
  parseRecord: (text) => request("POST", "/api/records/parse", { record: text }),
  analyze: (body, signal) => request("POST", "/api/analyze", body, { signal }),
  tablebases: () => request("GET", "/api/tablebases"),
  recordURL: (id, format) => `/api/games/${enc(id)}/record?format=${format}`,
};
