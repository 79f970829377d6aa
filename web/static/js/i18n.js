// Translations: every visible string comes from a catalog in i18n/<lang>.json.
// Code calls t("key", {name}) and tp("key", n, {…}) with literal keys, so
// that the catalog test can find every key used; markup uses data-i18n
// attributes, applied by translatePage.

export const LANGUAGES = ["en", "sw", "vi", "bn", "ur", "cs"];
const RTL = new Set(["ur"]);
const STORE_KEY = "endodoi.lang";

let lang = "en";
let catalog = {};
let fallback = {}; // English, for a key a translation lacks
let plurals = new Intl.PluralRules("en");
const listeners = [];
// The catalogs of the screens loaded later (i18n/<part>/<lang>.json), each
// with its English fallback: part -> {catalog, fallback}.
const parts = new Map();

/** The page's language code. */
export function language() {
  return lang;
}

/** Picks the language: the remembered one, else the browser's first supported one. */
function initialLanguage() {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (LANGUAGES.includes(saved)) return saved;
  } catch {
    // Storage may be disabled; the browser's languages still work.
  }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function fetchCatalog(code, part) {
  const res = await fetch(part ? `i18n/${part}/${code}.json` : `i18n/${code}.json`);
  if (!res.ok) throw new Error(`catalog ${code}: ${res.status}`);
  return res.json();
}

/** Loads the first language and wires the picker; call once at start. */
export async function initI18n(select) {
  fallback = await fetchCatalog("en");
  await setLanguage(initialLanguage(), false);
  select.value = lang;
  select.addEventListener("change", () => setLanguage(select.value, true));
}

/** Switches the page to code, re-translating the markup and telling the views. */
export async function setLanguage(code, remember) {
  if (!LANGUAGES.includes(code)) code = "en";
  catalog = code === "en" ? fallback : await fetchCatalog(code);
  for (const [part, p] of parts) p.catalog = code === "en" ? p.fallback : await fetchCatalog(code, part);
  lang = code;
  plurals = new Intl.PluralRules(code);
  const html = document.documentElement;
  html.lang = code;
  html.dir = RTL.has(code) ? "rtl" : "ltr";
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, code);
    } catch {
      // Not remembered; the choice still applies now.
    }
  }
  translatePage(document);
  for (const fn of listeners) fn(code);
}

/**
 * Loads the catalog of a screen loaded later (a part), in English and in the
 * page's language, once; its keys then translate as the others.
 */
export async function loadPart(part) {
  if (parts.has(part)) return;
  const fb = await fetchCatalog("en", part);
  const p = { fallback: fb, catalog: lang === "en" ? fb : await fetchCatalog(lang, part) };
  if (!parts.has(part)) parts.set(part, p);
}

// A key's text in the page's language, or in English, from the catalog or a part's.
function own(key) {
  let text = catalog[key];
  for (const p of parts.values()) text ??= p.catalog[key];
  return text;
}

function english(key) {
  let text = fallback[key];
  for (const p of parts.values()) text ??= p.fallback[key];
  return text;
}

/** Calls fn after each change of language. */
export function onLanguageChange(fn) {
  listeners.push(fn);
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** The translation of key, with {name} placeholders filled from params. */
export function t(key, params) {
  const text = own(key) ?? english(key);
  if (text === undefined) {
    return key; // A missing key shows itself rather than nothing; the catalog test prevents it.
  }
  return fill(text, params);
}

/**
 * The plural-sensitive translation of key for the count n: the catalog holds
 * key.one, key.other and whatever other forms the language needs (key.few, …).
 * {n} is filled with n formatted for the language.
 */
export function tp(key, n, params) {
  const form = plurals.select(n);
  const p = { n: num(n), ...params };
  const text = own(`${key}.${form}`) ?? own(`${key}.other`) ?? english(`${key}.other`) ?? key;
  return fill(text, p);
}

/** n formatted for the page's language. */
export function num(n, options) {
  return new Intl.NumberFormat(lang, options).format(n);
}

/** A signed number with at most one decimal, "+1.5". */
export function signed(x) {
  return num(x, { maximumFractionDigits: 1, signDisplay: "exceptZero" });
}

// Urdu says the part of the day in its own words ("7:29 صبح"): its Latin
// "AM" would read "AM 7:29" in right-to-left text.
const DATE_TIME = { dateStyle: "medium", timeStyle: "short" };
const DATE_TIMES = { ur: { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", dayPeriod: "short" } };

/** A date and time, localised. */
export function dateTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return new Intl.DateTimeFormat(lang, DATE_TIMES[lang] || DATE_TIME).format(d);
}

/**
 * Translates the markup under root: data-i18n sets the text, and
 * data-i18n-<attribute> (aria-label, title, placeholder, alt) sets that attribute.
 */
export function translatePage(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const attr of ["aria-label", "title", "placeholder", "alt"]) {
    const data = "data-i18n-" + attr;
    for (const el of root.querySelectorAll(`[${data}]`)) {
      el.setAttribute(attr, t(el.getAttribute(data)));
    }
  }
}
