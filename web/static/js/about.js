// The About page's account of what the program knows exactly: the opening
// book of proven values built in, and the endgame databases the server
// holds or is building in the background (GET /api/tablebases).

import { api } from "./api.js";
import { t, num } from "./i18n.js";
import { el } from "./ui.js";

const $ = (id) => document.getElementById(id);
let timer = 0;
let last = null;

/** Shows the state of the databases, and follows a build while the page is open. */
export async function openAbout() {
  clearTimeout(timer);
  try {
    last = await api.tablebases();
  } catch {
    last = null; // the rest of the page does not depend on it
  }
  renderAbout();
  if (last && last.sets.some((s) => s.state === "building" || s.state === "queued")) {
    timer = setTimeout(() => {
      if (!$("view-about").hidden) openAbout();
    }, 2000);
  }
}

/** Renders the last answer in the page's language. */
export function renderAbout() {
  const list = $("about-tablebases");
  list.replaceChildren();
  if (!last) {
    $("about-book").textContent = "";
    return;
  }
  $("about-book").textContent = t("about.solved.book", { n: num(last.bookPositions) });
  const sets = last.sets.filter((s) => s.state !== "none");
  if (sets.length === 0) {
    list.append(el("li", "", t("about.solved.none")));
    return;
  }
  for (const s of sets) {
    const variant = s.variant === "cross" ? t("variant.cross") : t("variant.standard");
    const name = t("about.solved.set", { holes: num(s.holes), variant, seeds: num(Math.max(s.maxSeeds, s.target)) });
    const item = el("li", "", name + " — ");
    switch (s.state) {
      case "building": {
        const pct = Math.floor(s.percent);
        item.append(t("about.solved.building", { percent: num(pct) }) + " ");
        const bar = el("progress");
        bar.max = 100;
        bar.value = pct;
        bar.setAttribute("aria-label", name);
        item.append(bar);
        break;
      }
      case "queued":
        item.append(t("about.solved.queued"));
        break;
      case "failed":
        item.append(t("about.solved.failed"));
        break;
      default:
        item.append(t("about.solved.ready"));
    }
    list.append(item);
  }
}
