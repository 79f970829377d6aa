package arena

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// testLimit bounds every match in these tests, so that a hang fails.
const testLimit = 60 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	t.Cleanup(cancel)
	return ctx
}

func mustSpec(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := ParseSpec(s)
	if err != nil {
		t.Fatalf("ParseSpec(%q): %v", s, err)
	}
	return sp
}

// gameRecord is what a recording player saw of one game.
type gameRecord struct {
	start   rules.Position
	opening []rules.Move // the game's first moves when the player first moved
	sides   []rules.Side // the side it moved for, each move
}

// recorder wraps a player and records the games it plays.
type recorder struct {
	Player
	plies int
	mu    sync.Mutex
	games []*gameRecord
}

func (r *recorder) NewGame(ctx context.Context, rl rules.Rules, start rules.Position) error {
	r.mu.Lock()
	r.games = append(r.games, &gameRecord{start: start})
	r.mu.Unlock()
	return r.Player.NewGame(ctx, rl, start)
}

func (r *recorder) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	r.mu.Lock()
	cur := r.games[len(r.games)-1]
	if cur.opening == nil {
		cur.opening = g.Moves()[:r.plies]
	}
	cur.sides = append(cur.sides, g.Position().ToMove())
	r.mu.Unlock()
	return r.Player.Move(ctx, g)
}

// firstMove plays the first legal move in row order.
type firstMove struct{}

func (firstMove) Name() string                                               { return "first" }
func (firstMove) NewGame(context.Context, rules.Rules, rules.Position) error { return nil }
func (firstMove) Close() error                                               { return nil }
func (firstMove) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	return g.LegalMoves()[0], nil
}

// resigner forfeits every game.
type resigner struct{ firstMove }

func (resigner) Name() string { return "resigner" }

func (resigner) Move(context.Context, *rules.Game) (rules.Move, error) {
	return rules.NoMove, errors.New("I resign")
}

func factoryOf(p func() Player) func() (Player, error) {
	return func() (Player, error) { return p(), nil }
}

func TestShortMatch(t *testing.T) {
	r := rules.Rules{}
	var recA, recB *recorder
	newA := func() (Player, error) {
		p, err := mustSpec(t, "depth=2,hash=1").New(r, 1)
		recA = &recorder{Player: p, plies: 2}
		return recA, err
	}
	newB := func() (Player, error) {
		p, err := mustSpec(t, "baseline=2").New(r, 2)
		recB = &recorder{Player: p, plies: 2}
		return recB, err
	}
	var progressed []int
	cfg := Config{Rules: r, Holes: 4, Seeds: 4, Games: 4, OpeningPlies: 2, Seed: 42}
	st, err := Run(testContext(t), cfg, newA, newB, func(s Stats) { progressed = append(progressed, s.Played) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 4 || st.Total != 4 || st.Wins+st.Draws+st.Losses != 4 {
		t.Fatalf("stats %+v: want 4 games counted", st)
	}
	if st.ForfeitsA+st.ForfeitsB != 0 || st.Capped != 0 {
		t.Errorf("unexpected forfeits or capped games: %+v", st)
	}
	if pairs := st.Pairs[0] + st.Pairs[1] + st.Pairs[2] + st.Pairs[3] + st.Pairs[4]; pairs != 2 {
		t.Errorf("pairs %v: want 2 in all", st.Pairs)
	}
	if !slices.Equal(progressed, []int{1, 2, 3, 4}) {
		t.Errorf("progress calls %v, want after each game", progressed)
	}
	start, _ := rules.NewPosition(4, 4)
	if len(recA.games) != 4 || len(recB.games) != 4 {
		t.Fatalf("A saw %d games, B %d: want 4 each", len(recA.games), len(recB.games))
	}
	for i := range 4 {
		a, b := recA.games[i], recB.games[i]
		if a.start != start || b.start != start {
			t.Errorf("game %d: starts %s and %s, want %s", i+1, a.start, b.start, start)
		}
		wantA, wantB := rules.South, rules.North
		if i%2 == 1 {
			wantA, wantB = rules.North, rules.South
		}
		for _, s := range a.sides {
			if s != wantA {
				t.Errorf("game %d: A moved for %s, want %s", i+1, s, wantA)
				break
			}
		}
		for _, s := range b.sides {
			if s != wantB {
				t.Errorf("game %d: B moved for %s, want %s", i+1, s, wantB)
				break
			}
		}
		if len(a.opening) != 2 || !slices.Equal(a.opening, b.opening) {
			t.Errorf("game %d: A and B saw openings %v and %v", i+1, a.opening, b.opening)
		}
	}
	for _, rec := range []*recorder{recA, recB} {
		if !slices.Equal(rec.games[0].opening, rec.games[1].opening) || !slices.Equal(rec.games[2].opening, rec.games[3].opening) {
			t.Errorf("pairs do not share their openings: %v %v %v %v",
				rec.games[0].opening, rec.games[1].opening, rec.games[2].opening, rec.games[3].opening)
		}
	}
	// The same seed gives the same openings.
	o1, _ := Openings(start, r, 5, 2, 42, nil)
	o2, _ := Openings(start, r, 5, 2, 42, nil)
	if !slices.EqualFunc(o1, o2, slices.Equal) || !slices.Equal(o1[0], recA.games[0].opening) || !slices.Equal(o1[1], recA.games[2].opening) {
		t.Errorf("openings not reproducible: %v %v", o1, o2)
	}
}

func TestConcurrentMatch(t *testing.T) {
	r := rules.Rules{Variant: rules.Standard}
	cfg := Config{Rules: r, Holes: 5, Seeds: 3, Games: 10, OpeningPlies: 3, Seed: 7, Concurrency: 2}
	st, err := Run(testContext(t), cfg, mustSpec(t, "baseline=3").Factory(r, 1), mustSpec(t, "level=2,hash=1").Factory(r, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 10 || st.Wins+st.Draws+st.Losses != 10 {
		t.Fatalf("stats %+v: want 10 games counted", st)
	}
	var pairs int
	for _, n := range st.Pairs {
		pairs += n
	}
	if pairs != 5 {
		t.Errorf("pairs %v: want 5 in all", st.Pairs)
	}
}

// sprtStop returns the number of straight losses after which the SPRT
// accepts H0.
func sprtStop(t *testing.T, cfg SPRTConfig) int {
	for n := 1; n < 1000; n++ {
		if cfg.Test(0, 0, n).Verdict == AcceptH0 {
			return n
		}
	}
	t.Fatal("the SPRT never stops on straight losses")
	return 0
}

func TestSPRTStopsScripted(t *testing.T) {
	sprt := &SPRTConfig{Elo0: 0, Elo1: 10}
	want := sprtStop(t, *sprt)
	cfg := Config{Holes: 4, Seeds: 2, Games: 500, OpeningPlies: 1, Seed: 1, SPRT: sprt}
	st, err := Run(testContext(t), cfg, factoryOf(func() Player { return resigner{} }), factoryOf(func() Player { return firstMove{} }), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != want || st.Losses != want || st.ForfeitsA != want {
		t.Errorf("stats %+v: want %d forfeited losses", st, want)
	}
	if st.SPRT == nil || st.SPRT.Verdict != AcceptH0 {
		t.Errorf("SPRT %+v: want H0 accepted", st.SPRT)
	}
	if len(st.ForfeitNotes) != maxForfeitNotes || !strings.Contains(st.ForfeitNotes[0], "I resign") {
		t.Errorf("forfeit notes %q", st.ForfeitNotes)
	}
}

func TestSPRTStopsEngine(t *testing.T) {
	r := rules.Rules{}
	cfg := Config{Rules: r, Holes: 4, Seeds: 3, Games: 400, OpeningPlies: 2, Seed: 3, SPRT: &SPRTConfig{Elo0: 0, Elo1: 20}}
	st, err := Run(testContext(t), cfg, factoryOf(func() Player { return firstMove{} }), mustSpec(t, "depth=4,hash=1").Factory(r, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.SPRT == nil || st.SPRT.Verdict != AcceptH0 || st.Played >= 400 {
		t.Errorf("stats %+v, SPRT %+v: want an early stop with H0 accepted", st, st.SPRT)
	}
	if st.Wins+st.Draws+st.Losses != st.Played || st.Losses <= st.Wins {
		t.Errorf("stats %+v", st)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	r := rules.Rules{}
	cfg := Config{Rules: r, Holes: 4, Seeds: 4, Games: 100, OpeningPlies: 2}
	st, err := Run(ctx, cfg, mustSpec(t, "baseline=2").Factory(r, 1), mustSpec(t, "baseline=3").Factory(r, 2), func(s Stats) {
		if s.Played == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if st.Played != 3 || st.Wins+st.Draws+st.Losses != 3 {
		t.Errorf("stats %+v: want the 3 games finished before the cancellation", st)
	}
}

func TestMaxPlies(t *testing.T) {
	// Two first-move players on a big board with a cap of 3 plies after a
	// 2-ply opening: every game is capped.
	cfg := Config{Holes: 8, Seeds: 4, Games: 2, OpeningPlies: 2, MaxPlies: 5}
	st, err := Run(testContext(t), cfg, factoryOf(func() Player { return firstMove{} }), factoryOf(func() Player { return firstMove{} }), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Capped != 2 || st.Draws != 2 {
		t.Errorf("stats %+v: want 2 capped draws", st)
	}
}

func TestConfigErrors(t *testing.T) {
	f := factoryOf(func() Player { return firstMove{} })
	for _, cfg := range []Config{
		{Games: 0},
		{Games: 2, Holes: 1},
		{Games: 2, Seeds: 13},
		{Games: 2, OpeningPlies: -1},
		{Games: 2, Concurrency: -1},
		{Games: 2, MaxPlies: 2, OpeningPlies: 2},
		{Games: 2, SPRT: &SPRTConfig{Elo0: 5, Elo1: 0}},
		{Games: 2, Rules: rules.Rules{MaxLaps: rules.MaxMaxLaps + 1}},
		// A 2-hole, 1-seed board has no 6-ply opening that leaves the game going.
		{Games: 2, Holes: 2, Seeds: 1, OpeningPlies: 6},
	} {
		if _, err := Run(context.Background(), cfg, f, f, nil); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	bad := func() (Player, error) { return nil, errors.New("no such player") }
	if _, err := Run(context.Background(), Config{Games: 2}, f, bad, nil); err == nil || !strings.Contains(err.Error(), "player B") {
		t.Errorf("factory error: %v", err)
	}
}

func TestParseSpec(t *testing.T) {
	good := []string{
		"level=5", "depth=8", "time=100ms", "nodes=5000", "depth=8,threads=1,hash=16",
		"time=1s,depth=3", " level=1,hash=2 ", "baseline", "baseline=3",
		"cmd=sh -c true", "cmd=sh;depth=3", "cmd=sh;time=50ms;timeout=2s", "cmd=sh;nodes=100",
	}
	for _, s := range good {
		if _, err := ParseSpec(s); err != nil {
			t.Errorf("ParseSpec(%q): %v", s, err)
		}
	}
	bad := []string{
		"", "level=0", "level=11", "level=5,depth=3", "depth=0", "depth=x", "time=0s", "time=fast",
		"nodes=-1", "threads=1", "hash=16", "depth=3,depth=4", "colour=blue", "depth", "baseline=0",
		"baseline=x", "baseline=21", "cmd=", "cmd= ;depth=2", "cmd=sh;depth=0", "cmd=sh;time=500us",
		"cmd=sh;speed=3", "cmd=sh;depth", "cmd=/no/such/program-endodoi",
	}
	for _, s := range bad {
		if _, err := ParseSpec(s); err == nil {
			t.Errorf("ParseSpec(%q) accepted", s)
		}
	}
	sp := mustSpec(t, "cmd=sh -c true;depth=3")
	if !slices.Equal(sp.argv, []string{"sh", "-c", "true"}) || sp.limits.Depth != 3 || sp.timeout != DefaultCmdTimeout {
		t.Errorf("cmd spec parsed as %+v", sp)
	}
	sp = mustSpec(t, "cmd=sh")
	if sp.limits.MoveTime != DefaultCmdMoveTime || sp.timeout != DefaultCmdMoveTime+CmdMargin {
		t.Errorf("cmd spec parsed as %+v", sp)
	}
	if p, err := ParsePlayer("depth=3,hash=1", rules.Rules{}); err != nil || p.Name() != "depth=3,hash=1" {
		t.Errorf("ParsePlayer: %v, %v", p, err)
	}
	if _, err := ParsePlayer("depth=3", rules.Rules{MaxLaps: -5}); err == nil {
		t.Error("ParsePlayer accepted bad rules")
	}
}

// TestLevelSeeds checks that level players made with the same seed play
// alike and the factory's players get different seeds.
func TestLevelSeeds(t *testing.T) {
	r := rules.Rules{}
	sp := mustSpec(t, "level=1,hash=1")
	start, _ := rules.NewPosition(8, 4)
	play := func(p Player) []rules.Move {
		g, _ := rules.NewGame(start, r)
		_ = p.NewGame(context.Background(), r, start)
		for range 12 {
			if g.Over() {
				break
			}
			m, err := p.Move(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			_ = g.Play(m)
		}
		return g.Moves()
	}
	p1, _ := sp.New(r, 9)
	p2, _ := sp.New(r, 9)
	if a, b := play(p1), play(p2); !slices.Equal(a, b) {
		t.Errorf("same seed, different games: %v and %v", a, b)
	}
	f := sp.Factory(r, 9)
	q1, _ := f()
	q2, _ := f()
	if q1.(*enginePlayer).rng.Uint64() == q2.(*enginePlayer).rng.Uint64() {
		t.Error("the factory's players share a seed")
	}
}

func TestBalancedOpenings(t *testing.T) {
	r := rules.DefaultRules()
	start, _ := rules.NewPosition(6, 4)
	accept, err := Balanced(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := Openings(start, r, 20, 2, 7, nil)
	kept, err := Openings(start, r, 20, 2, 7, accept)
	if err != nil {
		t.Fatal(err)
	}
	judge, _ := engine.New(engine.Config{Rules: r, HashMiB: 16})
	balancedIn := func(moves []rules.Move) bool {
		g, _ := rules.NewGame(start, r)
		for _, m := range moves {
			g.Play(m)
		}
		p := g.Position()
		res, _ := judge.Search(context.Background(), p, nil, engine.Limits{Depth: BalanceDepth}, nil)
		final := res.Score + engine.Score(p.Captured(p.ToMove())-p.Captured(p.ToMove().Opponent()))*engine.Seed
		return final >= -2*engine.Seed && final <= 2*engine.Seed
	}
	unbalanced := 0
	for _, o := range all {
		if !balancedIn(o) {
			unbalanced++
		}
	}
	if unbalanced == 0 {
		t.Fatal("every random opening is balanced: the filter cannot be tested")
	}
	for _, o := range kept {
		judge.NewGame()
		if !balancedIn(o) {
			t.Errorf("opening %v kept but not balanced", o)
		}
	}
}
