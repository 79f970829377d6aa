package egtb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/internal/oracle"
	"github.com/endodoi/endodoi/rules"
)

// TestStartValues pins the values of small starts (from South's side),
// and checks those small enough against the brute force over histories.
func TestStartValues(t *testing.T) {
	for _, tc := range []struct {
		holes, seeds int
		variant      rules.Variant
		want         int
	}{
		{2, 1, rules.Standard, +4},
		{2, 2, rules.Standard, 0},
		{2, 3, rules.Standard, 0},
		{2, 4, rules.Standard, +6},
		{3, 1, rules.Standard, +6},
		{3, 2, rules.Standard, -2},
		{3, 3, rules.Standard, +8},
		{3, 4, rules.Standard, +4},
	} {
		r := rules.Rules{Variant: tc.variant}
		p, _ := rules.NewPosition(tc.holes, tc.seeds)
		tb, err := Build(context.Background(), Options{Holes: tc.holes, MaxSeeds: p.OnBoard(), Rules: r, Depths: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tb.Value(p)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%d holes, %d seeds, %s: start value %+d, want %+d", tc.holes, tc.seeds, tc.variant, got, tc.want)
		}
		if p.OnBoard() <= 8 {
			bf := &oracle.Solver{Rules: r, Budget: 2_000_000}
			if want, ok := bf.Value(p); !ok || want != got {
				t.Errorf("%d holes, %d seeds: brute force %d (ok %v), database %d", tc.holes, tc.seeds, want, ok, got)
			}
		}
		checkPV(t, tb, p, got)
	}
}

// checkPV plays out the principal variation from p and checks that it
// ends the game with the value realised, or, for a value of 0, at most
// where a position would repeat.
func checkPV(t *testing.T, tb *Tablebase, p rules.Position, v int) {
	t.Helper()
	pv, err := tb.PV(p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	q := p
	for _, m := range pv {
		if q, err = q.Play(m, tb.Rules()); err != nil {
			t.Fatalf("%s: principal variation %v has an illegal move: %v", p, pv, err)
		}
	}
	future := func(a rules.Position) int {
		return a.Captured(p.ToMove()) - a.Captured(p.ToMove().Opponent())
	}
	if !q.HasLegalMove(tb.Rules()) {
		if got := future(q.Final()) - future(p); got != v {
			t.Errorf("%s: principal variation %v ends with a margin of %d, value %d", p, pv, got, v)
		}
		return
	}
	if v != 0 {
		// The line stopped before the game's end: it realised the value
		// so far and the rest is worth 0 (a cycle).
		rest, _ := tb.Value(q)
		if got := future(q) - future(p) + SouthValue(q, rest)*sign(p.ToMove()); got != v || rest != 0 {
			t.Errorf("%s: principal variation %v stops at %s (worth %d) short of the value %d", p, pv, q, rest, v)
		}
	}
}

func sign(s rules.Side) int {
	if s == rules.North {
		return -1
	}
	return 1
}

func buildDir(t *testing.T, holes, maxSeeds int, r rules.Rules) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// rewrite replaces file's payload byte at i with f(old) and fixes both
// checksums, so that only the value is wrong.
func rewrite(t *testing.T, path string, i int, f func(int8) int8) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[headerSize+i] = byte(f(int8(data[headerSize+i])))
	binary.LittleEndian.PutUint32(data[32:], crc32.Checksum(data[headerSize:], castagnoli))
	binary.LittleEndian.PutUint32(data[36:], crc32.Checksum(data[:36], castagnoli))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyCatchesCorruption(t *testing.T) {
	r := rules.DefaultRules()
	dir := buildDir(t, 3, 7, r)
	tb, err := Open(dir, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	if tb.MaxSeeds() != 7 {
		t.Fatalf("MaxSeeds %d, want 7", tb.MaxSeeds())
	}
	for n := 0; n <= 7; n++ {
		res, err := tb.Verify(context.Background(), n, 5, 2, nil)
		if err != nil || res.Mismatches != 0 || res.Checked != Size(3, n) {
			t.Fatalf("%d seeds: sound database: %+v, %v", n, res, err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	path := filepath.Join(dir, FileName(3, 6, r))
	for trial := 0; trial < 20; trial++ {
		i := rng.IntN(int(Size(3, 6)))
		delta := int8(1 + rng.IntN(3))
		rewrite(t, path, i, func(v int8) int8 { return v + delta })
		tb, err := Open(dir, 3, r)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tb.Verify(context.Background(), 6, 5, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Mismatches == 0 {
			t.Fatalf("a value changed by %d at index %d passed verify", delta, i)
		}
		rewrite(t, path, i, func(v int8) int8 { return v - delta })
	}
	// A changed byte without a fixed checksum is refused on loading.
	data, _ := os.ReadFile(path)
	data[headerSize+3] ^= 1
	os.WriteFile(path, data, 0o644)
	tb, _ = Open(dir, 3, r)
	if _, err := tb.Verify(context.Background(), 6, 5, 2, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a damaged payload: %v, want ErrCorrupt", err)
	}
	p := rules.MustParsePosition("1,1,1/1,1,1 s 0 0")
	if _, ok := tb.Probe(&p); ok {
		t.Error("a damaged file was probed")
	}
}

func TestBuildResumesAfterInterruption(t *testing.T) {
	r := rules.Rules{Variant: rules.Cross, MaxLaps: 50}
	const holes, maxSeeds = 4, 11
	want := buildDir(t, holes, maxSeeds, r)

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { testHook = nil }()
	testHook = func(n int) {
		if n == 10 {
			cancel() // in the middle of count 10: it has two chunks
		}
	}
	_, err := Build(ctx, Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Dir: dir, Workers: 1})
	testHook = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build: %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 10 {
		t.Errorf("after the interruption %d files, want counts 0 to 9", len(entries))
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileName(holes, 10, r))); err == nil {
		t.Error("the interrupted count was written")
	}
	// A half-written file, as a crash would leave it, is removed.
	os.WriteFile(filepath.Join(dir, FileName(holes, 10, r)+".tmp123"), []byte("EDODEGTB"), 0o644)
	var loaded int
	tb, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r, Dir: dir,
		Progress: func(p Progress) { loaded = p.Loaded }})
	if err != nil {
		t.Fatal(err)
	}
	if loaded != 10 || len(tb.Stats()) != 2 {
		t.Errorf("resumed build read %d counts and solved %d, want 10 and 2", loaded, len(tb.Stats()))
	}
	for n := 0; n <= maxSeeds; n++ {
		a, err1 := os.ReadFile(filepath.Join(want, FileName(holes, n, r)))
		b, err2 := os.ReadFile(filepath.Join(dir, FileName(holes, n, r)))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%d seeds: resumed build's file differs (%v, %v)", n, err1, err2)
		}
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != maxSeeds+1 {
		t.Errorf("%d files after the resumed build, want %d", len(entries), maxSeeds+1)
	}
}

func TestProbeBeyondTheDatabases(t *testing.T) {
	r := rules.DefaultRules()
	dir := buildDir(t, 3, 4, r)
	tb, err := Open(dir, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	p := rules.MustParsePosition("2,1,0/1,0,0 n 3 4")
	if _, err := tb.Value(p); err != nil {
		t.Errorf("%s: %v", p, err)
	}
	p = rules.MustParsePosition("2,1,0/1,0,1 s 3 4")
	_, err = tb.Value(p)
	if !errors.Is(err, ErrBeyond) || !strings.Contains(err.Error(), "5 seeds on the board") || !strings.Contains(err.Error(), "at most 4") {
		t.Errorf("%s: error %v, want one saying 5 seeds is beyond 4", p, err)
	}
	if _, ok := tb.Probe(&p); ok {
		t.Errorf("%s probed beyond the databases", p)
	}
	q := rules.MustParsePosition("1,0,0,0/0,0,0,0 s 0 0")
	if _, err := tb.Value(q); err == nil || !strings.Contains(err.Error(), "4 holes") {
		t.Errorf("another board size: %v", err)
	}
	cross := rules.Rules{Variant: rules.Cross}
	_, err = Open(dir, 3, cross)
	if want := fmt.Sprintf("no endgame database for 3 holes a row under %s in %s; build one with: endodoi egtb build --holes 3 --max-seeds N --dir %s",
		cross, dir, dir); !errors.Is(err, ErrNotFound) || err.Error() != want {
		t.Errorf("another variant: %v, want ErrNotFound saying %q", err, want)
	}
	if _, err := Open(dir, 3, rules.Rules{MaxLaps: 10}); !errors.Is(err, ErrNotFound) {
		t.Errorf("another lap cap: %v, want ErrNotFound", err)
	}
}

// TestRulesMismatchRefused: a file whose header disagrees with the rules
// asked for is refused, whatever its name says.
func TestRulesMismatchRefused(t *testing.T) {
	dir := buildDir(t, 2, 3, rules.Rules{Variant: rules.Cross})
	for n := 0; n <= 3; n++ {
		os.Rename(filepath.Join(dir, FileName(2, n, rules.Rules{Variant: rules.Cross})), filepath.Join(dir, FileName(2, n, rules.DefaultRules())))
	}
	if _, err := Open(dir, 2, rules.DefaultRules()); err == nil {
		t.Error("a cross database was opened as a standard one")
	}
}

func TestBoundsAreSound(t *testing.T) {
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant}
		full, err := Build(context.Background(), Options{Holes: 3, MaxSeeds: 10, Rules: r})
		if err != nil {
			t.Fatal(err)
		}
		small, err := Build(context.Background(), Options{Holes: 3, MaxSeeds: 4, Rules: r})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		solved := 0
		for i := 0; i < 60; i++ {
			p := randomPosition(rng, 3, 5+rng.IntN(6))
			v, _ := full.Value(p)
			prevLo, prevHi := -p.OnBoard(), p.OnBoard()
			for d := 1; d <= 14; d++ {
				lo, hi, _, err := small.Bounds(context.Background(), p, d)
				if err != nil {
					t.Fatal(err)
				}
				if lo > v || hi < v {
					t.Fatalf("%s (%s): depth %d bounds [%d, %d] exclude the value %d", p, variant, d, lo, hi, v)
				}
				if lo < prevLo || hi > prevHi {
					t.Errorf("%s: depth %d bounds [%d, %d] looser than [%d, %d]", p, d, lo, hi, prevLo, prevHi)
				}
				prevLo, prevHi = lo, hi
				if lo == hi {
					solved++
					break
				}
			}
		}
		if solved < 20 {
			t.Errorf("%s: bounds met in only %d positions of 60", variant, solved)
		}
	}
}

func randomPosition(rng *rand.Rand, holes, seeds int) rules.Position {
	cells := make([]int, 2*holes)
	for i := 0; i < seeds; i++ {
		cells[rng.IntN(2*holes)]++
	}
	p, _ := rules.NewPositionFromRows(cells[:holes], cells[holes:], rules.Side(rng.IntN(2)), rng.IntN(10), rng.IntN(10))
	return p
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		pos   string
		value int
		want  string
	}{
		{"1,0/0,1 s 0 0", 2, "solved: South wins by 2"},
		{"1,0/0,1 n 0 0", 2, "solved: North wins by 2"},
		{"1,0/0,1 s 5 3", -2, "solved: draw"},
		{"1,0/0,1 n 5 3", 4, "solved: North wins by 2"},
		{"1,0/0,1 s 0 7", 3, "solved: North wins by 4"},
	} {
		if got := Describe(rules.MustParsePosition(tc.pos), tc.value); got != tc.want {
			t.Errorf("Describe(%s, %d) = %q, want %q", tc.pos, tc.value, got, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	tb, err := Build(context.Background(), Options{Holes: 2, MaxSeeds: 3, Rules: rules.DefaultRules()})
	if err != nil {
		f.Fatal(err)
	}
	values, _ := tb.Values(3)
	h := Header{Holes: 2, Seeds: 3, Rules: rules.DefaultRules(), Entries: uint64(len(values)), CRC: crc32.Checksum(bytesOf(values), castagnoli)}
	good := append(h.marshal(), bytesOf(values)...)
	f.Add(good)
	f.Add(good[:headerSize])
	f.Add(good[:len(good)-1])
	f.Add([]byte("EDODEGTB"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, v, err := decode(data)
		if err != nil {
			return
		}
		if uint64(len(v)) != h.Entries || h.Entries != Size(h.Holes, h.Seeds) {
			t.Fatalf("decoded %d values for a header of %d entries", len(v), h.Entries)
		}
	})
}

// TestBounderMatchesBounds: a Bounder, with its memory from one depth to
// the next, finds the very bounds of the memoryless search at every depth
// (and so is as sound), on boards where repetitions and transpositions are
// common; and its null-window tests, AtLeast and AtMost, with a table of
// their own, answer as those bounds do.
func TestBounderMatchesBounds(t *testing.T) {
	var searched, within, plain uint64
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant}
		for _, holes := range []int{3, 4, 5} {
			small, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: 5, Rules: r})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(9, uint64(holes)))
			for range 40 {
				p := randomPosition(rng, holes, 6+rng.IntN(10))
				bd, err := small.NewBounder(p, 1)
				if err != nil {
					t.Fatal(err)
				}
				tester, err := small.NewBounder(p, 1)
				if err != nil {
					t.Fatal(err)
				}
				narrow, err := small.NewBounder(p, 1)
				if err != nil {
					t.Fatal(err)
				}
				nlo, nhi := -p.OnBoard(), p.OnBoard()
				pair, err := small.NewBounder(p, 1)
				if err != nil {
					t.Fatal(err)
				}
				pairUpper := pair.Clone()
				plo, phi := nlo, nhi
				for d := 1; d <= 10; d++ {
					lo, hi, n, err := small.Bounds(context.Background(), p, d)
					if err != nil {
						t.Fatal(err)
					}
					blo, bhi, bn, err := bd.Bounds(context.Background(), d)
					if err != nil {
						t.Fatal(err)
					}
					if blo != lo || bhi != hi {
						t.Fatalf("%s (%s), depth %d: Bounder [%d, %d], Bounds [%d, %d]", p, variant, d, blo, bhi, lo, hi)
					}
					// Within the last depth's bounds, the same bounds.
					var wn uint64
					nlo, nhi, wn, err = narrow.Within(context.Background(), d, nlo, nhi)
					if err != nil {
						t.Fatal(err)
					}
					if nlo != lo || nhi != hi {
						t.Fatalf("%s (%s), depth %d: Within [%d, %d], Bounds [%d, %d]", p, variant, d, nlo, nhi, lo, hi)
					}
					within += wn
					// And with the two searches side by side.
					if plo, phi, _, err = pair.WithinSideBySide(context.Background(), pairUpper, d, plo, phi); err != nil {
						t.Fatal(err)
					}
					if plo != lo || phi != hi {
						t.Fatalf("%s (%s), depth %d: WithinSideBySide [%d, %d], Bounds [%d, %d]", p, variant, d, plo, phi, lo, hi)
					}
					for _, v := range []int{lo - 2, lo, lo + 2} {
						ok, bound, _, err := tester.AtLeast(context.Background(), d, v)
						if err != nil {
							t.Fatal(err)
						}
						if ok != (lo >= v) || ok && (bound < v || bound > lo) {
							t.Fatalf("%s (%s), depth %d: AtLeast(%d) %v with bound %d, the lower bound is %d", p, variant, d, v, ok, bound, lo)
						}
					}
					for _, v := range []int{hi - 2, hi, hi + 2} {
						ok, bound, _, err := tester.AtMost(context.Background(), d, v)
						if err != nil {
							t.Fatal(err)
						}
						if ok != (hi <= v) || ok && (bound > v || bound < hi) {
							t.Fatalf("%s (%s), depth %d: AtMost(%d) %v with bound %d, the upper bound is %d", p, variant, d, v, ok, bound, hi)
						}
					}
					plain += n
					searched += bn
				}
			}
		}
	}
	t.Logf("positions searched: %d by the Bounder, %d within the last depth's bounds, %d without memory", searched, within, plain)
	if within >= searched {
		t.Errorf("Within searched %d positions, no fewer than %d with the whole window", within, searched)
	}
	if searched >= plain {
		t.Errorf("the Bounder searched %d positions, no fewer than %d without memory", searched, plain)
	}
}

// TestWithinRefusesWrongBounds: bounds given to Within that its search
// disproves are an error, not a result.
func TestWithinRefusesWrongBounds(t *testing.T) {
	small, err := Build(context.Background(), Options{Holes: 4, MaxSeeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	refused := 0
	for range 30 {
		p := randomPosition(rng, 4, 8+rng.IntN(8))
		lo, hi, _, err := small.Bounds(context.Background(), p, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range [][2]int{{lo - 6, lo - 2}, {hi + 2, hi + 6}} {
			bd, err := small.NewBounder(p, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, _, _, err = bd.Within(context.Background(), 8, w[0], w[1])
			if !errors.Is(err, ErrNotBounds) {
				t.Fatalf("%s: Within(8, %d, %d) with bounds [%d, %d] at depth 8: %v, want ErrNotBounds", p, w[0], w[1], lo, hi, err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no wrong bounds tried")
	}
}
