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

/** Shows text in the alert area; kind "error" or "info". */
export function showMessage(text, kind = "error") {
  const el = message();
  el.replaceChildren();
  const span = document.createElement("span");
  span.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "close";
  close.textContent = "×";
  close.setAttribute("aria-label", t("message.close"));
  close.addEventListener("click", clearMessage);
  el.append(span, close);
  el.dataset.kind = kind;
  el.hidden = false;
}

export function clearMessage() {
  const el = message();
  el.replaceChildren();
  el.hidden = true;
}

/** Shows an error from the API or the network politely. */
export function showError(err) {
  if (err && err.network) {
    showMessage(t("error.network"));
  } else if (err && err.status) {
    showMessage(t("error.server", { error: err.message }));
  } else {
    showMessage(t("error.unexpected", { error: String(err && err.message ? err.message : err) }));
    console.error(err); // eslint-disable-line no-console -- a bug of the page, for its developers
  }
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

export function rememberSpeed(s) {
  try {
    localStorage.setItem(SPEED_KEY, s);
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
