// The rules and the engine, compiled to WebAssembly from the server's own Go
// packages (cmd/wasm), in a worker so that a search never blocks the page.
//
//   const worker = new Worker(new URL("./engine-worker.js?wasm=/endodoi.wasm", import.meta.url), { type: "module" });
//   worker.postMessage({ id: 1, op: "search", position: "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", moves: [], level: 5 });
//   worker.onmessage = (e) => { ... e.data is { id: 1, move: "c", score: ..., pv: [...] } or { id: 1, error: "..." } };
//
// A message is one request of cmd/wasm (its "op" and arguments) with an id
// of the page's choosing; the answer carries the same id. Requests are
// answered one at a time, in order. A search cannot be interrupted: the
// page stops one by terminating the worker. The module's address is the
// "wasm" parameter of this script's own address (a versioned name).

import "./wasm_exec.js";

const wasmURL = new URL(
  new URL(import.meta.url).searchParams.get("wasm") || "../endodoi.wasm",
  import.meta.url,
);

async function load() {
  const go = new Go();
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(fetch(wasmURL), go.importObject));
  } catch {
    // A server that does not send application/wasm: compile from the bytes.
    let res;
    try {
      res = await fetch(wasmURL);
    } catch (err) {
      throw new Error(`${wasmURL}: ${err?.message || err}`);
    }
    if (!res.ok) throw new Error(`${wasmURL}: HTTP ${res.status}`);
    ({ instance } = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject));
  }
  // run returns once main waits for calls, endodoi.call set.
  go.run(instance);
  if (typeof globalThis.endodoi?.call !== "function") throw new Error("the engine did not start");
  return globalThis.endodoi;
}

const engine = load();

self.onmessage = async (event) => {
  const { id, ...request } = event.data || {};
  let answer;
  try {
    const api = await engine;
    answer = JSON.parse(api.call(JSON.stringify(request)));
  } catch (err) {
    answer = { error: `engine: ${err?.message || err}` };
  }
  self.postMessage({ ...answer, id });
};
