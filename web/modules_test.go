package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
)

// TestPageModules runs the unit tests of the page's own modules
// (jstest/*.test.js: notation, the number and plural formatting of each
// language, the sentences about moves) with Node's test runner. Without
// node it is skipped, unless CI is "true" or ENDODOI_BROWSER_TESTS is
// "require", when it fails. package.json marks the scripts as ES modules
// for node; the tests stay outside static/, so they are neither served nor
// counted in the page's weight.
func TestPageModules(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("ENDODOI_BROWSER_TESTS") == "require" {
			t.Fatalf("node is needed to run the page's unit tests: %v", err)
		}
		t.Skip("node is not installed: the page's unit tests (web/jstest) are skipped; with CI=true or ENDODOI_BROWSER_TESTS=require this fails")
	}
	files, err := filepath.Glob(filepath.Join("jstest", "*.test.js"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no test file in web/jstest")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=tap"}, files...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
}

// The page speaks the live protocol's version the server does: a page's
// constant that lagged the server's would reload itself at every game.
func TestLiveProtocolAgrees(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("static", "js", "onlinegame.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\nconst PROTOCOL = (\d+);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("onlinegame.js declares no PROTOCOL")
	}
	if got, want := string(m[1]), strconv.Itoa(api.LiveProtocol); got != want {
		t.Errorf("the page speaks the live protocol's version %s, the server %s (api.LiveProtocol)", got, want)
	}
}
