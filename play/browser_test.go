package play

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildsForTheBrowser: play and what it stands on build for the
// page's WebAssembly, with no database driver among their imports.
func TestBuildsForTheBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds for WebAssembly: not in -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no go command to build for WebAssembly with")
		}
		t.Skip("no go command: the WebAssembly build is not checked")
	}
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	build := exec.Command(goCmd, "build", "-o", os.DevNull, "./", "./game", "./memory")
	build.Env = env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./play/...: %v\n%s", err, out)
	}
	list := exec.Command(goCmd, "list", "-deps", "./")
	list.Env = env
	out, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"database/sql", "modernc.org/", "github.com/jackc/", "/endodoi/store", "net/http"} {
			if strings.Contains(dep, banned) {
				t.Errorf("play imports %s", dep)
			}
		}
	}
}
