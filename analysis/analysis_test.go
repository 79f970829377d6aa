package analysis

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/rules"
)

// The review's searches take the pool's engines: they must be made as
// grade.NewEngine makes them, or the figures of the endodoi review command
// would differ from the page's.
func TestReviewEnginesAsGradeMakesThem(t *testing.T) {
	if SearchHashMiB != grade.HashMiB {
		t.Errorf("the server's engines have tables of %d MiB, a review's %d MiB", SearchHashMiB, grade.HashMiB)
	}
}

// BenchmarkReview grades a 60-ply game on the 8-hole board (random moves
// from a fixed seed: the first such game to last 60 plies) at the
// server's budget, ReviewNodes a position: the time a review of such a
// game takes on one search slot.
func BenchmarkReview(b *testing.B) {
	s := New(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Searches: 1, SearchQueue: 1, SearchWait: time.Second,
		SearchShare: 1, AnalysisTime: time.Minute, MoveSearches: 1})
	start, _ := rules.NewPosition(8, 4)
	var g *rules.Game
	for seed := uint64(1); g == nil || g.Ply() < 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		var err error
		if g, err = rules.NewGame(start, rules.Rules{}.Canonical()); err != nil {
			b.Fatal(err)
		}
		for g.Ply() < 60 && !g.Over() {
			legal := g.LegalMoves()
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		if _, err := s.Grade(b.Context(), g, ReviewNodes, func(int) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.Ply()), "plies")
}

// BenchmarkNearPositions measures what each change of an online game in
// play costs every instance for the analysis refusal: the position and
// its children and grandchildren hashed and counted (Positions.Note
// and Set), on the default board in the middle of a game and on the
// largest board.
func BenchmarkNearPositions(b *testing.B) {
	for _, c := range []struct{ name, pos string }{
		{"8 holes", "3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 s 10 2"},
		{"16 holes", "4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0"},
	} {
		p := rules.MustParsePosition(c.pos)
		r := rules.DefaultRules()
		key := positionKey(p, r)
		b.Run(c.name, func(b *testing.B) {
			var lp Positions
			for b.Loop() {
				lp.Set("g", key, 0, 1)
				lp.Set("g", "", 0, 2)
			}
			b.ReportMetric(float64(len(nearHashes(p, r))), "positions")
		})
	}
}

// BenchmarkPositionCheck measures the refusal's check of a position
// asked about, with 1,000 games in play.
func BenchmarkPositionCheck(b *testing.B) {
	var lp Positions
	start := rules.MustParsePosition("4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0")
	r := rules.DefaultRules()
	p, ply := start, 0
	for i := range 1000 {
		for ; ply < LivePly || !p.HasLegalMove(r); ply++ {
			if !p.HasLegalMove(r) {
				p, ply = start, 0
			}
			p, _ = p.Play(p.LegalMoves(r)[0], r)
		}
		lp.Set(strconv.Itoa(i), positionKey(p, r), 0, 1)
		moves := p.LegalMoves(r)
		p, _ = p.Play(moves[i%len(moves)], r)
		ply++
	}
	for b.Loop() {
		if lp.Check(start, r) != nil {
			b.Fatal("the start refused")
		}
	}
}

// A position noted as an online game's is refused, with its children and
// grandchildren, until the game moves on; an older notice changes nothing.
func TestPositionsRefuseNearALiveGame(t *testing.T) {
	var lp Positions
	r := rules.DefaultRules()
	p := rules.MustParsePosition("3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 s 10 2")
	lp.Set("g", positionKey(p, r), 0, 2)
	child, _ := p.Play(p.LegalMoves(r)[0], r)
	grandchild, _ := child.Play(child.LegalMoves(r)[0], r)
	for _, q := range []rules.Position{p, child, grandchild} {
		if lp.Check(q, r) == nil {
			t.Errorf("%s not refused", q)
		}
	}
	lp.Set("g", "", 0, 1) // older: kept
	if lp.Check(p, r) == nil {
		t.Errorf("an older notice forgot the game")
	}
	lp.Set("g", "", 0, 3)
	if err := lp.Check(p, r); err != nil {
		t.Errorf("refused after the game moved on: %v", err)
	}
}

// TestPositionKey pins the key the notices carry: the variant, the
// mover's row then the other's, captures left out; parseKey reads it
// back as the same position seen from South.
func TestPositionKey(t *testing.T) {
	r := rules.DefaultRules()
	for _, c := range []struct{ pos, key, back string }{
		{"3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 s 10 2", "standard/3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5",
			"3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 s 0 0"},
		{"3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 n 10 2", "standard/2,2,4,1,2,0,4,5/3,1,8,5,5,1,6,5",
			"2,2,4,1,2,0,4,5/3,1,8,5,5,1,6,5 s 0 0"},
		{"1000,0/0,1 s 0 0", "standard/1000,0/0,1", "1000,0/0,1 s 0 0"},
	} {
		p := rules.MustParsePosition(c.pos)
		key := positionKey(p, r)
		if key != c.key {
			t.Errorf("positionKey(%s) = %q, want %q", c.pos, key, c.key)
		}
		back, v, ok := parseKey(key)
		if !ok || v != r.Variant || back.String() != c.back {
			t.Errorf("parseKey(%q) = %s, %v, %v; want %s", key, back, v, ok, c.back)
		}
	}
}
