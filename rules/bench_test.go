package rules_test

import (
	"math/rand/v2"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

type benchMove struct {
	p rules.Position
	m rules.Move
}

// benchMoves returns legal moves in varied positions: every position of
// random games from the 4-seed starts of 6 to 12 holes, with all their
// legal moves. The generator is seeded: runs are comparable.
func benchMoves() []benchMove {
	rng := rand.New(rand.NewPCG(1, 2))
	r := rules.DefaultRules()
	var out []benchMove
	for game := 0; game < 40; game++ {
		p, _ := rules.NewPosition(6+game%7, 4)
		for ply := 0; ply < 60; ply++ {
			moves := p.LegalMoves(r)
			if len(moves) == 0 {
				break
			}
			for _, m := range moves {
				out = append(out, benchMove{p, m})
			}
			p, _ = p.Play(moves[rng.IntN(len(moves))], r)
		}
	}
	return out
}

var (
	sinkPos   rules.Position
	sinkMoves []rules.Move
	sinkN     uint64
)

func BenchmarkPlay(b *testing.B) {
	set := benchMoves()
	r := rules.DefaultRules()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bm := &set[i%len(set)]
		q, err := bm.p.Play(bm.m, r)
		if err != nil {
			b.Fatal(err)
		}
		sinkPos = q
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

// BenchmarkPlayTo is BenchmarkPlay with the position written in place.
func BenchmarkPlayTo(b *testing.B) {
	set := benchMoves()
	r := rules.DefaultRules()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bm := &set[i%len(set)]
		if err := bm.p.PlayTo(&sinkPos, bm.m, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

func BenchmarkTrace(b *testing.B) {
	set := benchMoves()
	r := rules.DefaultRules()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bm := &set[i%len(set)]
		q, _, err := bm.p.Trace(bm.m, r)
		if err != nil {
			b.Fatal(err)
		}
		sinkPos = q
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

// benchPerft runs perft from the 4-seed start of the given size. moves/s
// counts every move the walk plays: the legal moves at every depth (the
// sum of the perft counts). Attempts refused as endless are not counted,
// so the figure slightly understates the sowings made.
func benchPerft(b *testing.B, holes, depth int) {
	p, _ := rules.NewPosition(holes, 4)
	r := rules.DefaultRules()
	counts := make([]uint64, depth+1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rules.PerftCounts(p, r, counts)
	}
	var moves uint64
	for _, c := range counts[1:] {
		moves += c
	}
	sinkN = counts[depth]
	b.ReportMetric(float64(moves), "moves/op")
	b.ReportMetric(float64(moves)*float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

func BenchmarkPerft6(b *testing.B)  { benchPerft(b, 6, 7) }
func BenchmarkPerft8(b *testing.B)  { benchPerft(b, 8, 6) }
func BenchmarkPerft10(b *testing.B) { benchPerft(b, 10, 5) }

func BenchmarkLegalMoves(b *testing.B) {
	set := benchMoves()
	r := rules.DefaultRules()
	buf := make([]rules.Move, 0, rules.MaxHoles)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = set[i%len(set)].p.AppendLegalMoves(buf[:0], r)
	}
	sinkMoves = buf
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

func BenchmarkParsePosition(b *testing.B) {
	set := benchMoves()
	texts := make([]string, 0, len(set))
	bytes := 0
	for i := 0; i < len(set); i += 7 {
		s := set[i].p.String()
		texts = append(texts, s)
		bytes += len(s)
	}
	b.SetBytes(int64(bytes / len(texts)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := rules.ParsePosition(texts[i%len(texts)])
		if err != nil {
			b.Fatal(err)
		}
		sinkPos = p
	}
}

// TestHotPathsDoNotAllocate backs the documentation's promises: Play,
// IsLegal, HasLegalMove and AppendLegalMoves with room enough allocate
// nothing. (PerftCounts is not promised to; see BenchmarkPerft*.)
func TestHotPathsDoNotAllocate(t *testing.T) {
	set := benchMoves()
	r := rules.DefaultRules()
	endless := mustPos(t, "2,0/2,1 s 0 0")
	buf := make([]rules.Move, 0, rules.MaxHoles)
	i := 0
	for name, f := range map[string]func(){
		"Play": func() {
			bm := &set[i%len(set)]
			sinkPos, _ = bm.p.Play(bm.m, r)
			i++
		},
		"Play error": func() {
			sinkPos, _ = endless.Play(rules.NewMove(rules.South, 0), r)
		},
		"IsLegal": func() {
			bm := &set[i%len(set)]
			if !bm.p.IsLegal(bm.m, r) {
				panic("illegal")
			}
			i++
		},
		"HasLegalMove": func() {
			if !set[i%len(set)].p.HasLegalMove(r) {
				panic("no move")
			}
			i++
		},
		"AppendLegalMoves": func() {
			buf = set[i%len(set)].p.AppendLegalMoves(buf[:0], r)
			i++
		},
	} {
		if a := testing.AllocsPerRun(200, f); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, a)
		}
	}
}
