// The page's modules as a whole, read as text: their imports (static and
// dynamic) form no cycle, and no module writes to the state another
// exports: a module changes another's state by calling it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";

const dir = new URL("../static/js/", import.meta.url);

/** The source without its comments (strings holding "//" keep them: a comment starts a line or follows a space). */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
}

/** Every module of the page: name -> source without comments. */
async function modules() {
  const out = new Map();
  for (const name of (await readdir(dir)).sort()) {
    if (name.endsWith(".js")) out.set(name, code(await readFile(new URL(name, dir), "utf8")));
  }
  return out;
}

/** The page's modules a source imports, re-exports or loads with import(). */
export function importsOf(src) {
  const found = new Set();
  const patterns = [
    /\bimport\s+(?:[\w$*{}\s,]+\s+from\s+)?["']\.\/([\w.-]+\.js)["']/g,
    /\bexport\s+[\w$*{}\s,]+\s+from\s+["']\.\/([\w.-]+\.js)["']/g,
    /\bimport\(\s*["']\.\/([\w.-]+\.js)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of src.matchAll(re)) found.add(m[1]);
  return [...found];
}

/** A cycle of graph (name -> names), as the path that closes it, or null. */
export function findCycle(graph) {
  const state = new Map(); // 1: on the path, 2: done
  const path = [];
  const visit = (n) => {
    state.set(n, 1);
    path.push(n);
    for (const m of graph.get(n) || []) {
      if (state.get(m) === 1) return [...path.slice(path.indexOf(m)), m];
      if (!state.has(m)) {
        const c = visit(m);
        if (c) return c;
      }
    }
    path.pop();
    state.set(n, 2);
    return null;
  };
  for (const n of graph.keys()) {
    if (!state.has(n)) {
      const c = visit(n);
      if (c) return c;
    }
  }
  return null;
}

/** The local names a source binds to other modules' exports: import { a, b as c } and import * as d. */
export function importedNames(src) {
  const names = [];
  for (const m of src.matchAll(/\bimport\s+([\w$*{}\s,]+?)\s+from\s+["']\.\/[\w.-]+\.js["']/g)) {
    const clause = m[1];
    const ns = /\*\s+as\s+([\w$]+)/.exec(clause);
    if (ns) names.push(ns[1]);
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) {
      for (const part of braces[1].split(",")) {
        const p = part.trim();
        if (p) names.push(p.split(/\s+as\s+/).pop().trim());
      }
    }
    const def = /^([\w$]+)\s*(,|$)/.exec(clause.trim());
    if (def) names.push(def[1]);
  }
  return names;
}

/** The writes of a source to a property of an imported name: "shown.hint = h", "motion.n++", Object.assign(shown, …). */
export function writesToImports(src) {
  const found = [];
  const esc = (s) => s.replace(/\$/g, "\\$");
  for (const name of importedNames(src)) {
    const n = esc(name);
    const chain = `(?<![\\w$.])${n}(?:\\.[\\w$]+|\\[[^\\]\\n]+\\])+`;
    const res = [
      new RegExp(`${chain}\\s*(?:\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?|[-+*/%&|^])?=(?!=)`, "g"),
      new RegExp(`${chain}\\s*(?:\\+\\+|--)`, "g"),
      new RegExp(`(?:\\+\\+|--)\\s*${chain}`, "g"),
      new RegExp(`\\bObject\\.assign\\(\\s*${n}(?![\\w$]|\\s*\\()`, "g"),
      new RegExp(`\\bdelete\\s+${chain}`, "g"),
    ];
    for (const re of res) for (const m of src.matchAll(re)) found.push(m[0].trim());
  }
  return found;
}

test("the parsers see what the page writes", () => {
  const src = code(`
    import { a, b as c } from "./x.js";
    import * as ns from "./y.js";
    import d from "./z.js";
    export { e } from "./w.js";
    const later = () => import("./v.js"); // import("./commented.js")
    /* import("./blocked.js") */
    const url = "http://example.org/";
    a.x = 1; c.y.z += 2; ns.s[k] = 3; a.n++; --c.m; Object.assign(d, {}); a.ok === 1; c.f(2).g = 4;
    Object.assign(c(1), {}); delete ns.t;
  `);
  assert.deepEqual(importsOf(src).sort(), ["v.js", "w.js", "x.js", "y.js", "z.js"]);
  assert.deepEqual(importedNames(src), ["a", "c", "ns", "d"]);
  assert.deepEqual(writesToImports(src), ["a.x =", "a.n++", "c.y.z +=", "--c.m", "ns.s[k] =", "delete ns.t", "Object.assign(d"]);
  assert.deepEqual(findCycle(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]])), ["a", "b", "c", "a"]);
  assert.equal(findCycle(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]])), null);
});

test("the page's modules import one another without a cycle", async () => {
  const mods = await modules();
  const graph = new Map();
  for (const [name, src] of mods) {
    const deps = importsOf(src);
    for (const d of deps) assert.ok(mods.has(d), `${name} imports ${d}, which is not a module of the page`);
    graph.set(name, deps);
  }
  const cycle = findCycle(graph);
  assert.equal(cycle, null, `import cycle: ${cycle && cycle.join(" → ")}`);
});

test("no module writes to the state another module exports", async () => {
  const bad = [];
  for (const [name, src] of await modules()) for (const w of writesToImports(src)) bad.push(`${name}: ${w}`);
  assert.deepEqual(bad, []);
});
