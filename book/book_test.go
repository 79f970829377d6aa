package book_test

import (
	"strings"
	"testing"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/rules"
)

// The starts' values, as docs/solutions.md gives them (lap cap 1,000).
var solved = map[string]map[[2]int]int{
	"standard": {
		{4, 4}: 8, {4, 5}: -4, {4, 6}: 18, {4, 8}: 4,
		{5, 3}: 6, {5, 4}: 2, {5, 5}: 0, {5, 6}: -4,
		{6, 2}: 4, {6, 3}: 6, {6, 4}: 8,
		{7, 1}: 10, {7, 2}: 6, {7, 3}: 4, {7, 4}: 10,
	},
	"cross": {
		{4, 4}: 6, {5, 3}: 10, {5, 4}: 4, {6, 2}: 0, {6, 3}: 4, {6, 4}: 6,
	},
}

func entries(t *testing.T) []book.Entry {
	t.Helper()
	es, err := book.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("the book is empty")
	}
	return es
}

// Every start in the book has the value of the solutions table, and the
// traditional board is there.
func TestStartsMatchTheSolutions(t *testing.T) {
	sixFour := false
	for _, e := range entries(t) {
		p := e.Position
		h := p.Holes()
		if p.ToMove() != rules.South || p.OnBoard()%(2*h) != 0 {
			continue
		}
		s := p.OnBoard() / (2 * h)
		start, _ := rules.NewPosition(h, s)
		if p != start {
			continue
		}
		want, ok := solved[e.Rules.Variant.String()][[2]int{h, s}]
		if !ok {
			t.Errorf("the book holds the start of 2×%d×%d (%s), which the solutions table does not give", h, s, e.Rules.Variant)
			continue
		}
		if e.Value != want {
			t.Errorf("2×%d×%d (%s): book %+d, solutions table %+d", h, s, e.Rules.Variant, e.Value, want)
		}
		sixFour = sixFour || h == 6 && s == 4 && e.Rules.Variant == rules.Standard
	}
	if !sixFour {
		t.Error("the book lacks the start of 2×6×4")
	}
}

// Wherever the book holds a position and every position its moves lead to,
// the values agree: a position is worth the best of its moves, each worth
// the seeds it captures less the value of what follows (a position whose
// side to move cannot move is worth minus the seeds on the board). This
// checks every entry against its neighbours, so that one wrong value
// cannot hide.
func TestValuesAgreeWithTheirMoves(t *testing.T) {
	checked := 0
	for _, e := range entries(t) {
		b := book.For(e.Rules)
		p := e.Position
		if got, ok := b.Probe(&p); !ok || got != e.Value {
			t.Fatalf("Probe(%v) = %d, %v; want %d", p, got, ok, e.Value)
		}
		best, complete := -1<<30, true
		for _, m := range p.LegalMoves(e.Rules) {
			q, _ := p.Play(m, e.Rules)
			gain := q.Captured(p.ToMove()) - p.Captured(p.ToMove())
			var v int
			if !q.HasLegalMove(e.Rules) {
				v = -q.OnBoard()
			} else if v, complete = b.Probe(&q); !complete {
				break
			}
			best = max(best, gain-v)
		}
		if !complete {
			continue
		}
		checked++
		if best != e.Value {
			t.Errorf("%s %v: book %+d, its moves give %+d", e.Rules.Variant, p, e.Value, best)
		}
	}
	if checked == 0 {
		t.Fatal("no entry had all its moves in the book")
	}
	t.Logf("%d entries checked against their moves", checked)
}

func TestProbe(t *testing.T) {
	b := book.For(rules.DefaultRules())
	if b == nil {
		t.Fatal("no book for the standard rules")
	}
	start, _ := rules.NewPosition(6, 4)
	if v, ok := b.Probe(&start); !ok || v != 8 {
		t.Errorf("2×6×4 start: %d, %v; want 8, true", v, ok)
	}
	// Captured seeds do not change a position's future.
	moved := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 3 9")
	if v, ok := b.Probe(&moved); !ok || v != 8 {
		t.Errorf("with seeds captured: %d, %v; want 8, true", v, ok)
	}
	for _, s := range []string{"4,4,4,4,4,4/4,4,4,4,4,4 n 0 0", "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "1,0/0,1 s 0 0"} {
		p := rules.MustParsePosition(s)
		if _, ok := b.Probe(&p); ok {
			t.Errorf("Probe(%s) found a value", s)
		}
	}
	var none *book.Book
	if _, ok := none.Probe(&start); ok {
		t.Error("a nil book found a value")
	}
	lapCap, _ := rules.NewRules(rules.Standard, 7)
	if book.For(lapCap) != nil {
		t.Error("a book for a lap cap the book does not hold")
	}
	if allocs := testing.AllocsPerRun(100, func() { b.Probe(&start) }); allocs != 0 {
		t.Errorf("Probe allocates %v times", allocs)
	}
}

func TestParse(t *testing.T) {
	good := "# comment\n\nstandard 1000 1,0/0,1 s 0 0 2\ncross 1000 1,0/0,1 n 0 0 -2\n"
	es, err := book.Parse(good)
	if err != nil || len(es) != 2 {
		t.Fatalf("Parse: %v, %d entries", err, len(es))
	}
	if got := es[1].Format(); got != "cross 1000 1,0/0,1 n 0 0 -2" {
		t.Errorf("Format = %q", got)
	}
	for _, tc := range []struct{ text, want string }{
		{"standard 1000 1,0/0,1 s 0 0", "want 7"},
		{"odd 1000 1,0/0,1 s 0 0 2", "unknown variant"},
		{"standard x 1,0/0,1 s 0 0 2", "lap cap"},
		{"standard 1000 1,0/0,1 s 1 0 2", "captured seeds must be 0"},
		{"standard 1000 1,0/0,1 s 0 0 3", "out of range"},
		{"standard 1000 1,0/0,1 s 0 0 two", "value"},
		{"standard 1000 1,0/0 s 0 0 2", "position"},
	} {
		_, err := book.Parse("standard 1000 1,0/0,1 s 0 0 2\n" + tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("Parse(%q) = %v, want an error on line 2 about %q", tc.text, err, tc.want)
		}
	}
}
