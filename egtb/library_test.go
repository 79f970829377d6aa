package egtb

import (
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

func TestAutoMaxSeeds(t *testing.T) {
	for _, tc := range []struct{ holes, budget, want int }{
		{6, 0, 16}, {7, 0, 13}, {8, 0, 12}, {5, 0, 20}, {3, 5000, 8},
	} {
		if got := AutoMaxSeeds(tc.holes, tc.budget); got != tc.want {
			t.Errorf("AutoMaxSeeds(%d, %d) = %d, want %d", tc.holes, tc.budget, got, tc.want)
		}
	}
}

// waitReady waits for the library's set of holes a row under r to be ready.
func waitReady(t *testing.T, l *Library, holes int, r rules.Rules) *Tablebase {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if tb := l.Get(holes, r); tb != nil && tb.MaxSeeds() == AutoMaxSeeds(holes, l.opt.Budget) {
			return tb
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("databases of %d holes not built in 2 minutes: %+v", holes, l.Status())
	return nil
}

func TestLibraryBuildsOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	r := rules.DefaultRules()
	l := NewLibrary(dir, LibraryOptions{AutoBuild: true, Budget: 5000})
	t.Cleanup(l.Close)
	if tb := l.Get(3, r); tb != nil {
		t.Fatalf("databases before any build: up to %d seeds", tb.MaxSeeds())
	}
	if st := l.Status(); len(st) != 1 || st[0].State == StateReady || st[0].Target != 8 {
		t.Fatalf("status after the first Get: %+v", st)
	}
	tb := waitReady(t, l, 3, r)
	p := rules.MustParsePosition("1,1,1/1,1,1 s 0 0")
	if _, ok := tb.Probe(&p); !ok {
		t.Fatal("the built databases do not hold a 6-seed position")
	}
	// A lap cap other than the default is not built: it would let anyone
	// queue builds without end.
	capped, _ := rules.NewRules(rules.Standard, 5)
	if l.Get(3, capped) != nil {
		t.Fatal("databases for lap cap 5")
	}
	st := l.Status()
	if len(st) != 2 {
		t.Fatalf("status: %+v", st)
	}
	for _, s := range st {
		if s.MaxLaps == 5 && (s.State != StateNone || s.MaxSeeds != -1) {
			t.Errorf("lap cap 5: %+v, want none", s)
		}
	}
	l.Close()

	// Another library on the same folder finds them at once, and builds
	// nothing.
	again := NewLibrary(dir, LibraryOptions{AutoBuild: true, Budget: 5000})
	defer again.Close()
	if tb := again.Get(3, r); tb == nil || tb.MaxSeeds() != 8 {
		t.Fatalf("reopened: %v", tb)
	}
	if st := again.Status(); st[0].State != StateReady {
		t.Fatalf("reopened status %+v", st)
	}
}

// Close stops a build under way; the next library resumes it from the
// counts finished.
func TestLibraryCloseStopsTheBuild(t *testing.T) {
	dir := t.TempDir()
	r := rules.DefaultRules()
	l := NewLibrary(dir, LibraryOptions{AutoBuild: true, Budget: 500_000})
	t.Cleanup(l.Close)
	l.Get(4, r)
	time.Sleep(50 * time.Millisecond)
	done := make(chan struct{})
	go func() { l.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not stop the build")
	}
	if l.Get(5, r) != nil {
		t.Fatal("a closed library opened databases it has not got")
	}
	again := NewLibrary(dir, LibraryOptions{AutoBuild: true, Budget: 500_000})
	defer again.Close()
	waitReady(t, again, 4, r)
}
