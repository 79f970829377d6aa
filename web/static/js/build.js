// The build's descriptor: each build's is written over this one by package
// web (the server's, and `endodoi site`'s). As committed, it describes a page
// with a server and no engine module, which only the page's unit tests see.
export const build = { version: "dev", wasm: "", server: true };
