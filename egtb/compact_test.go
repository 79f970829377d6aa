package egtb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// TestCompactMatchesLayerSolver solves counts both ways, the compact
// solver with its rounds' lists unbounded and bounded to a few positions
// (so that most of a level is found by sweeps), on one worker and on
// three and four (ranks in eight bytes on one), and wants the same bytes
// and the same number of moves, and with the rounds whole the same depths.
// The blocks the workers own are made 16 positions, so that every worker
// owns some of every count.
func TestCompactMatchesLayerSolver(t *testing.T) {
	defer func(shift int) { narrowRanks, ownShift = math.MaxUint32, shift }(ownShift)
	ownShift = 4
	for _, tc := range []struct {
		holes, seeds int
		r            rules.Rules
	}{
		{2, 24, rules.DefaultRules()},
		{3, 14, rules.Rules{Variant: rules.Cross, MaxLaps: 100}},
		{4, 11, rules.DefaultRules()},
		{4, 10, rules.Rules{Variant: rules.Cross, MaxLaps: 3}},
		{5, 9, rules.Rules{Variant: rules.Standard, MaxLaps: 2}},
		{6, 8, rules.DefaultRules()},
	} {
		t.Run(fmt.Sprintf("2x%d to %d %s", tc.holes, tc.seeds, tc.r), func(t *testing.T) {
			var lower [][]int8
			for n := 0; n <= tc.seeds; n++ {
				want, wantDepth, wantEdges, err := solveLayer(context.Background(), tc.holes, n, tc.r, lower, 2, true, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 1 {
					for _, workers := range []int{1, 3, 4} {
						for _, limit := range []int{0, 3} {
							// The rounds' ranks in eight bytes, as past 2^32 positions, with one worker.
							narrowRanks = math.MaxUint32
							if workers == 1 {
								narrowRanks = 0
							}
							got, depth, edges, err := solveCompact(context.Background(), tc.holes, n, tc.r, lower, workers, limit, limit == 0, nil)
							if err != nil {
								t.Fatal(err)
							}
							if limit == 0 && !slices.Equal(depth, wantDepth) {
								t.Fatalf("%d seeds, %d workers: the depths differ", n, workers)
							}
							if !slices.Equal(got, want) || edges != wantEdges {
								i := 0
								for i < len(want) && got[i] == want[i] {
									i++
								}
								t.Fatalf("%d seeds, %d workers, lists of %d: first difference at rank %d of %d, moves %d want %d",
									n, workers, limit, i, len(want), edges, wantEdges)
							}
						}
					}
				}
				lower = append(lower, want)
			}
		})
	}
}

// TestCompactCodes checks the byte layout: the states of every size that
// fits lie between the values, and none is shared.
func TestCompactCodes(t *testing.T) {
	for _, tc := range []struct{ holes, most int }{{2, 50}, {4, 35}, {6, 27}, {7, 24}, {8, 22}, {16, 12}} {
		if !compactFits(tc.holes, tc.most) || compactFits(tc.holes, tc.most+1) {
			t.Errorf("2×%d: the compact solver fits up to %d seeds, want %d", tc.holes, lastFit(tc.holes), tc.most)
		}
		for n := 1; n <= tc.most; n++ {
			c, _ := compactCodes(tc.holes, n)
			seen := map[uint8]string{}
			add := func(b uint8, what string) {
				if c.determined(b) {
					t.Fatalf("2×%d, %d seeds: %s has code %d, a value", tc.holes, n, what, b)
				}
				if other, ok := seen[b]; ok {
					t.Fatalf("2×%d, %d seeds: %s and %s share code %d", tc.holes, n, what, other, b)
				}
				seen[b] = what
			}
			add(c.open, "open")
			add(c.pendWon, "pending won")
			add(c.pendLost, "pending lost")
			for b := 1; b <= n; b++ {
				add(c.initial(b, 0), fmt.Sprintf("won %d", b))
				for m := 0; m < tc.holes; m++ {
					add(c.initial(-b, m), fmt.Sprintf("losing %d,%d", b, m))
				}
			}
			for m := 1; m <= tc.holes; m++ {
				add(c.initial(noExit, m), fmt.Sprintf("trapped %d", m))
			}
		}
	}
}

func lastFit(holes int) int {
	n := 0
	for compactFits(holes, n+1) {
		n++
	}
	return n
}

// TestBuildMapsFinishedCounts builds with a directory, every count mapped
// from its file once written (and, on resuming, once read), interrupted
// once, and wants the values of a build in memory asking for depths.
func TestBuildMapsFinishedCounts(t *testing.T) {
	defer func(m uint64) { mapFrom = m }(mapFrom)
	mapFrom = 0
	r := rules.Rules{Variant: rules.Standard, MaxLaps: 20}
	const holes, maxSeeds = 4, 12
	want, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Depths: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { testHook = nil }()
	testHook = func(n int) {
		if n == 9 {
			cancel()
		}
	}
	if _, err := Build(ctx, Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Dir: dir, Workers: 1}); err == nil {
		t.Fatal("the interrupted build finished")
	}
	testHook = nil
	got, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Dir: dir, Memory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Stats()) != maxSeeds-8 {
		t.Errorf("the resumed build solved %d counts, want %d", len(got.Stats()), maxSeeds-8)
	}
	for n := 0; n <= maxSeeds; n++ {
		a, err1 := want.Values(n)
		b, err2 := got.Values(n)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) {
			t.Errorf("%d seeds: the mapped build's values differ (%v, %v)", n, err1, err2)
		}
	}
}
