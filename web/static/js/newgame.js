// The new-game dialog: board size, seeds, variant, opponent and level, the
// player's side (against the computer or online), who starts, names, a
// single game or a series. The last choices are remembered for next time.

import { api } from "./api.js";
import { build } from "./build.js";
import { t, tp, num } from "./i18n.js";
import { busy, showError, sayOffline, el } from "./ui.js";
import { keepSeat, savedName, rememberName } from "./online.js";
import { sideName } from "./explain.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "endodoi.newgame";
const FIELDS = ["ng-holes", "ng-seeds", "ng-variant", "ng-opponent", "ng-level", "ng-first", "ng-mode", "ng-target", "ng-maxlaps", "ng-side", "ng-clock"];

// The two name fields keep the names typed for each kind of game: two
// friends', or the person's and the computer's; a friend's name never
// names the computer. names[kind] is [south field, north field].
const names = { friend: ["", ""], computer: ["", ""] };
let namesOf = ""; // the kind whose names the fields hold

const kindOf = (opponent) => (opponent === "computer" ? "computer" : "friend");

function keepNames() {
  if (namesOf) names[namesOf] = [$("ng-south").value, $("ng-north").value];
}

function swapNames() {
  const opponent = $("ng-opponent").value;
  if (opponent === "online" || kindOf(opponent) === namesOf) return; // online, the fields are hidden and kept
  keepNames();
  namesOf = kindOf(opponent);
  [$("ng-south").value, $("ng-north").value] = names[namesOf];
}

/** The level names, literal keys so that the catalog test sees them. */
function levelNames() {
  return [
    t("level.1"), t("level.2"), t("level.3"), t("level.4"), t("level.5"),
    t("level.6"), t("level.7"), t("level.8"), t("level.9"), t("level.10"),
  ];
}

function levelDescription(level) {
  if (level <= 3) return t("level.descLow");
  if (level <= 6) return t("level.descMid");
  return t("level.descHigh");
}

export function initNewGame() {
  const dialog = $("new-game-dialog");
  fillLevels();
  restore();
  for (const id of ["ng-opponent", "ng-level", "ng-variant", "ng-mode", "ng-side"]) {
    $(id).addEventListener("change", update);
  }
  $("ng-cancel").addEventListener("click", () => dialog.close());
  $("ng-form").addEventListener("submit", (e) => {
    e.preventDefault();
    start();
  });
  update();
}

function fillLevels() {
  const select = $("ng-level");
  const value = select.value || "5";
  select.replaceChildren();
  levelNames().forEach((name, i) => {
    const o = el("option", "", name);
    o.value = String(i + 1);
    select.append(o);
  });
  select.value = value;
}

/** Re-labels the dialog for the language and the chosen opponent. */
export function update() {
  swapNames();
  const computer = $("ng-opponent").value === "computer";
  const online = $("ng-opponent").value === "online";
  for (const e of document.querySelectorAll(".ng-computer")) e.hidden = !computer;
  for (const e of document.querySelectorAll(".ng-online")) e.hidden = !online;
  for (const e of document.querySelectorAll(".ng-local")) e.hidden = online;
  for (const e of document.querySelectorAll(".ng-seat")) e.hidden = !computer && !online;
  if (!online && $("ng-first").value === "random") $("ng-first").value = "s";
  if (!build.server) $("ng-mode").value = "single"; // a series needs the server
  for (const d of [1, 3, 7]) $(`ng-clock-${d}`).textContent = tp("clock.perMove", d);
  for (const e of document.querySelectorAll(".ng-series")) e.hidden = $("ng-mode").value !== "series";
  fillLevels();
  $("ng-level-desc").textContent = levelDescription(Number($("ng-level").value));
  // Against the computer the first name field is the person's, the
  // second the computer's, on whichever side each plays.
  const side = $("ng-side").value;
  const who = (s) => (side === "random" ? null : s === side ? t("ng.firstYou") : t("ng.firstComputer"));
  for (const s of ["s", "n"]) {
    const name = computer && who(s);
    $(`ng-first-${s}`).textContent = name ? t("player.named", { name, side: sideName(s) }) : sideName(s);
  }
  const yours = { s: t("ng.yourName"), n: t("play.ngYourNameNorth"), random: t("ng.name") }[side];
  const it = side === "s" ? "n" : side === "n" ? "s" : "random";
  const its = { s: t("play.ngComputerNameSouth"), n: t("ng.computerName"), random: t("play.ngComputerName") }[it];
  $("ng-south-label").textContent = computer ? yours : t("ng.southName");
  $("ng-north-label").textContent = computer ? its : t("ng.northName");
  $("ng-north").placeholder = computer ? t("player.computer", { level: num(Number($("ng-level").value)) }) : t("side.north");
  $("ng-south").placeholder = computer ? t("player.you") : t("side.south");
  $("ng-variant-desc").textContent = $("ng-variant").value === "cross" ? t("variant.crossDesc") : t("variant.standardDesc");
}

function restore() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE_KEY) || "{}");
    for (const id of FIELDS) if (typeof saved[id] === "string" && $(id)) $(id).value = saved[id];
    // Kept before names had kinds: the names of the last kind played.
    const old = { [kindOf(saved["ng-opponent"])]: [saved["ng-south"], saved["ng-north"]] };
    for (const kind of Object.keys(names)) {
      const n = (saved.names || old)[kind];
      if (Array.isArray(n) && n.length === 2 && n.every((x) => typeof x === "string")) names[kind] = n;
    }
  } catch {
    // Nothing remembered.
  }
  $("ng-name").value = savedName();
}

function remember() {
  try {
    const saved = {};
    for (const id of FIELDS) saved[id] = $(id).value;
    keepNames();
    saved.names = names;
    localStorage.setItem(STORE_KEY, JSON.stringify(saved));
  } catch {
    // Not remembered.
  }
}

/** Opens the dialog, for an opponent already chosen ("computer", "friend", "online") if given. */
export function openNewGame(opponent) {
  const dialog = $("new-game-dialog");
  if (dialog.open) return;
  $("ng-error").hidden = true;
  if (opponent) $("ng-opponent").value = opponent;
  update();
  dialog.showModal();
  $("ng-opponent").focus();
}

/** Checks a whole-number field; returns its value or marks it. */
function whole(id) {
  const input = $(id);
  const v = Number(input.value);
  const ok = input.value.trim() !== "" && Number.isInteger(v) && v >= Number(input.min) && v <= Number(input.max);
  input.setAttribute("aria-invalid", String(!ok));
  return ok ? v : null;
}

async function start() {
  const wanted = ["ng-holes", "ng-seeds", "ng-maxlaps"];
  if ($("ng-mode").value === "series") wanted.push("ng-target");
  const values = {};
  for (const id of wanted) {
    values[id] = whole(id);
    if (values[id] === null) {
      const label = document.querySelector(`label[for="${id}"]`);
      $("ng-error").textContent = t("ng.invalid", { field: label ? label.textContent : id });
      $("ng-error").hidden = false;
      if (id === "ng-maxlaps") document.querySelector("#new-game-dialog details").open = true;
      $(id).focus();
      return;
    }
  }
  $("ng-error").hidden = true;
  const computer = $("ng-opponent").value === "computer";
  const online = $("ng-opponent").value === "online";
  const body = {
    holes: values["ng-holes"],
    seeds: values["ng-seeds"],
    variant: $("ng-variant").value,
    first: $("ng-first").value,
  };
  if (values["ng-maxlaps"] !== 1000) body.maxLaps = values["ng-maxlaps"];
  const south = $("ng-south").value.trim();
  const north = $("ng-north").value.trim();
  if (online) {
    body.online = true;
    body.side = $("ng-side").value;
    const name = $("ng-name").value.trim();
    if (name) body.name = name;
    rememberName(name);
    const [m, s] = $("ng-clock").value.split(/[+d]/).map(Number);
    if ($("ng-clock").value.endsWith("d")) body.clock = { days: m };
    else if (m) body.clock = { minutes: m, increment: s };
  } else if (computer) {
    // The person's side: the computer takes the other, and moves first
    // when it plays the side that starts.
    let me = $("ng-side").value;
    if (me !== "s" && me !== "n") me = Math.random() < 0.5 ? "s" : "n";
    const it = me === "s" ? "n" : "s";
    if (south) body[me === "s" ? "south" : "north"] = south;
    if (north) body[it === "s" ? "south" : "north"] = north;
    body.computer = { side: it, level: Number($("ng-level").value) };
  } else {
    if (south) body.south = south;
    if (north) body.north = north;
  }
  if ($("ng-mode").value === "series") body.series = values["ng-target"];
  remember();
  await busy(async () => {
    try {
      let g = await api.createGame(body);
      if (online) {
        keepSeat(g.game.id, { ...g.seat, invite: g.invite });
        g = g.game;
      }
      $("new-game-dialog").close();
      location.hash = `#/play/${g.id}`;
    } catch (err) {
      const box = $("ng-error");
      box.textContent = err.offline ? err.message : err.network ? t("error.network") : t("error.server", { error: err.message });
      box.hidden = false;
      sayOffline(box, err);
      showError(err);
    }
  });
}
