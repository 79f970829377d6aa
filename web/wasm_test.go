package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

var updateWasm = flag.Bool("update-wasm", false, "rebuild wasm/endodoi.wasm.gz and its .sum from cmd/wasm (go generate ./web)")

const (
	wasmGzPath  = "wasm/endodoi.wasm.gz"
	wasmSumPath = "wasm/endodoi.wasm.sum"
)

// goTool returns the go command of the running toolchain.
func goTool(t *testing.T) string {
	t.Helper()
	tool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	tool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to check the WebAssembly module against its source: %v", err)
	}
	return tool
}

// sourceDigest hashes the Go source of cmd/wasm for the browser: every Go
// and embedded file of the module's own packages it imports, named by their
// path in the module. The standard library counts through the Go version.
func sourceDigest(t *testing.T, tool string) string {
	t.Helper()
	cmd := exec.Command(tool, "list", "-deps", "-json=ImportPath,Dir,Standard,GoFiles,EmbedFiles,Module", "../cmd/wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list cmd/wasm: %v", err)
	}
	type pkg struct {
		ImportPath, Dir     string
		Standard            bool
		GoFiles, EmbedFiles []string
		Module              *struct{ Path, Dir, Version string }
	}
	var files, modules []string
	root := ""
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list cmd/wasm: %v", err)
		}
		if p.Standard {
			continue
		}
		if p.Module == nil {
			t.Fatalf("cmd/wasm imports %s, of no module", p.ImportPath)
		}
		if p.Module.Path != "github.com/endodoi/endodoi" {
			// Another module's source is fixed by its version (go.sum).
			if p.Module.Version == "" {
				t.Fatalf("cmd/wasm imports %s from %s, which has no version", p.ImportPath, p.Module.Path)
			}
			modules = append(modules, p.Module.Path+"@"+p.Module.Version)
			continue
		}
		root = p.Module.Dir
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	sort.Strings(files)
	h := sha256.New()
	slices.Sort(modules)
	for _, m := range slices.Compact(modules) {
		fmt.Fprintf(h, "%s\n", m)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(body))
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildModule builds cmd/wasm for the browser, reproducibly.
func buildModule(t *testing.T, tool string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "endodoi.wasm")
	cmd := exec.Command(tool, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, "../cmd/wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./cmd/wasm: %v\n%s", err, msg)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// digest is the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// moduleSum is wasm/endodoi.wasm.sum: what the committed module was built
// from and what it is.
type moduleSum struct {
	Go     string `json:"go"`
	Source string `json:"source"` // sourceDigest
	Module string `json:"module"` // sha256 of the uncompressed module
	Bytes  int    `json:"bytes"`
}

// TestWasmModule checks that the committed module is the one cmd/wasm's
// source makes: the same source digest always, and the same bytes when
// this toolchain built it. With -update-wasm (go generate ./web) it
// rebuilds the module and its sum instead.
func TestWasmModule(t *testing.T) {
	tool := goTool(t)
	source := sourceDigest(t, tool)
	if *updateWasm {
		raw := buildModule(t, tool)
		var gz bytes.Buffer
		zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(raw)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		sum, err := json.MarshalIndent(moduleSum{Go: runtime.Version(), Source: source, Module: digest(raw), Bytes: len(raw)}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wasmGzPath, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wasmSumPath, append(sum, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes, %d gzipped) and %s", wasmGzPath, len(raw), gz.Len(), wasmSumPath)
		return
	}
	data, err := os.ReadFile(wasmSumPath)
	if err != nil {
		t.Fatalf("%v: run go generate ./web", err)
	}
	var sum moduleSum
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatalf("%s: %v: run go generate ./web", wasmSumPath, err)
	}
	committed, err := wasmModule()
	if err != nil {
		t.Fatal(err)
	}
	if embedded, err := wasmDigest(); digest(committed) != sum.Module || embedded != sum.Module || err != nil {
		t.Fatalf("%s is not the module %s describes: run go generate ./web", wasmGzPath, wasmSumPath)
	}
	if source != sum.Source {
		t.Fatalf("the WebAssembly module is stale: the Go source of cmd/wasm (rules, engine, book) changed since it was built; run go generate ./web")
	}
	if sum.Go != runtime.Version() {
		t.Logf("the module was built by %s, this is %s: its source is current, its bytes are not compared", sum.Go, runtime.Version())
		return
	}
	if testing.Short() {
		t.Log("-short: the module is not rebuilt to compare its bytes")
		return
	}
	if raw := buildModule(t, tool); !bytes.Equal(raw, committed) {
		t.Fatalf("building cmd/wasm gives another module (%d bytes, committed %d) from the same source: run go generate ./web", len(raw), len(committed))
	}
}

// TestWasmServed checks how the module is served: under a name versioned by
// its content, as application/wasm, gzipped, cacheable for ever; and that
// js/build.js names it.
func TestWasmServed(t *testing.T) {
	rec := get(t, "GET", "/js/build.js", nil)
	var b Build
	body := rec.Body.String()
	i, j := strings.Index(body, "{"), strings.LastIndex(body, "}")
	if rec.Code != 200 || i < 0 || j < i {
		t.Fatalf("GET /js/build.js: %d %q", rec.Code, body)
	}
	if err := json.Unmarshal([]byte(body[i:j+1]), &b); err != nil {
		t.Fatalf("js/build.js: %v in %q", err, body)
	}
	if !b.Server || len(b.Version) != 16 || !strings.HasPrefix(b.Wasm, "endodoi.") || !strings.HasSuffix(b.Wasm, ".wasm") {
		t.Fatalf("js/build.js describes %+v", b)
	}
	raw, err := wasmModule()
	if err != nil {
		t.Fatal(err)
	}
	if b.Wasm != "endodoi."+digest(raw)[:16]+".wasm" {
		t.Errorf("the module is served as %s, not under its digest", b.Wasm)
	}
	plain := get(t, "GET", "/"+b.Wasm, nil)
	if plain.Code != 200 || !bytes.Equal(plain.Body.Bytes(), raw) {
		t.Fatalf("GET /%s: %d, %d bytes; want 200 and the module's %d", b.Wasm, plain.Code, plain.Body.Len(), len(raw))
	}
	gz := get(t, "GET", "/"+b.Wasm, map[string]string{"Accept-Encoding": "gzip, deflate, br"})
	h := gz.Header()
	if h.Get("Content-Type") != "application/wasm" || h.Get("Content-Encoding") != "gzip" ||
		h.Get("Cache-Control") != immutable || !strings.Contains(h.Get("Vary"), "Accept-Encoding") {
		t.Errorf("GET /%s gzipped: headers %v", b.Wasm, h)
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("the gzipped module does not unzip to the module (%v)", err)
	}
	if gz.Body.Len() > 1_200_000 {
		t.Errorf("the module weighs %d bytes gzipped, over 1,200,000", gz.Body.Len())
	}
	t.Logf("the module: %d bytes, %d gzipped", len(raw), len(wasmGzipped))
	if get(t, "GET", "/js/main.js", nil).Header().Get("Cache-Control") != "no-cache" {
		t.Error("the scripts are no longer revalidated")
	}
	csp := get(t, "GET", "/", nil).Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "'wasm-unsafe-eval'") {
		t.Errorf("the page's CSP %q does not let the worker compile the module", csp)
	}
}
