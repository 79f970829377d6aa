package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSite writes the static site and checks that it is whole: the page, its
// scripts, the engine's module under the name js/build.js gives, with no
// server; the service worker with the build's descriptor.
func TestSite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "public")
	code, out, errOut := run(t, "", "site", dir)
	if code != 0 {
		t.Fatalf("endodoi site: exit %d, %s", code, errOut)
	}
	if !strings.Contains(out, "wrote the site") {
		t.Errorf("output %q", out)
	}
	build, err := os.ReadFile(filepath.Join(dir, "js", "build.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(build), `"server":false`) {
		t.Errorf("js/build.js does not say there is no server: %s", build)
	}
	i := strings.Index(string(build), `"wasm":"`)
	if i < 0 {
		t.Fatalf("js/build.js names no module: %s", build)
	}
	name, _, _ := strings.Cut(string(build)[i+len(`"wasm":"`):], `"`)
	info, err := os.Stat(filepath.Join(dir, name))
	if err != nil || info.Size() < 1_000_000 {
		t.Errorf("the module %s: %v", name, err)
	}
	for _, f := range []string{"index.html", "js/main.js", "js/offline.js", "js/engine-worker.js", "i18n/ur.json", "manifest.webmanifest", "icons/icon-512.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the site lacks %s: %v", f, err)
		}
	}
	sw, err := os.ReadFile(filepath.Join(dir, "sw.js"))
	if err != nil || strings.Contains(string(sw), "/*BUILD*/") || !strings.Contains(string(sw), name) {
		t.Errorf("sw.js does not carry the build's files (%v)", err)
	}
	// Written again over itself: the same files.
	if code, _, errOut := run(t, "", "site", dir); code != 0 {
		t.Errorf("endodoi site over an existing site: exit %d, %s", code, errOut)
	}
	if code, _, _ := run(t, "", "site"); code != 2 {
		t.Errorf("endodoi site with no folder: exit %d, want 2", code)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if code, _, _ := run(t, "", "site", file); code != 1 {
		t.Errorf("endodoi site onto a file: exit %d, want 1", code)
	}
}
