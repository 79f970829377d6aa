package rules_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func mustGame(t *testing.T, start string, r rules.Rules) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(mustPos(t, start), r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func play(t *testing.T, g *rules.Game, moves ...string) {
	t.Helper()
	for _, s := range moves {
		if err := g.Play(mustMove(t, s)); err != nil {
			t.Fatalf("after %v: %s: %v", g.Moves(), s, err)
		}
	}
}

func wantScore(t *testing.T, g *rules.Game, south, north int, res rules.Result) {
	t.Helper()
	s, n := g.Score()
	if s != south || n != north || g.Result() != res {
		t.Errorf("score %d-%d, %v; want %d-%d, %v", s, n, g.Result(), south, north, res)
	}
}

func TestNewGame(t *testing.T) {
	g := mustGame(t, "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", rules.Rules{})
	if g.Rules() != rules.DefaultRules() {
		t.Errorf("zero rules became %+v, want the defaults", g.Rules())
	}
	if g.Status() != rules.InProgress || g.Over() || g.Ply() != 0 || len(g.Moves()) != 0 ||
		g.Occurrences() != 1 || g.Result() != rules.Unfinished || g.Start() != g.Position() {
		t.Errorf("fresh game: status %v, ply %d, occurrences %d, result %v", g.Status(), g.Ply(), g.Occurrences(), g.Result())
	}
	if got := len(g.LegalMoves()); got != 6 {
		t.Errorf("%d legal moves at the start, want 6", got)
	}
	for _, r := range []rules.Rules{{MaxLaps: -1}, {MaxLaps: rules.MaxMaxLaps + 1}, {Variant: 9}} {
		if _, err := rules.NewGame(mustPos(t, "1,1/1,1 s 0 0"), r); err == nil {
			t.Errorf("NewGame accepted rules %+v", r)
		}
	}
	if _, err := rules.NewGame(rules.Position{}, rules.DefaultRules()); err == nil {
		t.Error("NewGame accepted the zero Position")
	}
}

func TestGamePlayErrors(t *testing.T) {
	g := mustGame(t, "1,0,0/1,2,1 s 0 0", rules.DefaultRules())
	for s, want := range map[string]error{
		"A": rules.ErrWrongSide, "d": rules.ErrNoSuchHole, "b": rules.ErrEmptyHole,
	} {
		err := g.Play(mustMove(t, s))
		if !errors.Is(err, want) {
			t.Errorf("Play(%s) = %v, want %v", s, err, want)
		}
		if g.Ply() != 0 || g.Position() != g.Start() || g.Status() != rules.InProgress || g.Occurrences() != 1 {
			t.Errorf("a refused move changed the game")
		}
	}
	if err := g.Play(rules.NoMove); !errors.Is(err, rules.ErrInvalidMove) {
		t.Errorf("Play(NoMove) = %v", err)
	}
	e := mustGame(t, "2,0/2,1 s 0 0", rules.DefaultRules()) // only endless moves; already over
	if err := e.Play(mustMove(t, "a")); !errors.Is(err, rules.ErrGameOver) {
		t.Errorf("Play in a finished game = %v, want ErrGameOver", err)
	}
	e2 := mustGame(t, "1,1/1,0 s 0 0", rules.Rules{MaxLaps: 2})
	if err := e2.Play(mustMove(t, "b")); !errors.Is(err, rules.ErrEndless) {
		t.Errorf("endless move in a game = %v, want ErrEndless", err)
	}
}

func TestGameSweepToLastMover(t *testing.T) {
	// 1,0/0,0 s: a -> b (empty, own row; opposite A empty: no capture).
	// North has no seeds: rule 8, the seed on the board goes to South,
	// who moved last.
	g := mustGame(t, "1,0/0,0 s 0 0", rules.DefaultRules())
	play(t, g, "a")
	if g.Status() != rules.NoLegalMove || !g.Over() || g.Position().String() != "0,1/0,0 n 0 0" {
		t.Fatalf("status %v at %s", g.Status(), g.Position())
	}
	if g.FinalPosition().String() != "0,0/0,0 n 1 0" {
		t.Errorf("FinalPosition = %s", g.FinalPosition())
	}
	wantScore(t, g, 1, 0, rules.SouthWins)
	if g.LegalMoves() != nil {
		t.Errorf("legal moves after the end: %v", g.LegalMoves())
	}

	// 0,0/1,0 n 0 1: A -> B (own row; opposite a empty). South has nothing:
	// North takes the seed.
	g = mustGame(t, "0,0/1,0 n 0 1", rules.DefaultRules())
	play(t, g, "A")
	wantScore(t, g, 0, 2, rules.NorthWins)
}

func TestGameDraw(t *testing.T) {
	// By the sweep: 0,0/1,0 n 2 1, A -> B; South has no seeds; North takes
	// the last seed and ties 2-2 (rule 10: equal is a draw).
	g := mustGame(t, "0,0/1,0 n 2 1", rules.DefaultRules())
	play(t, g, "A")
	if g.Status() != rules.NoLegalMove {
		t.Fatalf("status %v", g.Status())
	}
	wantScore(t, g, 2, 2, rules.Draw)
	if _, ok := g.Result().Winner(); ok {
		t.Error("a draw has a winner")
	}

	// A whole game from 2,2/2,2 s:
	//   a: a(2) b3 A3 - relay; A(3) B3 a1 b4 - relay; b(4) A1 B4 a2 b1 -
	//      ends in emptied b, own row; A holds 1: South captures 2.
	//      -> 2,0/0,4 n 2 0
	//   B: B(4) a3 b1 A1 B1 - ends in emptied B, own row; a holds 3:
	//      North captures 4. -> 0,1/1,0 s 2 4
	//   b: b(1) -> A(2) - relay; A(2) B1 a1 - a was empty, own row; B
	//      holds 1: South captures 2. -> 0,0/0,0 n 4 4
	// North has no seeds; nothing to sweep: 4-4.
	g = mustGame(t, "2,2/2,2 s 0 0", rules.DefaultRules())
	play(t, g, "a")
	if g.Position().String() != "2,0/0,4 n 2 0" {
		t.Fatalf("after a: %s", g.Position())
	}
	play(t, g, "B")
	if g.Position().String() != "0,1/1,0 s 2 4" {
		t.Fatalf("after a B: %s", g.Position())
	}
	play(t, g, "b")
	if g.Position().String() != "0,0/0,0 n 4 4" || g.Status() != rules.NoLegalMove {
		t.Fatalf("after a B b: %s, %v", g.Position(), g.Status())
	}
	wantScore(t, g, 4, 4, rules.Draw)
}

func TestGameOnlyEndlessMoves(t *testing.T) {
	// Default cap: South's only non-empty hole sows forever (see
	// TestEndlessMove), so South has no legal move at the start and the
	// board goes to North (rule 8).
	g := mustGame(t, "2,0/2,1 s 3 4", rules.DefaultRules())
	if g.Status() != rules.NoLegalMove || g.LegalMoves() != nil {
		t.Fatalf("status %v, moves %v", g.Status(), g.LegalMoves())
	}
	wantScore(t, g, 3, 9, rules.NorthWins)

	// With a cap of 1 lap, reached by a move: North plays A(1) -> B
	// (empty; opposite a empty: no capture). South then has b(2), whose
	// sowing A1 B2 relays: endless at 1 lap. South has seeds but no legal
	// move; North, who moved last, takes all 3 seeds on the board.
	g = mustGame(t, "0,2/1,0 n 0 0", rules.Rules{MaxLaps: 1})
	play(t, g, "A")
	p := g.Position()
	if p.String() != "0,2/0,1 s 0 0" || p.RowSeeds(rules.South) == 0 || p.HasLegalMove(g.Rules()) {
		t.Fatalf("after A: %s", p)
	}
	if g.Status() != rules.NoLegalMove {
		t.Fatalf("status %v, want NoLegalMove", g.Status())
	}
	wantScore(t, g, 0, 3, rules.NorthWins)
	// The same position with the default cap goes on.
	if !p.HasLegalMove(rules.DefaultRules()) {
		t.Error("b is endless under the default cap too")
	}
}

// repetitionStart is a cycle found by a breadth-first search over 2-hole
// positions of up to 3 seeds a hole, and checked by hand:
//
//	1,1/0,0 s  a: a(1) -> b(2) relay; b(2) A1 B1 - B was empty: ends in
//	              North's row, no capture.          -> 0,0/1,1 n
//	0,0/1,1 n  A: A(1) -> B(2) relay; B(2) a1 b1 - b was empty: ends in
//	              South's row, no capture.          -> 1,1/0,0 s
//
// Captures in hand are kept to show that the board's seeds count for
// neither player when the game ends by repetition.
const repetitionStart = "1,1/0,0 s 3 1"

func TestGameRepetition(t *testing.T) {
	g := mustGame(t, repetitionStart, rules.DefaultRules())
	start := g.Position()
	other := mustPos(t, "0,0/1,1 n 3 1")

	steps := []struct {
		move        string
		pos         rules.Position
		occurrences int
		status      rules.Status
	}{
		{"a", other, 1, rules.InProgress},
		{"A", start, 2, rules.InProgress},
		{"a", other, 2, rules.InProgress}, // second occurrence: goes on
		{"A", start, 3, rules.Repetition}, // third occurrence: over (rule 9)
	}
	for i, st := range steps {
		play(t, g, st.move)
		if g.Position() != st.pos || g.Occurrences() != st.occurrences || g.Status() != st.status {
			t.Fatalf("ply %d: %s, %d occurrences, %v; want %s, %d, %v",
				i+1, g.Position(), g.Occurrences(), g.Status(), st.pos, st.occurrences, st.status)
		}
		if st.status == rules.InProgress && (g.Over() || g.Result() != rules.Unfinished) {
			t.Fatalf("ply %d: over or decided too early", i+1)
		}
	}
	// The two seeds on the board count for neither: 3-1 as captured.
	if g.FinalPosition() != start {
		t.Errorf("FinalPosition = %s, want the position unswept", g.FinalPosition())
	}
	wantScore(t, g, 3, 1, rules.SouthWins)
	if err := g.Play(mustMove(t, "a")); !errors.Is(err, rules.ErrGameOver) {
		t.Errorf("move after the repetition: %v", err)
	}
	if g.LegalMoves() != nil {
		t.Error("legal moves after the repetition")
	}

	// Undo: status and counts come back.
	if m, ok := g.Undo(); !ok || m.String() != "A" {
		t.Fatalf("Undo = %s, %v", m, ok)
	}
	if g.Status() != rules.InProgress || g.Occurrences() != 2 || g.Position() != other || g.Ply() != 3 {
		t.Fatalf("after Undo: %v, %d occurrences of %s, ply %d", g.Status(), g.Occurrences(), g.Position(), g.Ply())
	}
	play(t, g, "A")
	if g.Status() != rules.Repetition || g.Occurrences() != 3 {
		t.Fatalf("replayed third occurrence: %v, %d", g.Status(), g.Occurrences())
	}
	for k := 3; k >= 0; k-- {
		if _, ok := g.Undo(); !ok {
			t.Fatalf("Undo to ply %d failed", k)
		}
		want := []int{1, 1, 2, 2}[k] // occurrences of PositionAt(k) among plies 0..k
		if g.Ply() != k || g.Occurrences() != want || g.Status() != rules.InProgress {
			t.Fatalf("undone to ply %d: %d occurrences, %v; want %d", k, g.Occurrences(), g.Status(), want)
		}
	}
	if m, ok := g.Undo(); ok || m != rules.NoMove {
		t.Errorf("Undo at the start = %s, %v", m, ok)
	}
	if g.Position() != start || len(g.Moves()) != 0 {
		t.Errorf("fully undone: %s, %v", g.Position(), g.Moves())
	}
	// And the counts are right again afterwards: two more laps of the
	// cycle bring the third occurrence at ply 4, not before.
	play(t, g, "a", "A", "a")
	if g.Over() {
		t.Fatal("over after three plies")
	}
	play(t, g, "A")
	if g.Status() != rules.Repetition {
		t.Errorf("status %v at ply 4", g.Status())
	}

	// Under Cross the cycle is the same: each sowing ends facing the hole
	// it was lifted from, which is empty. The third occurrence ends it.
	c := mustGame(t, repetitionStart, cross)
	play(t, c, "a", "A", "a")
	if c.Over() || c.Position() != other {
		t.Fatalf("cross: %s, %v", c.Position(), c.Status())
	}
	play(t, c, "A")
	if c.Status() != rules.Repetition || c.Position() != start {
		t.Errorf("cross: %s, %v; want a repetition of the start", c.Position(), c.Status())
	}
}

func TestGameRepetitionBySearch(t *testing.T) {
	// Find in real play a game that ends by repetition, from a start
	// position, playing the first legal move each time; check that the
	// third occurrence, and not the second, ends it.
	g := mustGame(t, "3,3,3/3,3,3 s 0 0", rules.DefaultRules())
	count := map[rules.Position]int{g.Position(): 1}
	for !g.Over() {
		if err := g.Play(g.LegalMoves()[0]); err != nil {
			t.Fatal(err)
		}
		count[g.Position()]++
		if c := count[g.Position()]; (c >= 3) != (g.Status() == rules.Repetition) {
			t.Fatalf("ply %d: %d occurrences, status %v", g.Ply(), c, g.Status())
		}
		if g.Ply() > 1000 {
			t.Fatal("no end in 1000 plies")
		}
	}
	if g.Status() != rules.Repetition {
		t.Fatalf("game ended by %v, expected a repetition", g.Status())
	}
	p := g.Position()
	s, n := g.Score()
	if p.OnBoard() == 0 || s != p.Captured(rules.South) || n != p.Captured(rules.North) || s+n+p.OnBoard() != 18 {
		t.Errorf("repetition at %s scored %d-%d", p, s, n)
	}
}

func TestGameAccessors(t *testing.T) {
	g := mustGame(t, "2,2/2,2 s 0 0", rules.DefaultRules())
	play(t, g, "a", "B")
	ms := g.Moves()
	if len(ms) != 2 || ms[0].String() != "a" || ms[1].String() != "B" || g.Ply() != 2 {
		t.Fatalf("moves %v, ply %d", ms, g.Ply())
	}
	ms[0] = rules.NoMove
	if g.Moves()[0].String() != "a" {
		t.Error("Moves returns the game's own slice")
	}
	for i, want := range []string{"2,2/2,2 s 0 0", "2,0/0,4 n 2 0", "0,1/1,0 s 2 4"} {
		if g.PositionAt(i).String() != want {
			t.Errorf("PositionAt(%d) = %s, want %s", i, g.PositionAt(i), want)
		}
	}
	if g.Start().String() != "2,2/2,2 s 0 0" || g.Position() != g.PositionAt(2) {
		t.Error("Start or Position wrong")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("PositionAt out of range did not panic")
			}
		}()
		g.PositionAt(3)
	}()
	// Undo from a game over for want of moves.
	play(t, g, "b")
	if g.Status() != rules.NoLegalMove {
		t.Fatalf("status %v", g.Status())
	}
	if m, ok := g.Undo(); !ok || m.String() != "b" || g.Status() != rules.InProgress || g.Over() || g.Result() != rules.Unfinished {
		t.Errorf("Undo from NoLegalMove: %s %v, status %v", m, ok, g.Status())
	}
	s, n := g.Score()
	if s != 2 || n != 4 {
		t.Errorf("score after undo %d-%d, want 2-4 (no sweep)", s, n)
	}
}

func TestSeries(t *testing.T) {
	for _, bad := range []int{0, -1, rules.MaxSeriesTarget + 1} {
		if _, err := rules.NewSeries(bad); err == nil {
			t.Errorf("NewSeries(%d) accepted", bad)
		}
	}
	s, err := rules.NewSeries(rules.DefaultSeriesTarget)
	if err != nil || s.Target() != 3 {
		t.Fatalf("NewSeries(3): %v, target %d", err, s.Target())
	}
	if err := s.Record(rules.Unfinished); err == nil || len(s.Games()) != 0 {
		t.Error("an unfinished game was recorded")
	}
	if err := s.Record(rules.Result(9)); err == nil {
		t.Error("an invalid result was recorded")
	}
	// Rule 11: first player alternates game to game, South first; draws
	// count for neither but are games, so the alternation goes on.
	steps := []struct {
		first  rules.Side
		result rules.Result
		south  int
		north  int
		draws  int
	}{
		{rules.South, rules.NorthWins, 0, 1, 0},
		{rules.North, rules.Draw, 0, 1, 1},
		{rules.South, rules.SouthWins, 1, 1, 1},
		{rules.North, rules.NorthWins, 1, 2, 1},
		{rules.South, rules.Draw, 1, 2, 2},
		{rules.North, rules.SouthWins, 2, 2, 2},
		{rules.South, rules.NorthWins, 2, 3, 2},
	}
	for i, st := range steps {
		if s.Over() {
			t.Fatalf("game %d: over too early", i+1)
		}
		if _, ok := s.Winner(); ok {
			t.Fatalf("game %d: a winner too early", i+1)
		}
		if s.NextFirst() != st.first {
			t.Fatalf("game %d: %v moves first, want %v", i+1, s.NextFirst(), st.first)
		}
		if err := s.Record(st.result); err != nil {
			t.Fatal(err)
		}
		if s.Wins(rules.South) != st.south || s.Wins(rules.North) != st.north || s.Draws() != st.draws || len(s.Games()) != i+1 {
			t.Fatalf("game %d: %d-%d, %d draws", i+1, s.Wins(rules.South), s.Wins(rules.North), s.Draws())
		}
	}
	if !s.Over() {
		t.Fatal("North has 3 wins but the series goes on")
	}
	if w, ok := s.Winner(); !ok || w != rules.North {
		t.Errorf("Winner = %v, %v", w, ok)
	}
	if err := s.Record(rules.SouthWins); err == nil || s.Wins(rules.South) != 2 || len(s.Games()) != 7 {
		t.Error("Record after the series is over was accepted")
	}
	g := s.Games()
	g[0] = rules.Draw
	if s.Games()[0] != rules.NorthWins {
		t.Error("Games returns the series' own slice")
	}

	one, _ := rules.NewSeries(1)
	_ = one.Record(rules.Draw)
	_ = one.Record(rules.SouthWins)
	if w, ok := one.Winner(); !one.Over() || !ok || w != rules.South {
		t.Errorf("series to 1: %v %v", w, ok)
	}
}

func TestSeriesOfGames(t *testing.T) {
	// A whole series of real games on the 3-hole, 2-seed board, each side
	// playing its first legal move; the first player alternates.
	s, _ := rules.NewSeries(2)
	start, _ := rules.NewPosition(3, 2)
	for n := 0; !s.Over(); n++ {
		if n > 20 {
			t.Fatal("series does not end")
		}
		first := s.NextFirst()
		g, err := rules.NewGame(start.WithToMove(first), rules.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		if g.Position().ToMove() != first {
			t.Fatal("wrong first player")
		}
		for !g.Over() {
			if err := g.Play(g.LegalMoves()[0]); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Record(g.Result()); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := s.Winner()
	if s.Wins(w) != 2 {
		t.Errorf("winner %v with %d wins", w, s.Wins(w))
	}
}

func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		res   rules.Result
		token string
	}{
		{rules.Unfinished, "*"}, {rules.SouthWins, "1-0"}, {rules.NorthWins, "0-1"}, {rules.Draw, "1/2-1/2"},
	} {
		if got := tc.res.Token(); got != tc.token {
			t.Errorf("%v.Token() = %q, want %q", tc.res, got, tc.token)
		}
		b, err := tc.res.MarshalText()
		if err != nil || string(b) != tc.token {
			t.Errorf("%v.MarshalText() = %q, %v", tc.res, b, err)
		}
		var back rules.Result
		if err := back.UnmarshalText([]byte(tc.token)); err != nil || back != tc.res {
			t.Errorf("UnmarshalText(%q) = %v, %v", tc.token, back, err)
		}
	}
	for _, bad := range []string{"", "1-1", "½-½", " 1-0", "draw"} {
		if _, err := rules.ParseResult(bad); err == nil {
			t.Errorf("ParseResult(%q) accepted", bad)
		}
	}
	if _, err := rules.Result(9).MarshalText(); err == nil {
		t.Error("Result(9).MarshalText accepted")
	}
	if rules.WinFor(rules.South) != rules.SouthWins || rules.WinFor(rules.North) != rules.NorthWins {
		t.Error("WinFor")
	}
}

func TestCanonicalRules(t *testing.T) {
	for _, tc := range []struct {
		in   rules.Rules
		want rules.Rules
	}{
		{rules.Rules{}, rules.DefaultRules()},
		{rules.Rules{MaxLaps: rules.DefaultMaxLaps}, rules.DefaultRules()},
		{rules.Rules{Variant: rules.Cross}, rules.Rules{Variant: rules.Cross, MaxLaps: rules.DefaultMaxLaps}},
		{rules.Rules{MaxLaps: 7}, rules.Rules{MaxLaps: 7}},
	} {
		if got := tc.in.Canonical(); got != tc.want {
			t.Errorf("%+v.Canonical() = %+v, want %+v", tc.in, got, tc.want)
		}
		if got, err := rules.NewRules(tc.in.Variant, tc.in.MaxLaps); err != nil || got != tc.want {
			t.Errorf("NewRules(%v, %d) = %+v, %v", tc.in.Variant, tc.in.MaxLaps, got, err)
		}
		g, err := rules.NewGame(rules.MustParsePosition("2,2/2,2 s 0 0"), tc.in)
		if err != nil || g.Rules() != tc.want {
			t.Errorf("NewGame(%+v).Rules() = %+v, %v", tc.in, g.Rules(), err)
		}
	}
	for _, bad := range []struct {
		v    rules.Variant
		laps int
	}{{rules.Standard, -1}, {rules.Cross, rules.MaxMaxLaps + 1}, {9, 10}} {
		if _, err := rules.NewRules(bad.v, bad.laps); err == nil {
			t.Errorf("NewRules(%d, %d) accepted", bad.v, bad.laps)
		}
	}
}

func TestGameHistory(t *testing.T) {
	g, err := rules.NewGame(rules.MustParsePosition("2,2/2,2 s 0 0"), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	if h := g.History(); len(h) != 0 {
		t.Errorf("history at the start: %v", h)
	}
	for g.Ply() < 3 && !g.Over() {
		if err := g.Play(g.LegalMoves()[0]); err != nil {
			t.Fatal(err)
		}
		h := g.History()
		if len(h) != g.Ply() {
			t.Fatalf("ply %d: %d positions in the history", g.Ply(), len(h))
		}
		for i, p := range h {
			if p != g.PositionAt(i) {
				t.Errorf("ply %d: History()[%d] = %s, want %s", g.Ply(), i, p, g.PositionAt(i))
			}
		}
		h[0] = g.Position() // a copy: the game must not change
		if g.Start() != rules.MustParsePosition("2,2/2,2 s 0 0") {
			t.Error("History returned the game's own slice")
		}
	}
}

func TestFinalMargin(t *testing.T) {
	for _, tc := range []struct {
		pos    string
		future int
		want   int
	}{
		{"1,0/0,1 s 5 2", 4, 7},
		{"1,0/0,1 n 5 2", 4, -1},
		{"1,0/0,1 n 2 5", -4, 1},
		{"1,0/0,1 s 0 0", 0, 0},
	} {
		p := rules.MustParsePosition(tc.pos)
		if got := rules.FinalMargin(p, tc.future, 1); got != tc.want {
			t.Errorf("FinalMargin(%s, %d, 1) = %d, want %d", tc.pos, tc.future, got, tc.want)
		}
		if got := rules.FinalMargin(p, 100*tc.future, 100); got != 100*tc.want {
			t.Errorf("FinalMargin(%s, %d, 100) = %d, want %d", tc.pos, 100*tc.future, got, 100*tc.want)
		}
		if got := rules.FinalMargin(p, float64(tc.future)/2, 1); got != float64(rules.FinalMargin(p, 0, 1))+float64(rules.FinalMargin(p, tc.future, 1)-rules.FinalMargin(p, 0, 1))/2 {
			t.Errorf("FinalMargin(%s, %g, 1) = %g", tc.pos, float64(tc.future)/2, got)
		}
	}
}

// TestGamePlayTraced: PlayTraced leaves the game as Play does, with the
// sowing that Trace reports, and refuses what Play refuses.
func TestGamePlayTraced(t *testing.T) {
	start, err := rules.NewPosition(6, 4)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := rules.NewGame(start, rules.Rules{})
	b, _ := rules.NewGame(start, rules.Rules{})
	for !a.Over() {
		m := a.LegalMoves()[a.Ply()%len(a.LegalMoves())]
		_, want, err := a.Position().Trace(m, a.Rules())
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Play(m); err != nil {
			t.Fatal(err)
		}
		sw, err := b.PlayTraced(m)
		if err != nil {
			t.Fatal(err)
		}
		if b.Position() != a.Position() || b.Status() != a.Status() || fmt.Sprint(sw) != fmt.Sprint(want) {
			t.Fatalf("after %s: PlayTraced gave %s %v %+v, Play %s %v %+v", m, b.Position(), b.Status(), sw, a.Position(), a.Status(), want)
		}
	}
	m := start.LegalMoves(rules.Rules{})[0]
	if _, err := b.PlayTraced(m); !errors.Is(err, rules.ErrGameOver) {
		t.Errorf("a move after the end: %v", err)
	}
	c, _ := rules.NewGame(start, rules.Rules{})
	empty, _ := rules.ParseMove("A")
	if _, err := c.PlayTraced(empty); err == nil || c.Ply() != 0 {
		t.Errorf("North's move with South to move: %v, %d moves", err, c.Ply())
	}
}
