package web

// The page as an installable app that plays with no server: the rules and
// the engine as a WebAssembly module (cmd/wasm) for the page's worker, a
// service worker that keeps every file of one version, and the build
// descriptor (js/build.js) telling the page that version, the module's name
// and whether a server stands behind it.
//
// How the module gets here: it is built from cmd/wasm and committed,
// gzipped, as wasm/endodoi.wasm.gz, with wasm/endodoi.wasm.sum recording
// the Go version and a digest of the Go source it was built from.
// Building it at first use instead would need a Go toolchain and the
// source tree wherever the binary runs (a server installed from a release
// has neither), and would make the first visit of a fresh server wait for
// a 25-second build. TestWasmModule keeps the committed module honest: it
// fails, saying "run go generate ./web", when the source digest differs,
// and rebuilds and compares the bytes when the toolchain is the one that
// built it (the build is reproducible: -trimpath, -buildvcs=false).

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

//go:generate go test -run ^TestWasmModule$ -update-wasm

//go:embed wasm/endodoi.wasm.gz
var wasmGzipped []byte

// wasmSum is wasm/endodoi.wasm.sum, which gives the digest of the module
// uncompressed (TestWasmModule checks that it does), so that naming the
// module does not need it uncompressed.
//
//go:embed wasm/endodoi.wasm.sum
var wasmSum []byte

// immutable is the Cache-Control of a file whose name changes with its
// content.
const immutable = "public, max-age=31536000, immutable"

// Paths of the files made for each build.
const (
	buildPath         = "/js/build.js"
	serviceWorkerPath = "/sw.js"
	// buildMarker stands in sw.js where each build's descriptor goes.
	buildMarker = "/*BUILD*/ {}"
)

// Build describes one version of the page: what js/build.js tells the page
// and what the service worker keeps.
type Build struct {
	Version string `json:"version"` // a digest of every file but the descriptor and the service worker
	Wasm    string `json:"wasm"`    // the module's file name, relative to the page, versioned by its content
	Server  bool   `json:"server"`  // whether an endodoi server answers /api/ beside the page
}

// swBuild is what the service worker is told: the build and the files it
// keeps, relative to its scope ("./" is the page itself).
type swBuild struct {
	Build
	Files []string `json:"files"`
}

// wasmModule returns the module's bytes, uncompressed.
func wasmModule() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(wasmGzipped))
	if err != nil {
		return nil, fmt.Errorf("the WebAssembly module: %w", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("the WebAssembly module: %w", err)
	}
	return body, nil
}

// wasmDigest returns the digest of the module uncompressed, as
// wasm/endodoi.wasm.sum gives it.
func wasmDigest() (string, error) {
	var sum struct {
		Module string `json:"module"`
	}
	if err := json.Unmarshal(wasmSum, &sum); err != nil {
		return "", fmt.Errorf("wasm/endodoi.wasm.sum: %w", err)
	}
	if len(sum.Module) != 2*sha256.Size {
		return "", fmt.Errorf("wasm/endodoi.wasm.sum: the module's digest %q is not a SHA-256", sum.Module)
	}
	return sum.Module, nil
}

// addOfflineFiles adds the module to set and writes, into set's js/build.js
// and sw.js, the descriptor of the build they make with or without a
// server. The module keeps its gzipped form, so a server sends the bytes
// committed, compressed once; it is uncompressed only for a client that
// does not take gzip, or to be written out.
func addOfflineFiles(set map[string]*asset, server bool) (Build, error) {
	sum, err := wasmDigest()
	if err != nil {
		return Build{}, err
	}
	name := "endodoi." + sum[:16] + ".wasm"
	set["/"+name] = &asset{body: sync.OnceValues(wasmModule), gz: func() []byte { return wasmGzipped },
		ctype: "application/wasm", etag: `"` + sum[:24] + `"`, cacheControl: immutable}
	for _, p := range []string{buildPath, serviceWorkerPath} {
		if set[p] == nil {
			return Build{}, fmt.Errorf("the page lacks %s", p)
		}
	}
	var paths []string
	for p := range set {
		if p != buildPath && p != serviceWorkerPath {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	h := sha256.New()
	fmt.Fprintf(h, "server=%t\n", server)
	for _, p := range paths {
		fmt.Fprintf(h, "%s %s\n", p, set[p].etag)
	}
	b := Build{Version: hex.EncodeToString(h.Sum(nil))[:16], Wasm: name, Server: server}
	desc, err := json.Marshal(b)
	if err != nil {
		return Build{}, err
	}
	set[buildPath] = newAsset(buildPath, []byte("// Written for each build by package web: the version, the engine's module\n"+
		"// and whether a server answers beside the page.\nexport const build = "+string(desc)+";\n"))

	sw := swBuild{Build: b, Files: []string{"./"}}
	for _, p := range paths {
		if p == "/index.html" || strings.HasSuffix(p, ".txt") {
			continue // the page is kept as "./"; the fonts' licence is never fetched
		}
		sw.Files = append(sw.Files, strings.TrimPrefix(p, "/"))
	}
	sw.Files = append(sw.Files, strings.TrimPrefix(buildPath, "/"))
	desc, err = json.Marshal(sw)
	if err != nil {
		return Build{}, err
	}
	tmpl, err := set[serviceWorkerPath].body()
	if err != nil {
		return Build{}, err
	}
	if bytes.Count(tmpl, []byte(buildMarker)) != 1 {
		return Build{}, fmt.Errorf("%s: want the marker %q once", serviceWorkerPath, buildMarker)
	}
	set[serviceWorkerPath] = newAsset(serviceWorkerPath, bytes.Replace(tmpl, []byte(buildMarker), desc, 1))
	return b, nil
}

// WriteSite writes the whole page into dir as a static site, for any static
// file host with no endodoi server behind it: the page plays the computer,
// a friend on the same device, the analysis board, Learn and the puzzles in
// the browser, and hides what needs a server. Existing files of the same
// names are replaced; others are left.
func WriteSite(dir string) (Build, error) {
	set, err := loadAssets()
	if err != nil {
		return Build{}, err
	}
	b, err := addOfflineFiles(set, false)
	if err != nil {
		return Build{}, err
	}
	for p, a := range set {
		name := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return Build{}, fmt.Errorf("writing the site: %w", err)
		}
		body, err := a.body()
		if err != nil {
			return Build{}, fmt.Errorf("writing the site: %w", err)
		}
		if err := os.WriteFile(name, body, 0o644); err != nil {
			return Build{}, fmt.Errorf("writing the site: %w", err)
		}
	}
	if len(set) == 0 {
		return Build{}, errors.New("writing the site: no files")
	}
	return b, nil
}
