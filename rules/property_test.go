package rules_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/endodoi/endodoi/rules"
)

// refPlay is an independent model of a move, written from the rules text
// and nothing else: seed by seed, one hole at a time. It returns the
// position after the move and the number of laps sown.
func refPlay(p rules.Position, m rules.Move, r rules.Rules) (rules.Position, int, error) {
	h := p.Holes()
	size := 2 * h
	switch {
	case m.String() == "-":
		return p, 0, rules.ErrInvalidMove
	case m.Side() != p.ToMove():
		return p, 0, rules.ErrWrongSide
	case m.Column() >= h:
		return p, 0, rules.ErrNoSuchHole
	}
	board := append(p.Row(rules.South), p.Row(rules.North)...)
	pos := m.Index(h)
	if board[pos] == 0 {
		return p, 0, rules.ErrEmptyHole
	}
	maxLaps := r.MaxLaps
	if maxLaps == 0 {
		maxLaps = rules.DefaultMaxLaps
	}
	laps := 0
	for {
		if laps == maxLaps {
			return p, laps, rules.ErrEndless // rule 7
		}
		laps++
		seeds := board[pos] // rule 3: lift all
		board[pos] = 0
		for ; seeds > 0; seeds-- { // one by one, starting with the next hole
			pos = (pos + 1) % size
			board[pos]++
		}
		if board[pos] == 1 { // rule 5: the last seed fell into an empty hole
			break
		}
		// rule 4: relay from the hole the last seed fell into
	}
	mover := p.ToMove()
	captured := [2]int{p.Captured(rules.South), p.Captured(rules.North)}
	if rules.Side(pos/h) == mover || r.Variant == rules.Cross { // rules 6 and 12
		if opp := size - 1 - pos; board[opp] > 0 {
			captured[mover] += board[opp] + 1
			board[opp], board[pos] = 0, 0
		}
	}
	q, err := rules.NewPositionFromRows(board[:h], board[h:], mover.Opponent(), captured[0], captured[1])
	return q, laps, err
}

// allMoves is every move value worth trying on any board: all 32 hole
// letters and a few invalid values.
var allMoves = func() []rules.Move {
	var ms []rules.Move
	for _, s := range []rules.Side{rules.South, rules.North} {
		for c := 0; c < rules.MaxHoles; c++ {
			ms = append(ms, rules.NewMove(s, c))
		}
	}
	return append(ms, rules.NoMove, rules.Move(0x20), rules.Move(0x7F))
}()

// genCount draws a hole's count: often empty or small, sometimes large.
func genCount(t *rapid.T, large int, label string) int {
	switch rapid.IntRange(0, 9).Draw(t, label+"kind") {
	case 0, 1, 2:
		return 0
	case 3, 4, 5, 6:
		return rapid.IntRange(1, 6).Draw(t, label)
	case 7, 8:
		return rapid.IntRange(7, max(7, min(40, large))).Draw(t, label)
	default:
		return rapid.IntRange(min(41, large), large).Draw(t, label)
	}
}

// genPosition draws a position: 2 to 16 holes a row, counts up to large
// per hole (total capped at MaxBoardSeeds), either side to move and
// captures up to maxCaptured each.
func genPosition(t *rapid.T, large, maxCaptured int) rules.Position {
	h := rapid.IntRange(rules.MinHoles, rules.MaxHoles).Draw(t, "holes")
	rows := make([]int, 2*h)
	total := 0
	for i := range rows {
		c := genCount(t, large, fmt.Sprintf("hole%d", i))
		c = min(c, rules.MaxBoardSeeds-total)
		rows[i] = c
		total += c
	}
	side := rules.Side(rapid.IntRange(0, 1).Draw(t, "side"))
	// The total (board and captured) stays within MaxTotalSeeds.
	cs := rapid.IntRange(0, min(maxCaptured, rules.MaxTotalSeeds-total)).Draw(t, "capturedSouth")
	cn := rapid.IntRange(0, min(maxCaptured, rules.MaxTotalSeeds-total-cs)).Draw(t, "capturedNorth")
	p, err := rules.NewPositionFromRows(rows[:h], rows[h:], side, cs, cn)
	if err != nil {
		t.Fatalf("generator: %v", err)
	}
	return p
}

// genPlayPosition draws a position for move tests: counts kept moderate so
// that seed-by-seed models stay quick even on endless moves.
func genPlayPosition(t *rapid.T) rules.Position { return genPosition(t, 300, 1000) }

func genRules(t *rapid.T) rules.Rules {
	v := rapid.SampledFrom(rules.Variants()).Draw(t, "variant")
	laps := rapid.SampledFrom([]int{0, 1, 2, 3, 4, 5, 8, 13, 100, 1000}).Draw(t, "maxLaps")
	return rules.Rules{Variant: v, MaxLaps: laps}
}

// board returns p's holes in sowing order.
func board(p rules.Position) []int {
	return append(p.Row(rules.South), p.Row(rules.North)...)
}

func TestPropPlayMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		for _, m := range allMoves {
			got, err := p.Play(m, r)
			want, _, werr := refPlay(p, m, r)
			if err != werr || got != want {
				t.Fatalf("%s %s under %s: Play = %s, %v; reference %s, %v", p, m, r, got, err, want, werr)
			}
		}
	})
}

func TestPropSeedsConserved(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		mover := p.ToMove()
		for _, m := range p.LegalMoves(r) {
			q, err := p.Play(m, r)
			if err != nil {
				t.Fatalf("%s: legal move %s fails: %v", p, m, err)
			}
			if q.Total() != p.Total() {
				t.Fatalf("%s %s -> %s: total %d -> %d", p, m, q, p.Total(), q.Total())
			}
			if q.Holes() != p.Holes() || q.ToMove() != mover.Opponent() {
				t.Fatalf("%s %s -> %s: board size or turn wrong", p, m, q)
			}
			if q.Captured(mover.Opponent()) != p.Captured(mover.Opponent()) || q.Captured(mover) < p.Captured(mover) {
				t.Fatalf("%s %s -> %s: captures changed wrongly", p, m, q)
			}
			// A move that captured nothing leaves as many seeds on the board.
			if q.Captured(mover) == p.Captured(mover) && q.OnBoard() != p.OnBoard() {
				t.Fatalf("%s %s -> %s: board total changed without a capture", p, m, q)
			}
		}
	})
}

func TestPropDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		orig := p
		for _, m := range allMoves {
			q1, e1 := p.Play(m, r)
			q2, e2 := p.Play(m, r)
			t1, s1, f1 := p.Trace(m, r)
			t2, s2, f2 := p.Trace(m, r)
			if q1 != q2 || e1 != e2 || t1 != t2 || f1 != f2 || fmt.Sprint(s1) != fmt.Sprint(s2) {
				t.Fatalf("%s %s: two plays differ", p, m)
			}
		}
		if p != orig {
			t.Fatalf("playing changed the position itself")
		}
		if !slices.Equal(p.LegalMoves(r), p.LegalMoves(r)) {
			t.Fatalf("LegalMoves differ between calls")
		}
	})
}

func TestPropTraceAgreesWithPlay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		for _, m := range allMoves {
			q, err := p.Play(m, r)
			qt, sw, terr := p.Trace(m, r)
			if err != terr || q != qt {
				t.Fatalf("%s %s under %s: Play = %s, %v; Trace = %s, %v", p, m, r, q, err, qt, terr)
			}
			if err != nil {
				if sw.Laps != nil || qt != p {
					t.Fatalf("%s %s: failed Trace returned %s, %+v", p, m, qt, sw)
				}
				continue
			}
			mover := p.ToMove()
			gain := q.Captured(mover) - p.Captured(mover)
			if sw.Captured != gain {
				t.Fatalf("%s %s: Trace says %d captured, Play %d", p, m, sw.Captured, gain)
			}
			if (sw.CaptureFrom < 0) != (gain == 0) {
				t.Fatalf("%s %s: CaptureFrom %d with %d captured", p, m, sw.CaptureFrom, gain)
			}
		}
	})
}

// TestPropPlayToAgreesWithPlay: PlayTo writes what Play returns, whatever
// *dst held before, leaves p alone, and may play in place.
func TestPropPlayToAgreesWithPlay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		for _, m := range allMoves {
			want, werr := p.Play(m, r)
			orig := p
			dst := genPlayPosition(t)
			err := p.PlayTo(&dst, m, r)
			if err != werr || p != orig {
				t.Fatalf("%s %s under %s: PlayTo error %v, Play %v; p became %s", orig, m, r, err, werr, p)
			}
			if err == nil && dst != want {
				t.Fatalf("%s %s under %s: PlayTo wrote %s, Play returned %s", orig, m, r, dst, want)
			}
			in := p
			if err := in.PlayTo(&in, m, r); err != werr || err == nil && in != want {
				t.Fatalf("%s %s under %s: in place %s, %v; Play %s, %v", orig, m, r, in, err, want, werr)
			}
		}
	})
}

func TestPropTraceLapsConsistent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		h := p.Holes()
		size := 2 * h
		for _, m := range p.LegalMoves(r) {
			q, sw, err := p.Trace(m, r)
			if err != nil {
				t.Fatalf("%s %s: %v", p, m, err)
			}
			if sw.Move != m || len(sw.Laps) == 0 || len(sw.Laps) > r.Laps() {
				t.Fatalf("%s %s: move %s, %d laps (cap %d)", p, m, sw.Move, len(sw.Laps), r.Laps())
			}
			_, refLaps, _ := refPlay(p, m, r)
			if refLaps != len(sw.Laps) {
				t.Fatalf("%s %s: %d laps, reference %d", p, m, len(sw.Laps), refLaps)
			}
			b := board(p)
			for k, lap := range sw.Laps {
				from := m.Index(h)
				if k > 0 {
					from = sw.Laps[k-1].To
				}
				if lap.From != from {
					t.Fatalf("%s %s: lap %d starts at %d, want %d", p, m, k, lap.From, from)
				}
				if lap.Seeds != b[lap.From] || lap.Seeds == 0 {
					t.Fatalf("%s %s: lap %d lifts %d seeds from a hole of %d", p, m, k, lap.Seeds, b[lap.From])
				}
				if lap.To != (lap.From+lap.Seeds)%size {
					t.Fatalf("%s %s: lap %d of %d seeds from %d ends at %d", p, m, k, lap.Seeds, lap.From, lap.To)
				}
				b[lap.From] = 0
				for i, pos := 0, lap.From; i < lap.Seeds; i++ {
					pos = (pos + 1) % size
					b[pos]++
				}
				heldBefore := b[lap.To] - 1
				if last := k == len(sw.Laps)-1; last != (heldBefore == 0) {
					t.Fatalf("%s %s: lap %d (last %v) ended in a hole that held %d", p, m, k, last, heldBefore)
				}
			}
			sum := 0
			for _, c := range b {
				sum += c
			}
			if sum != p.OnBoard() {
				t.Fatalf("%s %s: replayed laps hold %d seeds, want %d", p, m, sum, p.OnBoard())
			}
			end := sw.End()
			if sw.CaptureFrom >= 0 {
				if sw.CaptureFrom != size-1-end || sw.Captured != b[sw.CaptureFrom]+1 {
					t.Fatalf("%s %s: captured %d from %d; sowing ended in %d facing a hole of %d",
						p, m, sw.Captured, sw.CaptureFrom, end, b[sw.CaptureFrom])
				}
				if rules.Side(end/h) != p.ToMove() && r.Variant != rules.Cross {
					t.Fatalf("%s %s: standard capture in the opponent's row", p, m)
				}
				b[end], b[sw.CaptureFrom] = 0, 0
			} else {
				if b[end] != 1 || q.SeedsAt(end) != 1 {
					t.Fatalf("%s %s: no capture, but the end hole holds %d", p, m, q.SeedsAt(end))
				}
				if (rules.Side(end/h) == p.ToMove() || r.Variant == rules.Cross) && b[size-1-end] != 0 {
					t.Fatalf("%s %s: a capture was due and not made", p, m)
				}
			}
			if !slices.Equal(b, board(q)) {
				t.Fatalf("%s %s: replayed laps give %v, Trace %v", p, m, b, board(q))
			}
		}
	})
}

func TestPropNotationRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Full ranges: counts up to the board limit, captures up to MaxCaptured.
		p := genPosition(t, rules.MaxBoardSeeds, rules.MaxTotalSeeds)
		s := p.String()
		q, err := rules.ParsePosition(s)
		if err != nil {
			t.Fatalf("ParsePosition(%q): %v", s, err)
		}
		if q != p || q.String() != s {
			t.Fatalf("round trip of %q gave %q", s, q)
		}
		b, err := p.MarshalText()
		if err != nil || string(b) != s {
			t.Fatalf("MarshalText = %q, %v", b, err)
		}
	})
}

func TestPropLegalMoves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlayPosition(t)
		r := genRules(t)
		var want []rules.Move
		for _, m := range allMoves {
			if _, err := p.Play(m, r); err == nil {
				want = append(want, m)
			}
			if p.IsLegal(m, r) != slices.Contains(want, m) {
				t.Fatalf("%s: IsLegal(%s) disagrees with Play", p, m)
			}
		}
		// allMoves lists each side's holes in row order, so want is in row
		// order too.
		got := p.LegalMoves(r)
		if !slices.Equal(got, want) {
			t.Fatalf("%s under %s: LegalMoves = %v, moves that play = %v", p, r, got, want)
		}
		prefix := []rules.Move{rules.NoMove, rules.NewMove(rules.North, 3)}
		app := p.AppendLegalMoves(slices.Clone(prefix), r)
		if !slices.Equal(app[:2], prefix) || !slices.Equal(app[2:], want) {
			t.Fatalf("AppendLegalMoves(%v) = %v, want the prefix then %v", prefix, app, want)
		}
		if p.HasLegalMove(r) != (len(want) > 0) {
			t.Fatalf("%s: HasLegalMove = %v with legal moves %v", p, p.HasLegalMove(r), want)
		}
		for _, m := range want {
			if m.Side() != p.ToMove() || p.Seeds(m) == 0 {
				t.Fatalf("%s: legal move %s is not a non-empty hole of the side to move", p, m)
			}
		}
		if rules.Perft(p, 1, r) != uint64(len(want)) {
			t.Fatalf("%s: Perft 1 = %d, %d legal moves", p, rules.Perft(p, 1, r), len(want))
		}
	})
}

func TestPropPerftDepth2(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPosition(t, 20, 10)
		r := genRules(t)
		var sum uint64
		for _, m := range p.LegalMoves(r) {
			q, _ := p.Play(m, r)
			sum += uint64(len(q.LegalMoves(r)))
		}
		counts := make([]uint64, 3)
		rules.PerftCounts(p, r, counts)
		if counts[0] != 1 || counts[1] != uint64(len(p.LegalMoves(r))) || counts[2] != sum || rules.Perft(p, 2, r) != sum {
			t.Fatalf("%s: PerftCounts %v, want [1 %d %d]", p, counts, len(p.LegalMoves(r)), sum)
		}
	})
}

func TestPropFinal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPosition(t, 1000, 1000)
		f := p.Final()
		last := p.ToMove().Opponent()
		if f.Total() != p.Total() || f.OnBoard() != 0 || f.ToMove() != p.ToMove() ||
			f.Captured(last) != p.Captured(last)+p.OnBoard() || f.Captured(p.ToMove()) != p.Captured(p.ToMove()) {
			t.Fatalf("Final(%s) = %s", p, f)
		}
	})
}

// TestPropGame plays random games and checks the Game's bookkeeping against
// a recount from its history, then takes every move back.
func TestPropGame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var start rules.Position
		if rapid.Bool().Draw(t, "startPosition") {
			h := rapid.IntRange(2, 6).Draw(t, "holes")
			s := rapid.IntRange(1, 4).Draw(t, "seeds")
			start, _ = rules.NewPosition(h, s)
			start = start.WithToMove(rules.Side(rapid.IntRange(0, 1).Draw(t, "first")))
		} else {
			start = genPosition(t, 12, 5)
		}
		r := genRules(t)
		g, err := rules.NewGame(start, r)
		if err != nil {
			t.Fatal(err)
		}
		if g.Rules().Laps() != r.Laps() || g.Rules().Variant != r.Variant {
			t.Fatalf("game rules %v, want %v", g.Rules(), r)
		}
		seen := map[rules.Position]int{start: 1}
		statuses := []rules.Status{g.Status()}
		check := func() {
			p := g.Position()
			if g.Occurrences() != seen[p] {
				t.Fatalf("ply %d: Occurrences %d, recount %d", g.Ply(), g.Occurrences(), seen[p])
			}
			want := rules.InProgress
			switch {
			case seen[p] >= 3:
				want = rules.Repetition
			case !p.HasLegalMove(r):
				want = rules.NoLegalMove
			}
			if g.Status() != want || g.Over() != (want != rules.InProgress) {
				t.Fatalf("ply %d at %s: status %v, want %v", g.Ply(), p, g.Status(), want)
			}
			s, n := g.Score()
			switch want {
			case rules.NoLegalMove:
				if s+n != p.Total() || g.FinalPosition() != p.Final() {
					t.Fatalf("ply %d: score %d-%d does not include the sweep of %s", g.Ply(), s, n, p)
				}
			default:
				if s != p.Captured(rules.South) || n != p.Captured(rules.North) || g.FinalPosition() != p {
					t.Fatalf("ply %d: score %d-%d for %s", g.Ply(), s, n, p)
				}
			}
			res := g.Result()
			switch {
			case want == rules.InProgress:
				if res != rules.Unfinished || g.LegalMoves() == nil {
					t.Fatalf("ply %d: result %v or no moves while in progress", g.Ply(), res)
				}
			case s > n && res != rules.SouthWins, n > s && res != rules.NorthWins, s == n && res != rules.Draw:
				t.Fatalf("ply %d: score %d-%d, result %v", g.Ply(), s, n, res)
			}
		}
		check()
		for ply := 0; ply < 300 && !g.Over(); ply++ {
			moves := g.LegalMoves()
			m := rapid.SampledFrom(moves).Draw(t, "move")
			if err := g.Play(m); err != nil {
				t.Fatalf("legal move %s: %v", m, err)
			}
			seen[g.Position()]++
			statuses = append(statuses, g.Status())
			check()
		}
		if g.Over() {
			if err := g.Play(rules.NewMove(g.Position().ToMove(), 0)); err == nil {
				t.Fatal("a move was accepted after the end")
			}
			if g.LegalMoves() != nil {
				t.Fatal("legal moves after the end")
			}
		}
		moves := g.Moves()
		if len(moves) != g.Ply() || g.Start() != start || g.PositionAt(0) != start {
			t.Fatalf("history: %d moves, ply %d", len(moves), g.Ply())
		}
		for i, m := range moves {
			q, err := g.PositionAt(i).Play(m, r)
			if err != nil || q != g.PositionAt(i+1) {
				t.Fatalf("history step %d (%s) does not replay", i, m)
			}
		}
		for k := len(moves) - 1; k >= 0; k-- {
			seen[g.Position()]--
			m, ok := g.Undo()
			if !ok || m != moves[k] {
				t.Fatalf("Undo = %s, %v; want %s", m, ok, moves[k])
			}
			if g.Ply() != k || g.Position() != g.PositionAt(k) || g.Status() != statuses[k] {
				t.Fatalf("after undo to ply %d: status %v, want %v", k, g.Status(), statuses[k])
			}
			check()
		}
		if m, ok := g.Undo(); ok || m != rules.NoMove {
			t.Fatalf("Undo at the start = %s, %v", m, ok)
		}
	})
}

func TestPropSeries(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		target := rapid.IntRange(1, 6).Draw(t, "target")
		s, err := rules.NewSeries(target)
		if err != nil {
			t.Fatal(err)
		}
		var wins [2]int
		draws, games := 0, 0
		for !s.Over() {
			if s.NextFirst() != rules.Side(games%2) {
				t.Fatalf("game %d: NextFirst %v", games, s.NextFirst())
			}
			r := rapid.SampledFrom([]rules.Result{rules.SouthWins, rules.NorthWins, rules.Draw}).Draw(t, "result")
			if err := s.Record(r); err != nil {
				t.Fatal(err)
			}
			games++
			if w, ok := r.Winner(); ok {
				wins[w]++
			} else {
				draws++
			}
			if s.Wins(rules.South) != wins[0] || s.Wins(rules.North) != wins[1] || s.Draws() != draws || len(s.Games()) != games {
				t.Fatalf("tally %d-%d (%d draws), want %v (%d draws)", s.Wins(rules.South), s.Wins(rules.North), s.Draws(), wins, draws)
			}
			if s.Over() != (wins[0] == target || wins[1] == target) {
				t.Fatalf("Over %v at %v, target %d", s.Over(), wins, target)
			}
			if games > 200 {
				return
			}
		}
		w, ok := s.Winner()
		if !ok || wins[w] != target {
			t.Fatalf("winner %v, %v with %v", w, ok, wins)
		}
		if s.Record(rules.SouthWins) == nil || len(s.Games()) != games {
			t.Fatal("Record after the end accepted")
		}
	})
}
