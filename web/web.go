// Package web is the browser game's user interface: plain HTML, CSS and
// JavaScript modules embedded in the binary, talking to the JSON API of
// package server (docs/api.md).
//
// The assets need no build step and load nothing from other sites, so the
// game works offline. Handler serves them with an ETag made from a hash of
// each file and "Cache-Control: no-cache", so a browser revalidates cheaply
// and never runs a stale script after an upgrade; text assets are gzipped
// once, at first use, and kept in memory. Beside them it serves what makes
// the page an installable app that plays offline (offline.go): the engine
// compiled to WebAssembly under a versioned, immutable name, the service
// worker and the build's descriptor; WriteSite writes all of it as a static
// site.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// asset is one file ready to serve. Its forms are made at their first
// use, not when the server starts.
type asset struct {
	body  func() ([]byte, error)
	gz    func() []byte // the gzipped body, or nil when gzip does not make it smaller
	ctype string
	etag  string // quoted, strong; the gzipped form's tag adds "-gz"
	// cacheControl, if not empty, replaces "no-cache": for a file whose
	// name changes with its content.
	cacheControl string
}

// contentTypes fixes the types of the assets' extensions, whatever the
// system's MIME tables say (some map .js to text/plain, which browsers
// refuse for modules).
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".json":  "application/json; charset=utf-8",
	".svg":   "image/svg+xml",
	".txt":   "text/plain; charset=utf-8",
	".woff2": "font/woff2",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".wasm":  "application/wasm",
	// The web app manifest (https://www.w3.org/TR/appmanifest/#media-type-registration).
	".webmanifest": "application/manifest+json; charset=utf-8",
}

// compressible lists the types worth gzipping.
func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.HasPrefix(ctype, "application/json") ||
		strings.HasPrefix(ctype, "application/manifest+json") ||
		strings.HasPrefix(ctype, "image/svg")
}

// contentSecurityPolicy allows only the page's own assets and API: the
// page never loads or runs anything from elsewhere. 'wasm-unsafe-eval'
// lets the engine's worker compile the page's own WebAssembly module.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; " +
	"script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; manifest-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

var (
	loadOnce sync.Once
	assets   map[string]*asset // by URL path, "/index.html"
)

// newAsset makes an asset of a file's body: its type from its name, its
// tag from a hash, and its gzipped form when that is smaller.
func newAsset(name string, body []byte) *asset {
	ext := path.Ext(name)
	ctype := contentTypes[ext]
	if ctype == "" {
		ctype = mime.TypeByExtension(ext)
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	sum := sha256.Sum256(body)
	a := &asset{body: func() ([]byte, error) { return body, nil }, gz: func() []byte { return nil },
		ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	if compressible(ctype) {
		a.gz = sync.OnceValue(func() []byte {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write(body)
			zw.Close()
			if buf.Len() >= len(body) {
				return nil
			}
			return buf.Bytes()
		})
	}
	return a
}

// loadAssets reads, hashes and compresses every embedded file.
func loadAssets() (map[string]*asset, error) {
	set := map[string]*asset{}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	err = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		set["/"+name] = newAsset(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the page's files: %w", err)
	}
	return set, nil
}

// load prepares the files the server serves: the embedded ones, the
// engine's module and the build's descriptor for a page with a server.
func load() {
	set, err := loadAssets()
	if err == nil {
		_, err = addOfflineFiles(set, true)
	}
	if err != nil {
		panic(err) // the embedded files are fixed at build time, and tests read them all
	}
	assets = set
}

// Handler serves the user interface: index.html at "/", the other assets
// under their names. Only GET and HEAD are allowed.
func Handler() http.Handler {
	loadOnce.Do(load)
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "/" || p == "" {
		p = "/index.html"
	}
	a, ok := assets[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	if a.cacheControl != "" {
		h.Set("Cache-Control", a.cacheControl)
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", a.ctype)
	if strings.HasPrefix(a.ctype, "text/html") {
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Referrer-Policy", "no-referrer")
	}
	etag, gz := a.etag, a.gz()
	if gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			etag = strings.TrimSuffix(a.etag, `"`) + `-gz"`
			h.Set("Content-Encoding", "gzip")
		} else {
			gz = nil
		}
	}
	h.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, a.etag) {
		h.Del("Content-Type")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := gz
	if body == nil {
		var err error
		if body, err = a.body(); err != nil {
			for _, k := range []string{"Cache-Control", "Content-Type", "Content-Encoding", "ETag", "Vary"} {
				h.Del(k)
			}
			http.Error(w, "the file could not be read: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// etagMatch reports whether an If-None-Match header names the asset whose
// identity tag is etag, in either encoding (same content, so a 304 is
// right for both), or is "*".
func etagMatch(header, etag string) bool {
	base := strings.Trim(etag, `"`)
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" {
			return true
		}
		t = strings.Trim(t, `"`)
		if t == base || t == base+"-gz" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: it is
// listed (or "*" is) without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
