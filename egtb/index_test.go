package egtb

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestRankUnrankRoundTrip(t *testing.T) {
	for _, holes := range []int{2, 3, 4} {
		for n := 0; n <= 7; n++ {
			size := Size(holes, n)
			cells := make([]int, 2*holes)
			want := make([]int, 2*holes)
			if err := Unrank(cells, n, 0); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for r := uint64(0); r < size; r++ {
				if got := Rank(cells); got != r {
					t.Fatalf("h%d n%d: rank of %v = %d, want %d", holes, n, cells, got, r)
				}
				if err := Unrank(want, n, r); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(cells, want) {
					t.Fatalf("h%d n%d rank %d: stepping gives %v, unranking %v", holes, n, r, cells, want)
				}
				// The builder's own unranking, straight into its byte cells.
				var direct board
				direct.setRank(holes, n, r)
				for i, c := range want {
					if int(direct[i]) != c {
						t.Fatalf("h%d n%d rank %d: setRank gives %v, unranking %v", holes, n, r, direct[:2*holes], want)
					}
				}
				sum := 0
				for _, c := range cells {
					sum += c
				}
				if sum != n {
					t.Fatalf("h%d n%d: cells %v holds %d seeds", holes, n, cells, sum)
				}
				key := string(rune(0)) + fmtBoard(cells)
				if seen[key] {
					t.Fatalf("cells %v twice", cells)
				}
				seen[key] = true
				if r+1 < size {
					// Step as the builder does, on its byte cells.
					var b board
					for i, c := range cells {
						b[i] = uint8(c)
					}
					b.next()
					for i := range cells {
						cells[i] = int(b[i])
					}
				}
			}
			if Unrank(cells, n, size) == nil {
				t.Errorf("h%d n%d: rank %d (the size) accepted", holes, n, size)
			}
		}
	}
}

func fmtBoard(b []int) string {
	s := make([]byte, len(b))
	for i, c := range b {
		s[i] = byte(c)
	}
	return string(s)
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		holes, n int
		want     uint64
	}{
		{2, 0, 1}, {2, 1, 4}, {2, 2, 10}, {6, 48, 279871768995}, {6, 20, 84672315}, {3, 24, 118755},
	} {
		if got := Size(tc.holes, tc.n); got != tc.want {
			t.Errorf("Size(%d, %d) = %d, want %d", tc.holes, tc.n, got, tc.want)
		}
	}
	var sum uint64
	for n := 0; n <= 10; n++ {
		sum += Size(5, n)
	}
	if got := CumulativeSize(5, 10); got != sum {
		t.Errorf("CumulativeSize(5, 10) = %d, want %d", got, sum)
	}
}

// TestSowMatchesRules plays every move of random boards with the
// database's own sowing and with package rules, under both variants and
// several lap caps (low ones make many moves endless).
func TestSowMatchesRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20000; trial++ {
		holes := 2 + rng.IntN(15) // every board size, 2 to 16 holes a row
		n := rng.IntN(MaxSeeds + 1)
		r := rules.Rules{Variant: rules.Variant(rng.IntN(2)), MaxLaps: []int{1, 2, 3, 7, 50, 1000}[rng.IntN(6)]}
		cells := make([]int, 2*holes)
		for s := 0; s < n; s++ {
			cells[rng.IntN(2*holes)]++
		}
		p, err := rules.NewPositionFromRows(cells[:holes], cells[holes:], rules.South, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var b board
		for i, c := range cells {
			b[i] = uint8(c)
		}
		if got, want := b.rank(holes), Rank(cells); got != want {
			t.Fatalf("%s: rank %d, want %d", p, got, want)
		}
		for j := 0; j < holes; j++ {
			if cells[j] == 0 {
				continue
			}
			q, err := p.Play(rules.NewMove(rules.South, j), r)
			c := b
			gain, ok := c.sow(masksFor(2*holes), holes, j, r.Laps(), r.Variant == rules.Cross)
			if ok != (err == nil) {
				t.Fatalf("%s %s (%s): sow ok %v, rules error %v", p, rules.NewMove(rules.South, j), r, ok, err)
			}
			if !ok {
				continue
			}
			if gain != q.Captured(rules.South) {
				t.Fatalf("%s %s (%s): sow captures %d, rules %d", p, rules.NewMove(rules.South, j), r, gain, q.Captured(rules.South))
			}
			mirror := make([]int, 2*holes)
			for i := 0; i < holes; i++ {
				mirror[i], mirror[i+holes] = q.SeedsAt(i+holes), q.SeedsAt(i)
				if int(c[i]) != q.SeedsAt(i) || int(c[i+holes]) != q.SeedsAt(i+holes) {
					t.Fatalf("%s %s (%s): sow gives %v, rules %s", p, rules.NewMove(rules.South, j), r, c[:2*holes], q)
				}
			}
			if got, want := c.mirrorRank(holes), Rank(mirror); got != want {
				t.Fatalf("%s: mirror rank %d, want %d", q, got, want)
			}
		}
	}
}

// TestIndexMatchesRank: a position's index is the rank of its board in the
// mover's sowing order (mirrored when North is to move), read hole by hole.
func TestIndexMatchesRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		holes := rules.MinHoles + rng.IntN(rules.MaxHoles-rules.MinHoles+1)
		p := randomPosition(rng, holes, rng.IntN(40))
		board := make([]int, 2*holes)
		n := 0
		for i := range board {
			j := i
			if p.ToMove() == rules.North {
				j = (i + holes) % (2 * holes)
			}
			board[i] = p.SeedsAt(j)
			n += board[i]
		}
		gotN, got, ok := index(&p, 40)
		if !ok || gotN != n || got != Rank(board) {
			t.Fatalf("%s: index %d, %d, %v; want %d, %d", p, gotN, got, ok, n, Rank(board))
		}
		if _, _, ok := index(&p, n-1); ok && n > 0 {
			t.Fatalf("%s: indexed with a maximum below its %d seeds", p, n)
		}
	}
}
