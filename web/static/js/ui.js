// Page-wide helpers: the busy marker, the message area, the screen-reader
// announcer, the speed setting and small DOM utilities.

import { t } from "./i18n.js";

let busyCount = 0;

/**
 * Marks the page busy while fn runs. Nested scopes keep it busy, so a move,
 * its animation and the computer's reply read as one busy stretch.
 */
export async function busy(fn) {
  busyCount++;
  document.documentElement.dataset.busy = "true";
  try {
    return await fn();
  } finally {
    busyCount--;
    if (busyCount === 0) {
      // Say idle only after the caller has rendered what it awaited.
      setTimeout(() => {
        if (busyCount === 0) document.documentElement.dataset.busy = "false";
      }, 0);
    }
  }
}

/** Whether a request, an animation or the computer is running. */
export function isBusy() {
  return busyCount > 0;
}

const message = () => document.getElementById("message");

// A message belongs to the screen that raised it: the route clears it when
// another screen (or another game) opens, unless it was raised to be read
// on the next screen ("The game was imported.").
let carry = false;

/**
 * Shows text in the alert area; kind "error" or "info". With next, the
 * message is for the screen about to open and survives one navigation.
 */
export function showMessage(text, kind = "error", { next = false } = {}) {
  carry = next;
  const el = message();
  el.replaceChildren();
  delete el.dataset.offline;
  const span = document.createElement("span");
  span.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "close";
  close.append(icon("close"));
  close.setAttribute("aria-label", t("message.close"));
  close.addEventListener("click", clearMessage);
  el.append(span, close);
  el.dataset.kind = kind;
  el.hidden = false;
}

export function clearMessage() {
  carry = false;
  const el = message();
  el.replaceChildren();
  el.hidden = true;
  delete el.dataset.offline;
}

/** Marks a message, or a form's error, as saying the server cannot be reached: it goes when it can. */
export function sayOffline(el, err) {
  if (err && (err.offline || err.network)) el.dataset.offline = "true";
}

/** Puts away what said that the server cannot be reached: it answers again. */
export function clearOffline() {
  if (message().dataset.offline) clearMessage();
  for (const e of document.querySelectorAll(".form-error[data-offline]")) {
    e.hidden = true;
    delete e.dataset.offline;
  }
}

/** Called on navigation: the message of the screen left goes with it. */
export function leaveScreen() {
  if (carry) carry = false;
  else clearMessage();
}

/** Shows an error from the API or the network politely. */
export function showError(err) {
  if (err && err.offline) {
    showMessage(err.message); // already the sentence to show: what needs the server
  } else if (err && err.network) {
    showMessage(t("error.network"));
  } else if (err && err.status) {
    showMessage(t("error.server", { error: err.message }));
  } else {
    showMessage(t("error.unexpected", { error: String(err && err.message ? err.message : err) }));
    console.error(err); // eslint-disable-line no-console -- a bug of the page, for its developers
  }
  sayOffline(message(), err);
}

/** Says text to screen-reader users (aria-live polite). */
export function announce(text) {
  const el = document.getElementById("announce");
  // Clearing first makes a repeated sentence count as new.
  el.textContent = "";
  requestAnimationFrame(() => {
    el.textContent = text;
  });
}

const SPEED_KEY = "endodoi.speed";
const AN_SPEED_KEY = "endodoi.analysisSpeed";
export const SPEEDS = ["slow", "normal", "fast", "instant"];

/** The remembered speed; without one, instant for people who prefer reduced motion. */
export function initialSpeed() {
  try {
    const s = localStorage.getItem(SPEED_KEY);
    if (SPEEDS.includes(s)) return s;
  } catch {
    // Storage disabled.
  }
  return matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "normal";
}

/** The analysis board's own speed: remembered apart from the game's; fast by default. */
export function initialAnalysisSpeed() {
  try {
    const s = localStorage.getItem(AN_SPEED_KEY);
    if (SPEEDS.includes(s)) return s;
  } catch {
    // Storage disabled.
  }
  return matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "fast";
}

export function rememberSpeed(s, analysis = false) {
  try {
    localStorage.setItem(analysis ? AN_SPEED_KEY : SPEED_KEY, s);
  } catch {
    // Not remembered; still used now.
  }
}

/** Creates an element with a class and optional text (always as text, never markup). */
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

const SVG = "http://www.w3.org/2000/svg";
const PATHS = {
  // A counterclockwise arrow, for the board's direction of sowing.
  ccw: "M8 2.5a5.5 5.5 0 1 1-5.2 3.7l1.7.6A3.7 3.7 0 1 0 8 4.3V6L4.8 3.4 8 .8z",
  close: "M3.5 2.1 8 6.6l4.5-4.5 1.4 1.4L9.4 8l4.5 4.5-1.4 1.4L8 9.4l-4.5 4.5-1.4-1.4L6.6 8 2.1 3.5z",
};

/** An inline SVG icon (never a character that needs a system font). */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", PATHS[name]);
  svg.append(path);
  return svg;
}

/** A promise resolved after ms, or at once when signal fires. */
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (ms <= 0 || (signal && signal.aborted)) return resolve();
    const id = setTimeout(resolve, ms);
    if (signal) {
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(id);
          resolve();
        },
        { once: true },
      );
    }
  });
}

/** Fills a placeholder label with the choice of the animation speed: a select whose id is the label's data-speed. */
export function speedControl(label) {
  const text = el("span");
  text.dataset.i18n = "play.speed";
  const select = el("select");
  select.id = label.dataset.speed;
  const option = (value) => select.appendChild(Object.assign(el("option"), { value }));
  option("slow").dataset.i18n = "speed.slow";
  option("normal").dataset.i18n = "speed.normal";
  option("fast").dataset.i18n = "speed.fast";
  option("instant").dataset.i18n = "speed.instant";
  label.replaceChildren(text, select);
}
