// Online play (docs/api.md, "Online play"): the seats this browser holds,
// the clocks; and the sound of a move, in every game (a game's live
// connection is livesocket.js). A seat's token stays in localStorage and
// in memory: never in a URL, the page or the console.

import { t, tp, num } from "./i18n.js";

function load(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage disabled: kept for this visit only.
  }
}

/** The seats held: game id -> {side, token, invite?}. */
export const seats = () => load("endodoi.seats", {});
export const seatOf = (id) => seats()[id] || null;
export function keepSeat(id, seat) {
  save("endodoi.seats", { ...seats(), [id]: seat });
}

/** The display name last used online. */
export const savedName = () => load("endodoi.name", "");
export const rememberName = (name) => save("endodoi.name", name);

/** A time control in words: "5+3", "3 days a move", "No clock". */
export function clockName(c) {
  if (!c) return t("clock.none");
  if (c.days) return tp("clock.perMove", c.days);
  return `${num(c.minutes)}+${num(c.increment || 0)}`;
}

const two = (n) => num(n, { minimumIntegerDigits: 2 });

/** A clock's time left: "4:59", "1:02:03", or in days and hours for correspondence. */
export function clockText(ms, days) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600);
  if (days && s >= 86400) return t("clock.days", { d: num(Math.floor(s / 86400)), h: num(h % 24) });
  if (days && h) return t("clock.hours", { h: num(h), m: num(Math.floor(s / 60) % 60) });
  const ms2 = `${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return h ? `${num(h)}:${ms2}` : `${num(Math.floor(s / 60))}:${two(s % 60)}`;
}

// The sound of a move, in every game: a short wooden knock made with
// WebAudio (no sound files), and a lower one when seeds are captured. Off
// until the person turns it on; browsers start audio only after a gesture,
// so the first click or key after that wakes it. Silent while the page is
// hidden. The page counts the sounds it makes in html data-sounds, a hook
// for tests.
let audio = null;
let made = 0;
export const soundOn = () => load("endodoi.sound", false) === true;

function unlock() {
  if (!soundOn()) return;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!audio && AC) audio = new AC();
  if (audio && audio.state === "suspended") audio.resume().catch(() => {});
}

export function setSound(on) {
  save("endodoi.sound", on);
  unlock();
}

export function initSound() {
  for (const type of ["pointerdown", "keydown"]) addEventListener(type, unlock, { capture: true });
}

/** Plays the sound of a move ("move") or of a capture ("capture"), if sound is on. */
export function click(kind = "move") {
  if (!audio || !soundOn() || document.hidden || audio.state !== "running") return;
  const capture = kind === "capture";
  const at = audio.currentTime;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = "triangle";
  osc.frequency.setValueAtTime(capture ? 520 : 1100, at);
  osc.frequency.exponentialRampToValueAtTime(capture ? 140 : 260, at + (capture ? 0.09 : 0.05));
  gain.gain.setValueAtTime(0.3, at);
  gain.gain.exponentialRampToValueAtTime(0.001, at + (capture ? 0.16 : 0.09));
  osc.connect(gain).connect(audio.destination);
  osc.start(at);
  osc.stop(at + (capture ? 0.18 : 0.1));
  document.documentElement.dataset.sounds = String(++made);
}
