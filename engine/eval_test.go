package engine

import (
	"testing"

	"github.com/endodoi/endodoi/rules"
	"pgregory.net/rapid"
)

// drawPosition draws a position of 2 to 16 holes a row, with counts from
// empty to large, either side to move.
func drawPosition(t *rapid.T) rules.Position {
	n := rapid.IntRange(rules.MinHoles, rules.MaxHoles).Draw(t, "holes")
	max := rapid.SampledFrom([]int{1, 3, 20, 2000}).Draw(t, "max seeds")
	rows := [2][]int{make([]int, n), make([]int, n)}
	for s := range rows {
		for j := range rows[s] {
			rows[s][j] = rapid.IntRange(0, max).Draw(t, "seeds")
		}
	}
	side := rules.Side(rapid.IntRange(0, 1).Draw(t, "side"))
	p, err := rules.NewPositionFromRows(rows[0], rows[1], side, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPropEvaluatePacked: the evaluation on packed words agrees with the
// one hole by hole.
func TestPropEvaluatePacked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPosition(t)
		w := DefaultWeights
		w.RowSeeds = Score(rapid.IntRange(-50, 50).Draw(t, "row seeds"))
		w.Occupied = Score(rapid.IntRange(-50, 50).Draw(t, "occupied"))
		w.Singletons = Score(rapid.IntRange(-50, 50).Draw(t, "singletons"))
		if got, want := w.evaluate(&p), w.evaluateHoles(&p); got != want {
			t.Fatalf("%v: packed %d, hole by hole %d", p, got, want)
		}
	})
}

// TestPropKey: a key is the same for equal boards and sides to move
// whatever the captures, and changes with any one hole or the side.
func TestPropKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPosition(t)
		n := p.Holes()
		south, north := p.Row(rules.South), p.Row(rules.North)
		same, _ := rules.NewPositionFromRows(south, north, p.ToMove(), 3, 5)
		if key(&p) != key(&same) {
			t.Fatalf("%v and %v: keys differ", p, same)
		}
		other := p.WithToMove(p.ToMove().Opponent())
		if key(&p) == key(&other) {
			t.Fatalf("%v: the same key for either side to move", p)
		}
		j := rapid.IntRange(0, n-1).Draw(t, "hole")
		row := append([]int(nil), south...)
		row[j] ^= 1
		changed, _ := rules.NewPositionFromRows(row, north, p.ToMove(), 0, 0)
		if key(&p) == key(&changed) {
			t.Fatalf("%v and %v: the same key", p, changed)
		}
	})
}

// TestKeysDistinct: every board within four moves of the starts of 4 to
// 12 holes has its own key, in each of the key's halves that the table
// uses (the bucket's low bits and the check's top bits).
func TestKeysDistinct(t *testing.T) {
	r := rules.DefaultRules()
	for n := 4; n <= 12; n++ {
		start, _ := rules.NewPosition(n, 4)
		seen := map[rules.Position]bool{}
		keys := map[uint64]rules.Position{}
		low, high := map[uint64]int{}, map[uint64]int{}
		var walk func(p rules.Position, depth int)
		walk = func(p rules.Position, depth int) {
			q, _ := rules.NewPositionFromRows(p.Row(rules.South), p.Row(rules.North), p.ToMove(), 0, 0)
			if !seen[q] {
				seen[q] = true
				k := key(&q)
				if o, ok := keys[k]; ok {
					t.Fatalf("%v and %v: the same key %x", o, q, k)
				}
				keys[k] = q
				low[k&(1<<20-1)]++
				high[k>>44]++
			}
			if depth == 0 {
				return
			}
			for _, m := range p.LegalMoves(r) {
				c, _ := p.Play(m, r)
				walk(c, depth-1)
			}
		}
		walk(start, 4)
		// Among fewer boards than 2^20 values, a fair hash leaves few
		// values shared by more than a handful.
		for name, hist := range map[string]map[uint64]int{"low": low, "high": high} {
			for v, c := range hist {
				if c > 8 {
					t.Errorf("%d holes: %d of %d boards share the %s 20 bits %x", n, c, len(keys), name, v)
				}
			}
		}
	}
}

// TestPropSownHoles: the mask of the mover's non-empty holes has bit j set
// exactly when column j holds seeds, and no bit past the row.
func TestPropSownHoles(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPosition(t)
		n := p.Holes()
		var want uint32
		for j := range n {
			if p.SeedsAt(rules.NewMove(p.ToMove(), j).Index(n)) > 0 {
				want |= 1 << j
			}
		}
		if got := sownHoles(&p); got != want {
			t.Fatalf("%v: %b, want %b", p, got, want)
		}
	})
}
