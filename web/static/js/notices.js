// The order of the notices of challenges (lobbylive.js), so that they do
// not pile up: the newest first, the few newest shown and the others
// folded; one answer a player, the newest; the news of an accepted
// challenge only while its game is shown.

/** How many notices show before the others are folded. */
export const SHOWN = 3;

const time = (at) => Date.parse(at) || 0;

/** Splits items ({at}, in the order they came) newest first into those shown and those folded. */
export function arrange(items, shown = SHOWN) {
  const sorted = items.map((item, i) => ({ item, i })).sort((a, b) => time(b.item.at) - time(a.item.at) || b.i - a.i);
  const all = sorted.map((x) => x.item);
  return { first: all.slice(0, shown), folded: all.slice(shown) };
}

/** Adds an answer ({player}) to news, in place of any older one about the same player. */
export function keepNews(news, item) {
  for (let i = news.length - 1; i >= 0; i--) if (news[i].player === item.player) news.splice(i, 1);
  news.push(item);
}

/**
 * Keeps the news of an accepted challenge ({accepted, game}) while its game
 * is shown, at the address hash: its game is the one the address shows
 * first after it came (the lobby opens it), unless it was told. Returns
 * true if any news went.
 */
export function leftGames(news, hash) {
  const before = news.length;
  const m = /^#\/play\/([^/]+)/.exec(hash);
  const shown = m ? decodeURIComponent(m[1]) : "";
  for (let i = news.length - 1; i >= 0; i--) {
    const n = news[i];
    if (!n.accepted) continue;
    if (!n.game && shown) n.game = shown;
    else if (n.game !== shown) news.splice(i, 1);
  }
  return news.length !== before;
}
