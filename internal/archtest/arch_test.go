package archtest

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/endodoi/endodoi/"

// imports returns each package of the module with the packages it
// imports (directly), tests left out.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no go command to list the packages with")
		}
		t.Skip("no go command: the imports are not checked")
	}
	cmd := exec.Command(goCmd, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		m[strings.TrimPrefix(f[0], module)] = f[1:]
	}
	return m
}

// rule is a package pattern and what its packages must not import: a
// pattern ends in "/..." for a tree; a forbidden import of the module is
// named without the module's path.
type rule struct {
	pkgs   []string
	banned []string
	why    string
}

var rules = []rule{
	{[]string{"rules"}, []string{module}, "the rules depend on nothing"},
	{[]string{"play/..."}, []string{"store/...", "server/...", "account/...", "lobby/...", "net/http", "database/sql"},
		"the game being played runs unchanged in the browser, over any store"},
	{[]string{"api"}, []string{"store/...", "server/...", "account/...", "lobby/...", "net/http", "database/sql"},
		"the API's shapes are shared with the browser, which has no server"},
	{[]string{"account", "lobby/...", "ratings/...", "rating", "play/...", "players/...", "analysis", "internal/limits", "internal/metrics"},
		[]string{"net/http", "server", "internal/serve"},
		"a domain speaks no HTTP: the server translates"},
	{[]string{"account", "lobby/...", "ratings/...", "players/...", "analysis", "internal/limits"}, []string{"store"},
		"a domain says what it needs of storage in an interface of its own, which the store implements"},
	{[]string{"store"}, []string{"rating", "ratings", "play", "server", "api", "net/http"},
		"the store keeps data and transactions, not rules"},
	{[]string{"bus"}, []string{"rules", "rating", "ratings", "play/...", "account", "lobby", "server", "api", "net/http"},
		"the bus carries the instances' notices as bytes: no rules, no HTTP"},
}

// brokers are the message buses' client libraries, which only package bus
// imports: the server sees a bus.Bus.
var brokers = []string{"github.com/nats-io/", "github.com/redis/"}

// matches reports whether package p is one of pattern's.
func matches(pattern, p string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == tree || strings.HasPrefix(p, tree+"/")
	}
	return p == pattern
}

// TestImports: no package imports what docs/architecture.md forbids it.
func TestImports(t *testing.T) {
	all := imports(t)
	for _, r := range rules {
		for p, deps := range all {
			in := false
			for _, pattern := range r.pkgs {
				in = in || matches(pattern, p)
			}
			if !in {
				continue
			}
			for _, d := range deps {
				for _, b := range r.banned {
					if b == module && strings.HasPrefix(d, module) || d == b || matches(b, strings.TrimPrefix(d, module)) && strings.HasPrefix(d, module) {
						t.Errorf("%s imports %s: %s", p, strings.TrimPrefix(d, module), r.why)
					}
				}
			}
		}
	}
	// Only the wiring imports the server and the serving of the site.
	for p, deps := range all {
		for _, d := range deps {
			users, ok := onlyUsers[strings.TrimPrefix(d, module)]
			if ok && strings.HasPrefix(d, module) && !slices.Contains(users, p) {
				t.Errorf("%s imports %s: only %s may", p, strings.TrimPrefix(d, module), strings.Join(users, " and "))
			}
			for _, b := range brokers {
				if strings.HasPrefix(d, b) && p != "bus" {
					t.Errorf("%s imports %s: only bus speaks to a message bus", p, d)
				}
			}
		}
	}
}

// onlyUsers are the packages that only the packages listed may import:
// the server is wired by the command and served by package serve, which
// the command alone runs.
var onlyUsers = map[string][]string{
	"server":         {"internal/cli", "internal/serve"},
	"internal/serve": {"internal/cli"},
	"internal/cli":   {"cmd/endodoi"},
}
