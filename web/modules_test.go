package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
