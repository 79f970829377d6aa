// Runs web/static/js/engine-worker.js under Node as a browser runs it in a
// Worker: the messages are the lines of standard input, the answers the
// lines of standard output, one JSON object a line.
//
//   node worker.mjs path/to/engine-worker.js path/to/endodoi.wasm
//
// Node has the globals wasm_exec.js needs (crypto, performance,
// TextEncoder), as go_js_wasm_exec's wasm_exec_node.js relies on; what a
// worker has and Node lacks is given here: self, postMessage, and fetch of
// a file.

import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [workerPath, wasmPath] = process.argv.slice(2);
if (!workerPath || !wasmPath) {
  console.error("usage: node worker.mjs engine-worker.js endodoi.wasm");
  process.exit(2);
}

globalThis.self = globalThis;
globalThis.postMessage = (message) => {
  process.stdout.write(JSON.stringify(message) + "\n");
};
const networkFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = new URL(url);
  if (u.protocol !== "file:") return networkFetch(url, init);
  return new Response(await readFile(u), { headers: { "Content-Type": "application/wasm" } });
};

const script = pathToFileURL(workerPath);
script.searchParams.set("wasm", pathToFileURL(wasmPath).href);
await import(script.href);

const pending = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  pending.push(self.onmessage({ data: JSON.parse(line) }));
}
await Promise.all(pending);
