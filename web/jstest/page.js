// What the page's modules expect of a browser, for Node: the catalogs
// fetched from static/i18n, a document without markup. Import it first.

import { readFile } from "node:fs/promises";
import { initI18n, setLanguage } from "../static/js/i18n.js";

const root = new URL("../static/", import.meta.url);

globalThis.fetch = async (url) => {
  try {
    const body = await readFile(new URL(url, root), "utf8");
    return { ok: true, status: 200, json: async () => JSON.parse(body) };
  } catch {
    return { ok: false, status: 404 };
  }
};
globalThis.document ??= { documentElement: { dataset: {} }, querySelectorAll: () => [] };
globalThis.navigator ??= { languages: ["en"] };

/** Loads the English catalog and then lang's, as the page does at start. */
export async function useLanguage(lang) {
  await initI18n({ value: "", addEventListener() {} });
  await setLanguage(lang, false);
}
