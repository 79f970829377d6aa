// The page's entry point: loads the language, wires the views and routes by
// the URL hash: #/play/{id}[/{ply}], #/analysis[/{id}/{ply}],
// #/analysis/position/{notation}[/{variant}[/{maxLaps}]], #/history,
// #/rules, #/about, #/join/{code}, #/learn[/lesson/{n}|/puzzle/{id}],
// #/lobby[/challenge/{name}], #/profile/{name}, #/leaderboard[/{category}].
// Keyboard shortcuts go to the screen shown.

import { build } from "./build.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import { diagram, drawFrame } from "./board.js";
import * as play from "./game.js";
import { localGame } from "./localgame.js";
import * as analysis from "./analysis.js";
import * as history from "./history.js";
import * as join from "./join.js";
import { openAbout, renderAbout } from "./about.js";
import { initNewGame, update as updateNewGame } from "./newgame.js";
import { busy, showError, leaveScreen, speedControl, clearOffline } from "./ui.js";

const $ = (id) => document.getElementById(id);
const VIEWS = ["play", "analysis", "history", "rules", "about", "join", "learn", "lobby", "profile", "leaderboard"];
// The screens that need a server: the static site says why they are not there.
const SERVER_ONLY = ["join", "lobby", "profile", "leaderboard"];
let current = "";
let lastRoute = "";

/** Splits the hash into the screen and its arguments. */
function parseRoute() {
  // A part cut short ("%2") is kept as written: its screen says it is wrong.
  const decode = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decode);
  const name = VIEWS.includes(parts[0]) ? parts[0] : "play";
  return { name, args: VIEWS.includes(parts[0]) ? parts.slice(1) : [] };
}

function plyArg(s) {
  const n = Number(s);
  return s !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

// The account dialog is loaded the first time it is opened.
$("account-open").addEventListener("click", () => busy(() => import("./account.js")).then((m) => m.openAccount()).catch(showError));

// Learn is loaded the first time it is opened: most visits never need it.
let learn = null;
async function learnModule() {
  if (!learn) {
    // Marked busy, as every wait for the server is.
    const mod = await busy(() => import("./learn.js"));
    mod.initLearn();
    learn = mod;
  }
  return learn;
}

// The lobby, profiles and leaderboards load when first opened.
const loaded = {};
async function laterView(name) {
  return (loaded[name] ||= await busy(() => (name === "lobby" ? import("./lobby.js") : import("./profile.js"))));
}

// Signed in, the lobby's connection brings challenges and pairings to every screen.
const lobbyLive = (fresh) => import("./lobbylive.js").then((m) => m.start(fresh)).catch(() => {});

async function route() {
  const { name, args } = parseRoute();
  if (current === "play" && name !== "play") play.leavePlay();
  if (current === "learn" && name !== "learn" && learn) learn.leaveLearn();
  if (current === "lobby" && name !== "lobby" && loaded.lobby) loaded.lobby.leaveView();
  const changed = name !== current;
  // A message belongs to the screen (and the game) that raised it.
  const key = name + "/" + (args[0] || "");
  if (key !== lastRoute) leaveScreen();
  lastRoute = key;
  current = name;
  const away = !build.server && SERVER_ONLY.includes(name);
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== name || away;
  if ($("view-noserver")) $("view-noserver").hidden = !away;
  for (const a of document.querySelectorAll(".site-nav a")) {
    if (a.dataset.route === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (changed) window.scrollTo(0, 0);
  if (away) return (await busy(() => import("./offline.js"))).explainNoServer();
  switch (name) {
    case "play":
      if (args[0]) await play.openGame(args[0], plyArg(args[1]));
      else await play.resumeOrNew();
      break;
    case "analysis":
      if (args[0] === "position") await analysis.openPosition(args.slice(1));
      else await analysis.openAnalysis(args[0], plyArg(args[1]));
      break;
    case "history":
      await history.openHistory();
      break;
    case "join":
      await join.openJoin(args[0]);
      break;
    case "learn":
      await (await learnModule()).openLearn(args);
      break;
    case "rules":
      diagram($("rules-board"), 6, 4);
      break;
    case "about":
      await openAbout();
      break;
    case "lobby":
    case "profile":
    case "leaderboard":
      await (await laterView(name)).openView(name, args);
      break;
  }
}

/** Whether a key press belongs to a form field rather than the game. */
function typingInField(e) {
  const tag = e.target && e.target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (e.target && e.target.isContentEditable);
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || $("new-game-dialog").open || typingInField(e)) return;
  const onPlay = current === "play";
  const onAnalysis = current === "analysis";
  if (!onPlay && !onAnalysis) return;
  // The arrows follow the reading direction: in Urdu the left arrow steps forward.
  const rtl = document.documentElement.dir === "rtl";
  const step = { ArrowLeft: rtl ? 1 : -1, ArrowRight: rtl ? -1 : 1, Home: -Infinity, End: Infinity }[e.key];
  if (step !== undefined) {
    e.preventDefault();
    if (onAnalysis) analysis.stepAnalysis(step);
    else if (step === -Infinity) play.setView(0);
    else if (step === Infinity) play.setView(Number.MAX_SAFE_INTEGER);
    else play.setView(currentPly() + step);
    return;
  }
  if (e.key === "Escape") {
    if (onPlay) play.skip();
    else analysis.skipAnalysis();
    return;
  }
  if (/^[a-pA-P]$/.test(e.key)) {
    e.preventDefault();
    if (onPlay) play.typeLetter(e.key);
    else analysis.typeLetter(e.key);
  }
}

/** The ply shown on the game screen, read from the move list. */
function currentPly() {
  const cur = document.querySelector('#moves [aria-current="step"]');
  return cur ? Number(cur.dataset.ply) : 0;
}

async function start() {
  // The static site hides what needs a server (style.css).
  if (!build.server) document.documentElement.dataset.server = "none";
  // The boards' frames and speed choices are drawn once, before the page is translated.
  for (const table of document.querySelectorAll(".table")) drawFrame(table);
  for (const label of document.querySelectorAll("label[data-speed]")) speedControl(label);
  await busy(async () => {
    try {
      await initI18n($("lang"));
    } catch (err) {
      showError(err);
    }
    play.initPlay(localGame, () => import("./onlinegame.js"));
    analysis.initAnalysis();
    history.initHistory();
    join.initJoin();
    initNewGame();
    onLanguageChange(() => {
      play.render();
      analysis.renderAnalysis();
      history.render();
      if (learn) learn.render();
      for (const m of Object.values(loaded)) m.render();
      updateNewGame();
      if (current === "rules") diagram($("rules-board"), 6, 4);
      renderAbout();
    });
    $("skip-link").addEventListener("click", (e) => {
      e.preventDefault();
      $("main").focus();
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", () => route());
    document.title = t("app.title");
    await route();
  });
  // Who is signed in is asked once the screen is drawn (a static site has no one to ask); the account dialog tells of a sign-in.
  if (build.server)
    fetch("/api/me")
      .then((r) => r.json())
      .then((m) => m.account && lobbyLive(false))
      .catch(() => {});
  addEventListener("endodoi:account", () => lobbyLive(true));
  // The server answers again: what said it could not goes, and the games
  // this browser sent it are shown from it (their review is there).
  addEventListener("endodoi:reconnect", clearOffline);
  addEventListener("endodoi:sent", (e) => {
    if (current === "play") play.showSent(e.detail);
    else if (current === "history") history.openHistory();
  });
}

start();
