package engine

import (
	"testing"

	"github.com/endodoi/endodoi/rules"
	"pgregory.net/rapid"
)

// TestPropTableEntryRoundTrip: every entry the table can hold reads back as
// it was stored, under its own key only.
func TestPropTableEntryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tt := newTable(1)
		for range rapid.IntRange(0, 5).Draw(t, "generations") {
			tt.newSearch()
		}
		k := rapid.Uint64().Draw(t, "key")
		e := entry{
			score:  Score(rapid.IntRange(-scoreBias+1, scoreBias-1).Draw(t, "score")),
			depth:  rapid.IntRange(0, MaxDepth).Draw(t, "depth"),
			bound:  bound(rapid.IntRange(int(boundLower), int(boundExact)).Draw(t, "bound")),
			proven: rapid.Bool().Draw(t, "proven"),
			move:   rules.NoMove,
		}
		if rapid.Bool().Draw(t, "has move") {
			e.move = rules.NewMove(rules.Side(rapid.IntRange(0, 1).Draw(t, "side")), rapid.IntRange(0, rules.MaxHoles-1).Draw(t, "column"))
		}
		tt.store(k, e)
		got, ok := tt.probe(k)
		if !ok || got != e {
			t.Fatalf("stored %+v under %#x, probed %+v, %v", e, k, got, ok)
		}
		other := k ^ 1<<63 // the same bucket, another key
		if got, ok := tt.probe(other); ok {
			t.Fatalf("probe of %#x found %+v", other, got)
		}
	})
}

// TestTableScoreOutOfRange: a score the entry cannot hold is not stored,
// rather than stored wrong.
func TestTableScoreOutOfRange(t *testing.T) {
	tt := newTable(1)
	for _, s := range []Score{scoreBias, -scoreBias, Infinity, -Infinity} {
		tt.store(42, entry{score: s, depth: 3, bound: boundExact})
		if e, ok := tt.probe(42); ok {
			t.Errorf("score %d: probed %+v", s, e)
		}
	}
}

// TestTableReplacement: the same key keeps its deeper entry unless the new
// one is proven; a full bucket gives up its shallowest entry, and entries
// of earlier searches before those of the current one.
func TestTableReplacement(t *testing.T) {
	tt := newTable(1)
	// Keys of one bucket: the same low bits, different top bits.
	keyOf := func(i int) uint64 { return uint64(i+1)<<60 | 7 }
	store := func(i, depth int) {
		tt.store(keyOf(i), entry{score: Score(i), depth: depth, bound: boundExact, move: rules.NoMove})
	}
	depthOf := func(i int) int {
		e, ok := tt.probe(keyOf(i))
		if !ok {
			return -1
		}
		return e.depth
	}

	store(0, 9)
	store(0, 5)
	if d := depthOf(0); d != 9 {
		t.Errorf("a shallower entry for the same key replaced the deeper one: depth %d", d)
	}
	tt.store(keyOf(0), entry{score: 1, depth: 2, bound: boundExact, proven: true, move: rules.NoMove})
	if e, _ := tt.probe(keyOf(0)); !e.proven {
		t.Errorf("a proven entry did not replace an unproven deeper one: %+v", e)
	}

	tt.clear()
	for i, d := range []int{8, 3, 6, 7} {
		store(i, d)
	}
	store(4, 1)
	if depthOf(1) != -1 || depthOf(4) != 1 {
		t.Errorf("full bucket: the new entry did not replace the shallowest (depths %d, new %d)", depthOf(1), depthOf(4))
	}
	for _, i := range []int{0, 2, 3} {
		if depthOf(i) == -1 {
			t.Errorf("entry %d lost", i)
		}
	}

	// Two searches later, the deep entries are old: a new shallow entry
	// replaces one of them rather than the current search's own.
	tt.newSearch()
	tt.newSearch()
	store(5, 2)
	store(6, 2)
	store(7, 2)
	if depthOf(5) == -1 || depthOf(6) == -1 || depthOf(7) == -1 {
		t.Errorf("entries of the current search replaced by one another: %d %d %d", depthOf(5), depthOf(6), depthOf(7))
	}

	tt.clear()
	for i := range bucketSize + 1 {
		if depthOf(i) != -1 {
			t.Errorf("entry %d survived clear", i)
		}
	}
}

// TestBusyTable: a mark shows until its thread leaves, for its own
// position and move only, and leaving does not remove another's mark.
func TestBusyTable(t *testing.T) {
	var b busyTable
	m := rules.NewMove(rules.South, 2)
	other := rules.NewMove(rules.North, 2)
	x := b.enter(0xABCDEF, m)
	if !b.searching(0xABCDEF, m) || b.searching(0xABCDEF, other) || b.searching(0xABCDEE, m) {
		t.Fatal("mark: shown for the wrong moves or not at all")
	}
	b.leave(x)
	if b.searching(0xABCDEF, m) {
		t.Fatal("mark survived leave")
	}
	// Two keys whose marks share a slot: the later overwrites, and the
	// earlier one's leave leaves it in place.
	k1 := uint64(0x1000)
	k2 := k1 ^ busySize<<4
	x1 := b.enter(k1, m)
	b.enter(k2, m)
	b.leave(x1)
	if !b.searching(k2, m) {
		t.Fatal("leaving an overwritten mark removed the newer one")
	}
}
