package egtb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// TestScratchBuildMatchesMemory: a build that keeps its predecessor lists
// in scratch files finds the very values and depths of the build in memory,
// across several groups of edge files and more than one block of offsets,
// and leaves no scratch file behind.
func TestScratchBuildMatchesMemory(t *testing.T) {
	for _, tc := range []struct {
		holes, maxSeeds int
		variant         rules.Variant
		workers         int
	}{
		{6, 12, rules.Standard, 2}, // 1,352,078 positions at 12 seeds: two blocks of offsets
		{4, 10, rules.Cross, 80},   // so many workers that each has only 4 edge files
	} {
		r := rules.Rules{Variant: tc.variant}
		inMemory, err := Build(context.Background(), Options{Holes: tc.holes, MaxSeeds: tc.maxSeeds, Rules: r, Depths: true})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		// One byte: every count goes to scratch files, put in place a
		// megabyte at a time.
		scratched, err := Build(context.Background(), Options{Holes: tc.holes, MaxSeeds: tc.maxSeeds, Rules: r, Depths: true,
			Dir: dir, Workers: tc.workers, Memory: 1})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= tc.maxSeeds; n++ {
			a, b := inMemory.slots[n].data.Load(), scratched.slots[n].data.Load()
			if !slices.Equal(a.values, b.values) {
				t.Errorf("%d holes, %d seeds, %s: values differ with scratch files", tc.holes, n, tc.variant)
			}
			if !slices.Equal(a.depth, b.depth) {
				t.Errorf("%d holes, %d seeds, %s: depths differ with scratch files", tc.holes, n, tc.variant)
			}
			if got, want := scratched.stats[n].Moves, inMemory.stats[n].Moves; got != want {
				t.Errorf("%d holes, %d seeds, %s: %d moves within the count with scratch files, want %d", tc.holes, n, tc.variant, got, want)
			}
		}
		assertOnlyDatabases(t, dir)
	}
}

// TestScratchRemovedOnCancel: a build cancelled while a count is in
// scratch files removes them.
func TestScratchRemovedOnCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHook = func(n int) {
		if n == 11 {
			cancel()
		}
	}
	defer func() { testHook = nil }()
	_, err := Build(ctx, Options{Holes: 6, MaxSeeds: 11, Rules: rules.DefaultRules(), Dir: dir, Workers: 2, Memory: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v, want context.Canceled", err)
	}
	assertOnlyDatabases(t, dir)
}

func assertOnlyDatabases(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".egtb") {
			t.Errorf("%s left in the databases' folder", filepath.Join(dir, e.Name()))
		}
	}
}
