package rules_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// Hole numbers used in the hand-worked tables below.
//
//	H=2:  a=0 b=1 A=2 B=3             opposite pairs 0-3 1-2
//	H=3:  a=0 b=1 c=2 A=3 B=4 C=5     opposite pairs 0-5 1-4 2-3
//	H=6:  a..f = 0..5, A..F = 6..11   opposite pairs i-(11-i)

func mustPos(t testing.TB, s string) rules.Position {
	t.Helper()
	p, err := rules.ParsePosition(s)
	if err != nil {
		t.Fatalf("ParsePosition(%q): %v", s, err)
	}
	return p
}

func mustMove(t testing.TB, s string) rules.Move {
	t.Helper()
	m, err := rules.ParseMove(s)
	if err != nil {
		t.Fatalf("ParseMove(%q): %v", s, err)
	}
	return m
}

var (
	standard = rules.DefaultRules()
	cross    = rules.Rules{Variant: rules.Cross, MaxLaps: rules.DefaultMaxLaps}
)

// moveCase is a hand-worked move: the position after it, and its laps as
// Trace must report them. Every case was worked out seed by seed on paper;
// the comment of each case shows the working.
type moveCase struct {
	name        string
	r           rules.Rules
	before      string
	move        string
	after       string
	laps        []rules.Lap
	captureFrom int // -1: no capture
	captured    int
}

var moveCases = []moveCase{
	{
		// a(1) -> b, which was empty: the sowing ends in South's own row;
		// the opposite hole B is empty, so nothing is captured (rule 6).
		name: "single seed, opposite empty: no capture", r: standard,
		before: "1,0,0/1,0,1 s 0 0", move: "a",
		after: "0,1,0/1,0,1 n 0 0",
		laps:  []rules.Lap{{From: 0, Seeds: 1, To: 1}}, captureFrom: -1,
	},
	{
		// a(1) -> b (empty, own row); opposite B holds 2: South takes
		// them and the seed that ended the sowing, 3 in all.
		name: "single seed captures the opposite hole", r: standard,
		before: "1,0,0/1,2,1 s 0 0", move: "a",
		after: "0,0,0/1,0,1 n 3 0",
		laps:  []rules.Lap{{From: 0, Seeds: 1, To: 1}}, captureFrom: 4, captured: 3,
	},
	{
		// c(1) -> A: South's last hole is followed by North's first.
		// The sowing ends in North's row: no capture (opposite c is empty
		// anyway once lifted).
		name: "South's last hole sows into North's first", r: standard,
		before: "0,0,1/0,0,0 s 0 0", move: "c",
		after: "0,0,0/1,0,0 n 0 0",
		laps:  []rules.Lap{{From: 2, Seeds: 1, To: 3}}, captureFrom: -1,
	},
	{
		// C(2) -> a, b: North's last hole is followed by South's first
		// (counterclockwise). Ends in b, South's row: no capture.
		name: "North's last hole sows into South's first", r: standard,
		before: "0,0,0/0,0,2 n 0 0", move: "C",
		after: "1,1,0/0,0,0 s 0 0",
		laps:  []rules.Lap{{From: 5, Seeds: 2, To: 1}}, captureFrom: -1,
	},
	{
		// A(1) -> B (empty, North's own row); opposite of B is b with 2:
		// North captures 3.
		name: "North captures in its own row", r: standard,
		before: "0,2,0/1,0,0 n 0 0", move: "A",
		after: "0,0,0/0,0,0 s 0 3",
		laps:  []rules.Lap{{From: 3, Seeds: 1, To: 4}}, captureFrom: 1, captured: 3,
	},
	{
		// c(4) -> A, B, C, a. a was empty: the sowing ends there. a faces
		// North's last hole C (rule 2), which just got a seed: capture 2.
		name: "a faces North's last hole", r: standard,
		before: "0,0,4/0,0,0 s 0 0", move: "c",
		after: "0,0,0/1,1,0 n 2 0",
		laps:  []rules.Lap{{From: 2, Seeds: 4, To: 0}}, captureFrom: 5, captured: 2,
	},
	{
		// a(4) on a 2-hole board: b, A, B, then a itself (rule 3: no
		// skipping). a was emptied by the lift, so the sowing ends there;
		// opposite B holds 1: capture 2.
		name: "lap of exactly 2H seeds ends in its own emptied origin", r: standard,
		before: "4,0/0,0 s 0 0", move: "a",
		after: "0,1/1,0 n 2 0",
		laps:  []rules.Lap{{From: 0, Seeds: 4, To: 0}}, captureFrom: 3, captured: 2,
	},
	{
		// a(5): b1 A1 B1 a1 b2 - the origin gets a seed and the last seed
		// falls into b, which the same lap had filled: relay.
		// b(2): A2 B2 - B held 1: relay. B(2): a2 b1 - b was empty: end,
		// own row; opposite A holds 2: capture 3. Board a2 b0 A0 B0.
		name: "lap passing the origin, then a relay of three laps", r: standard,
		before: "5,0/0,0 s 0 0", move: "a",
		after: "2,0/0,0 n 3 0",
		laps: []rules.Lap{
			{From: 0, Seeds: 5, To: 1},
			{From: 1, Seeds: 2, To: 3},
			{From: 3, Seeds: 2, To: 1},
		},
		captureFrom: 2, captured: 3,
	},
	{
		// a(9): two full rounds (every hole 2, origin included) and b3: relay.
		// b(3): A3 B3 a3 - relay. a(3): b1 A4 B4 - B held 3: relay.
		// B(4): a1 b2 A5 B1 - exactly 2H: ends in its emptied origin B,
		// North's row: no capture.
		name: "several full rounds in one lap", r: standard,
		before: "9,0/0,0 s 0 0", move: "a",
		after: "1,2/5,1 n 0 0",
		laps: []rules.Lap{
			{From: 0, Seeds: 9, To: 1},
			{From: 1, Seeds: 3, To: 0},
			{From: 0, Seeds: 3, To: 3},
			{From: 3, Seeds: 4, To: 3},
		},
		captureFrom: -1,
	},
	{
		// a(8) = two full rounds: every hole 2; the last seed falls into a,
		// which the first round had refilled: relay (an origin is empty
		// only until the lap passes it). a(2): b3 A3 - relay. A(3): B3 a1
		// b4 - relay. b(4): A1 B4 a2 b1 - ends in emptied origin b; A holds
		// 1: capture 2.
		name: "4H seeds: the origin is not empty the second time", r: standard,
		before: "8,0/0,0 s 0 0", move: "a",
		after: "2,0/0,4 n 2 0",
		laps: []rules.Lap{
			{From: 0, Seeds: 8, To: 0},
			{From: 0, Seeds: 2, To: 2},
			{From: 2, Seeds: 3, To: 1},
			{From: 1, Seeds: 4, To: 1},
		},
		captureFrom: 2, captured: 2,
	},
	{
		// The 6-hole start, c: c(4) d5 e5 f5 A5 - relay; A(5) B..F 5 - relay;
		// F(5) a5 b5 c1 d6 e6 - relay; e(6) f6 A1 B6 C6 D6 E6 - relay;
		// E(6) F1 a6 b6 c2 d7 e1 - e was emptied: end in South's row.
		// Opposite of e is B with 6: capture 7.
		name: "relay of five laps from the 6-hole start", r: standard,
		before: "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", move: "c",
		after: "6,6,2,7,0,6/1,0,6,6,0,1 n 7 0",
		laps: []rules.Lap{
			{From: 2, Seeds: 4, To: 6},
			{From: 6, Seeds: 5, To: 11},
			{From: 11, Seeds: 5, To: 4},
			{From: 4, Seeds: 6, To: 10},
			{From: 10, Seeds: 6, To: 4},
		},
		captureFrom: 7, captured: 7,
	},
	{
		// a(1) -> b(1): relay. b(2): c1 A1 - A was empty: end in North's
		// row. Standard: no capture though the opposite c holds a seed.
		name: "standard: no capture in the opponent's row", r: standard,
		before: "1,1,0/0,0,0 s 0 0", move: "a",
		after: "0,0,1/1,0,0 n 0 0",
		laps: []rules.Lap{
			{From: 0, Seeds: 1, To: 1},
			{From: 1, Seeds: 2, To: 3},
		},
		captureFrom: -1,
	},
	{
		// Same move under Cross (rule 12): the sowing ends in A, an empty
		// hole of North's row; opposite c holds 1: South captures 2.
		name: "cross: capture in the opponent's row", r: cross,
		before: "1,1,0/0,0,0 s 0 0", move: "a",
		after: "0,0,0/0,0,0 n 2 0",
		laps: []rules.Lap{
			{From: 0, Seeds: 1, To: 1},
			{From: 1, Seeds: 2, To: 3},
		},
		captureFrom: 2, captured: 2,
	},
	{
		// C(2) -> a, b: ends in b, South's row; opposite B holds 1.
		name: "standard: North does not capture in South's row", r: standard,
		before: "0,0,0/0,1,2 n 0 0", move: "C",
		after: "1,1,0/0,1,0 s 0 0",
		laps:  []rules.Lap{{From: 5, Seeds: 2, To: 1}}, captureFrom: -1,
	},
	{
		name: "cross: North captures in South's row", r: cross,
		before: "0,0,0/0,1,2 n 0 0", move: "C",
		after: "1,0,0/0,0,0 s 0 2",
		laps:  []rules.Lap{{From: 5, Seeds: 2, To: 1}}, captureFrom: 4, captured: 2,
	},
	{
		// Cross: ends in the opponent's row but the opposite hole is empty.
		name: "cross: opposite empty, no capture", r: cross,
		before: "0,0,0/0,0,2 n 0 0", move: "C",
		after: "1,1,0/0,0,0 s 0 0",
		laps:  []rules.Lap{{From: 5, Seeds: 2, To: 1}}, captureFrom: -1,
	},
	{
		// Cross changes nothing in the mover's own row.
		name: "cross: capture in own row as standard", r: cross,
		before: "1,0,0/1,2,1 s 5 6", move: "a",
		after: "0,0,0/1,0,1 n 8 6",
		laps:  []rules.Lap{{From: 0, Seeds: 1, To: 1}}, captureFrom: 4, captured: 3,
	},
	{
		// Captured seeds already in hand are kept and added to.
		name: "captures add to what is in hand", r: standard,
		before: "0,2,0/1,0,0 n 10 20", move: "A",
		after: "0,0,0/0,0,0 s 10 23",
		laps:  []rules.Lap{{From: 3, Seeds: 1, To: 4}}, captureFrom: 1, captured: 3,
	},
}

func TestPlayHandWorked(t *testing.T) {
	for _, tc := range moveCases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPos(t, tc.before)
			m := mustMove(t, tc.move)
			want := mustPos(t, tc.after)

			q, err := p.Play(m, tc.r)
			if err != nil {
				t.Fatalf("%s %s: %v", p, m, err)
			}
			if q != want {
				t.Errorf("Play(%s, %s) = %s, want %s", p, m, q, want)
			}
			if !p.IsLegal(m, tc.r) {
				t.Errorf("IsLegal(%s, %s) = false", p, m)
			}

			qt, sw, err := p.Trace(m, tc.r)
			if err != nil {
				t.Fatalf("Trace: %v", err)
			}
			if qt != want {
				t.Errorf("Trace(%s, %s) position = %s, want %s", p, m, qt, want)
			}
			if sw.Move != m {
				t.Errorf("Sowing.Move = %s, want %s", sw.Move, m)
			}
			if fmt.Sprint(sw.Laps) != fmt.Sprint(tc.laps) {
				t.Errorf("laps = %v, want %v", sw.Laps, tc.laps)
			}
			if sw.End() != tc.laps[len(tc.laps)-1].To {
				t.Errorf("End() = %d, want %d", sw.End(), tc.laps[len(tc.laps)-1].To)
			}
			if sw.CaptureFrom != tc.captureFrom || sw.Captured != tc.captured {
				t.Errorf("capture = hole %d, %d seeds; want hole %d, %d seeds",
					sw.CaptureFrom, sw.Captured, tc.captureFrom, tc.captured)
			}
			if q.Total() != p.Total() {
				t.Errorf("seeds not conserved: %d before, %d after", p.Total(), q.Total())
			}

			// Exactly as many laps as the cap: legal. One fewer: endless.
			n := len(tc.laps)
			r := tc.r
			r.MaxLaps = n
			if got, err := p.Play(m, r); err != nil || got != want {
				t.Errorf("MaxLaps=%d (= laps): Play = %s, %v; want %s", n, got, err, want)
			}
			if _, _, err := p.Trace(m, r); err != nil {
				t.Errorf("MaxLaps=%d (= laps): Trace: %v", n, err)
			}
			if n > 1 {
				r.MaxLaps = n - 1
				if got, err := p.Play(m, r); err != rules.ErrEndless || got != p {
					t.Errorf("MaxLaps=%d (< laps): Play = %s, %v; want %s, ErrEndless", n-1, got, err, p)
				}
				if got, sw, err := p.Trace(m, r); err != rules.ErrEndless || got != p || sw.Laps != nil {
					t.Errorf("MaxLaps=%d (< laps): Trace = %s, %v, %v; want %s, no laps, ErrEndless", n-1, got, sw, err, p)
				}
				if p.IsLegal(m, r) {
					t.Errorf("MaxLaps=%d (< laps): IsLegal = true", n-1)
				}
			}
		})
	}
}

func TestMoveCasesAgreeWithReference(t *testing.T) {
	// The reference model in property_test.go must agree with the hand
	// work too, or the property tests built on it prove nothing.
	for _, tc := range moveCases {
		p := mustPos(t, tc.before)
		got, laps, err := refPlay(p, mustMove(t, tc.move), tc.r)
		if err != nil || got != mustPos(t, tc.after) || laps != len(tc.laps) {
			t.Errorf("%s: reference gives %s in %d laps (%v), want %s in %d", tc.name, got, laps, err, tc.after, len(tc.laps))
		}
	}
}

func TestEndlessMove(t *testing.T) {
	// 2,0/2,1 s: a(2) b1 A3 | A(3) B2 a1 b2 | b(2) A1 B3 | B(3) a2 b1 A2 |
	// A(2) B1 a3 | a(3) b2 A1 B2 | B(2) a1 b3 | b(3) A2 B1 a2 - and now a
	// holds 2 with b 0, A 2, B 1: the start again, about to lift a. The
	// sowing cycles every 8 laps and never ends, whatever the cap.
	p := mustPos(t, "2,0/2,1 s 0 0")
	a := mustMove(t, "a")
	for _, laps := range []int{0, 1, 7, 8, 9, 1000, 100_000} {
		r := rules.Rules{MaxLaps: laps}
		if q, err := p.Play(a, r); err != rules.ErrEndless || q != p {
			t.Errorf("MaxLaps %d: Play = %s, %v; want the position unchanged and ErrEndless", laps, q, err)
		}
		if _, _, err := p.Trace(a, r); !errors.Is(err, rules.ErrEndless) {
			t.Errorf("MaxLaps %d: Trace error %v, want ErrEndless", laps, err)
		}
		// a is South's only non-empty hole: South has no legal move
		// although it has seeds (rule 8).
		if p.HasLegalMove(r) {
			t.Errorf("MaxLaps %d: HasLegalMove = true", laps)
		}
		if ms := p.LegalMoves(r); len(ms) != 0 {
			t.Errorf("MaxLaps %d: LegalMoves = %v", laps, ms)
		}
		if n := rules.Perft(p, 1, r); n != 0 {
			t.Errorf("MaxLaps %d: Perft 1 = %d", laps, n)
		}
	}
	if _, _, err := p.Trace(a, rules.Rules{MaxLaps: 16}); err == nil {
		t.Fatal("cycle of 8 laps ended")
	}
}

func TestLegalMovesDependOnLapCap(t *testing.T) {
	// 1,1/1,0 s: a(1) b2 relay, b(2) A2 B1 end: 2 laps.
	//            b(1) A2 relay, A(2) B1 a2 relay, a(2) b1 A1 end: 3 laps.
	p := mustPos(t, "1,1/1,0 s 0 0")
	for laps, want := range map[int]string{1: "[]", 2: "[a]", 3: "[a b]", 0: "[a b]"} {
		r := rules.Rules{MaxLaps: laps}
		if got := fmt.Sprint(p.LegalMoves(r)); got != want {
			t.Errorf("MaxLaps %d: LegalMoves = %s, want %s", laps, got, want)
		}
		if got := p.HasLegalMove(r); got != (want != "[]") {
			t.Errorf("MaxLaps %d: HasLegalMove = %v", laps, got)
		}
	}
	q, err := p.Play(mustMove(t, "b"), rules.Rules{MaxLaps: 3})
	if err != nil || q.String() != "0,1/1,1 n 0 0" {
		t.Errorf("b with 3 laps: %s, %v; want 0,1/1,1 n 0 0", q, err)
	}
}

func TestPlayErrors(t *testing.T) {
	p := mustPos(t, "1,0,0/1,2,1 s 0 0")
	n := p.WithToMove(rules.North)
	tests := []struct {
		p    rules.Position
		m    rules.Move
		want error
	}{
		{p, mustMove(t, "A"), rules.ErrWrongSide},
		{p, mustMove(t, "C"), rules.ErrWrongSide},
		{n, mustMove(t, "a"), rules.ErrWrongSide},
		{p, mustMove(t, "d"), rules.ErrNoSuchHole},
		{p, mustMove(t, "p"), rules.ErrNoSuchHole},
		{n, mustMove(t, "D"), rules.ErrNoSuchHole},
		{p, mustMove(t, "b"), rules.ErrEmptyHole},
		{p, mustMove(t, "c"), rules.ErrEmptyHole},
		{n, mustMove(t, "B"), nil},
		{mustPos(t, "0,0/1,0 n 0 0"), mustMove(t, "B"), rules.ErrEmptyHole},
		{p, rules.NoMove, rules.ErrInvalidMove},
		{p, rules.Move(0x20), rules.ErrInvalidMove},
		{p, rules.Move(0x40), rules.ErrInvalidMove},
	}
	for _, tc := range tests {
		q, err := tc.p.Play(tc.m, standard)
		if err != tc.want {
			t.Errorf("Play(%s, %s) error = %v, want %v", tc.p, tc.m, err, tc.want)
		}
		if err != nil && q != tc.p {
			t.Errorf("Play(%s, %s) failed but returned %s", tc.p, tc.m, q)
		}
		qt, sw, err := tc.p.Trace(tc.m, standard)
		if err != tc.want {
			t.Errorf("Trace(%s, %s) error = %v, want %v", tc.p, tc.m, err, tc.want)
		}
		if err != nil && (qt != tc.p || sw.Laps != nil) {
			t.Errorf("Trace(%s, %s) failed but returned %s, %v", tc.p, tc.m, qt, sw)
		}
		if got := tc.p.IsLegal(tc.m, standard); got != (tc.want == nil) {
			t.Errorf("IsLegal(%s, %s) = %v", tc.p, tc.m, got)
		}
	}
}

func TestFinalSweepsToLastMover(t *testing.T) {
	tests := []struct{ before, after string }{
		// North to move: South made the last move and takes the board.
		{"0,1/0,0 n 0 0", "0,0/0,0 n 1 0"},
		{"3,0,2/0,0,0 n 4 5", "0,0,0/0,0,0 n 9 5"},
		// South to move: North made the last move.
		{"0,0/0,1 s 2 1", "0,0/0,0 s 2 2"},
		{"2,0/2,1 s 3 4", "0,0/0,0 s 3 9"},
		{"0,0/0,0 s 3 4", "0,0/0,0 s 3 4"},
	}
	for _, tc := range tests {
		p := mustPos(t, tc.before)
		f := p.Final()
		if f.String() != tc.after {
			t.Errorf("Final(%s) = %s, want %s", p, f, tc.after)
		}
		if f.Total() != p.Total() || f.OnBoard() != 0 || f.ToMove() != p.ToMove() {
			t.Errorf("Final(%s) = %s: seeds lost, board not swept or side changed", p, f)
		}
	}
}

func TestNewPosition(t *testing.T) {
	for h := rules.MinHoles; h <= rules.MaxHoles; h++ {
		for s := rules.MinStartSeeds; s <= rules.MaxStartSeeds; s++ {
			p, err := rules.NewPosition(h, s)
			if err != nil {
				t.Fatalf("NewPosition(%d, %d): %v", h, s, err)
			}
			row := strings.TrimSuffix(strings.Repeat(fmt.Sprint(s)+",", h), ",")
			want := row + "/" + row + " s 0 0"
			if p.String() != want {
				t.Errorf("NewPosition(%d, %d) = %s, want %s", h, s, p, want)
			}
			if p.Holes() != h || p.ToMove() != rules.South || p.Total() != 2*h*s ||
				p.OnBoard() != 2*h*s || p.RowSeeds(rules.South) != h*s || p.RowSeeds(rules.North) != h*s {
				t.Errorf("NewPosition(%d, %d): wrong size, side or counts: %s", h, s, p)
			}
			if p != mustPos(t, want) {
				t.Errorf("NewPosition(%d, %d) differs from its parsed notation", h, s)
			}
		}
	}
	p, _ := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	if p.String() != "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0" {
		t.Errorf("default start = %s", p)
	}
	for _, bad := range [][2]int{{1, 4}, {0, 4}, {-1, 4}, {17, 4}, {8, 0}, {8, 13}, {8, -1}, {1, 0}} {
		if p, err := rules.NewPosition(bad[0], bad[1]); err == nil {
			t.Errorf("NewPosition(%d, %d) = %s, want an error", bad[0], bad[1], p)
		}
	}
}

func TestNewPositionFromRows(t *testing.T) {
	p, err := rules.NewPositionFromRows([]int{1, 2, 3}, []int{4, 5, 0}, rules.North, 7, 8)
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != "1,2,3/4,5,0 n 7 8" {
		t.Errorf("got %s", p)
	}
	big := make([]int, 16)
	tests := []struct {
		name         string
		south, north []int
		side         rules.Side
		cs, cn       int
	}{
		{"rows differ", []int{1, 1}, []int{1, 1, 1}, rules.South, 0, 0},
		{"one hole", []int{1}, []int{1}, rules.South, 0, 0},
		{"no holes", nil, nil, rules.South, 0, 0},
		{"17 holes", make([]int, 17), make([]int, 17), rules.South, 0, 0},
		{"negative count", []int{1, -1}, []int{1, 1}, rules.South, 0, 0},
		{"too many seeds", []int{65535, 1}, []int{0, 0}, rules.South, 0, 0},
		{"bad side", []int{1, 1}, []int{1, 1}, rules.Side(2), 0, 0},
		{"negative captured", []int{1, 1}, []int{1, 1}, rules.South, -1, 0},
		{"too many captured", []int{1, 1}, []int{1, 1}, rules.South, 0, rules.MaxTotalSeeds + 1},
		{"too many in all", []int{1, 1}, []int{1, 1}, rules.South, 1, rules.MaxTotalSeeds - 4},
	}
	for _, tc := range tests {
		if p, err := rules.NewPositionFromRows(tc.south, tc.north, tc.side, tc.cs, tc.cn); err == nil {
			t.Errorf("%s: got %s, want an error", tc.name, p)
		}
	}
	big[0] = rules.MaxBoardSeeds
	if _, err := rules.NewPositionFromRows(big, make([]int, 16), rules.South, 1000, rules.MaxTotalSeeds-rules.MaxBoardSeeds-1000); err != nil {
		t.Errorf("largest position refused: %v", err)
	}
}

func TestPositionAccessors(t *testing.T) {
	p := mustPos(t, "1,2,3/4,5,6 n 7 8")
	if p.Holes() != 3 || p.ToMove() != rules.North {
		t.Errorf("Holes %d, ToMove %s", p.Holes(), p.ToMove())
	}
	if fmt.Sprint(p.Row(rules.South), p.Row(rules.North)) != "[1 2 3] [4 5 6]" {
		t.Errorf("rows %v %v", p.Row(rules.South), p.Row(rules.North))
	}
	for i, want := range []int{1, 2, 3, 4, 5, 6} {
		if got := p.SeedsAt(i); got != want {
			t.Errorf("SeedsAt(%d) = %d, want %d", i, got, want)
		}
		if got := p.Seeds(rules.MoveAt(i, 3)); got != want {
			t.Errorf("Seeds(%s) = %d, want %d", rules.MoveAt(i, 3), got, want)
		}
	}
	for _, i := range []int{-1, 6, 31, 32, 1000} {
		if got := p.SeedsAt(i); got != 0 {
			t.Errorf("SeedsAt(%d) = %d, want 0", i, got)
		}
	}
	for _, m := range []rules.Move{mustMove(t, "d"), mustMove(t, "D"), mustMove(t, "p"), rules.NoMove} {
		if got := p.Seeds(m); got != 0 {
			t.Errorf("Seeds(%s) = %d, want 0", m, got)
		}
	}
	if p.Captured(rules.South) != 7 || p.Captured(rules.North) != 8 {
		t.Errorf("captured %d %d", p.Captured(rules.South), p.Captured(rules.North))
	}
	if p.OnBoard() != 21 || p.RowSeeds(rules.South) != 6 || p.RowSeeds(rules.North) != 15 || p.Total() != 36 {
		t.Errorf("OnBoard %d, rows %d %d, Total %d", p.OnBoard(), p.RowSeeds(rules.South), p.RowSeeds(rules.North), p.Total())
	}
	s := p.WithToMove(rules.South)
	if s.ToMove() != rules.South || s.String() != "1,2,3/4,5,6 s 7 8" || p.ToMove() != rules.North {
		t.Errorf("WithToMove: %s (original %s)", s, p)
	}
	if s == p {
		t.Error("positions differing in the side to move compare equal")
	}
	if got := string(p.AppendText([]byte("pos: "))); got != "pos: 1,2,3/4,5,6 n 7 8" {
		t.Errorf("AppendText = %q", got)
	}
}

func TestOppositeHoles(t *testing.T) {
	// Rule 2: hole i faces hole 2H-1-i, so a faces North's last hole.
	// Check every hole of every board size through a one-seed capture:
	// a seed lifted from the hole before i ends in i (emptied beforehand),
	// and exactly the hole opposite i is captured.
	for h := rules.MinHoles; h <= rules.MaxHoles; h++ {
		size := 2 * h
		for i := 0; i < size; i++ {
			from := (i - 1 + size) % size
			rows := make([]int, size)
			for j := range rows {
				rows[j] = 1
			}
			rows[i] = 0
			owner := rules.Side(i / h)
			mover := rules.Side(from / h)
			if owner != mover {
				continue // the capture would not happen in the standard game
			}
			p, err := rules.NewPositionFromRows(rows[:h], rows[h:], mover, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			q, sw, err := p.Trace(rules.MoveAt(from, h), standard)
			if err != nil {
				t.Fatalf("H=%d hole %d: %v", h, i, err)
			}
			if sw.End() != i || sw.CaptureFrom != size-1-i || sw.Captured != 2 {
				t.Errorf("H=%d: ending in hole %d captured hole %d (%d seeds), want hole %d",
					h, i, sw.CaptureFrom, sw.Captured, size-1-i)
			}
			if q.SeedsAt(size-1-i) != 0 || q.SeedsAt(i) != 0 || q.Captured(mover) != 2 {
				t.Errorf("H=%d hole %d: after capture %s", h, i, q)
			}
		}
	}
}

func TestParsePositionValid(t *testing.T) {
	for _, s := range []string{
		"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0",
		"0,0/0,0 n 0 0",
		"0,10,100/1000,10000,0 n 999988765 123",
		"65535,0/0,0 s 0 0",
		"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1/2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2 n 5 0",
	} {
		p, err := rules.ParsePosition(s)
		if err != nil {
			t.Errorf("ParsePosition(%q): %v", s, err)
			continue
		}
		if p.String() != s {
			t.Errorf("ParsePosition(%q).String() = %q", s, p.String())
		}
		b, err := p.MarshalText()
		if err != nil || string(b) != s {
			t.Errorf("MarshalText = %q, %v", b, err)
		}
		var q rules.Position
		if err := q.UnmarshalText([]byte(s)); err != nil || q != p {
			t.Errorf("UnmarshalText(%q) = %s, %v", s, q, err)
		}
	}
	p := mustPos(t, "1,2/3,4 n 5 6")
	if fmt.Sprint(p.Row(rules.South), p.Row(rules.North), p.ToMove(), p.Captured(rules.South), p.Captured(rules.North)) !=
		"[1 2] [3 4] North 5 6" {
		t.Errorf("fields of 1,2/3,4 n 5 6 read wrong: %v %v %v", p.Row(rules.South), p.Row(rules.North), p.ToMove())
	}
}

func TestParsePositionErrors(t *testing.T) {
	row16 := strings.TrimSuffix(strings.Repeat("1,", 16), ",")
	tests := []struct {
		in     string
		column int    // 1-based
		msg    string // a fragment of the message
	}{
		{"", 1, "found the end"},
		{"4,4/4,4", 8, "side to move"},
		{"4,4/4,4 ", 9, "side to move"},
		{"4,4 4,4 s 0 0", 4, "want '/'"},
		{"4;4/4,4 s 0 0", 2, "want ',' or '/'"},
		{"4,,4/4,4 s 0 0", 3, "found ','"},
		{",4/4,4 s 0 0", 1, "found ','"},
		{"4,4/,4 s 0 0", 5, "found ','"},
		{"4,4/4,4,4 s 0 0", 9, "rows differ"},
		{"4,4,4/4,4 s 0 0", 9, "rows differ"},
		{"4/4 s 0 0", 1, "at least 2 holes"},
		{"04,4/4,4 s 0 0", 1, "leading zero"},
		{"4,4/4,00 s 0 0", 7, "leading zero"},
		{"4,4/4,4 s 00 0", 11, "leading zero"},
		{"4,4/4,4 s 0 01", 13, "leading zero"},
		{"+4,4/4,4 s 0 0", 1, "found '+'"},
		{"4,4/4,4 s -1 0", 11, "found '-'"},
		{"4,4/4,4 x 0 0", 9, "s (South) or n (North)"},
		{"4,4/4,4 S 0 0", 9, "s (South) or n (North)"},
		{"4,4/4,4  s 0 0", 9, "s (South) or n (North)"},
		{"4,4/4,4\ts 0 0", 8, "side to move"},
		{"4,4/4,4 s", 10, "South's captured"},
		{"4,4/4,4 s 0", 12, "North's captured"},
		{"4,4/4,4 s 0  0", 13, "found ' '"},
		{"4,4/4,4 s 0 0 ", 14, "unexpected"},
		{"4,4/4,4 s 0 0\n", 14, "unexpected"},
		{"4,4/4,4 s 0 0 0", 14, "unexpected"},
		{"4,4/4,4/4,4 s 0 0", 8, "side to move"},
		{"65536,0/0,0 s 0 0", 1, "too large"},
		{"99999999999999999999999,0/0,0 s 0 0", 1, "too large"},
		{"65535,1/0,0 s 0 0", 7, "more than 65535 seeds"},
		{"30000,30000/5000,536 s 0 0", 18, "more than 65535 seeds"},
		{"4,4/4,4 s 1000000000 0", 11, "too large"},
		{"4,4/4,4 s 0 1000000000", 13, "too large"},
		{row16 + ",1/" + row16 + " s 0 0", 33, "more than 16 holes"},
		{row16 + "/" + row16 + ",1 s 0 0", 65, "more than 16 holes"},
		{"4,4/4,4 s 0 0x", 14, "unexpected"},
		{"４,4/4,4 s 0 0", 1, "want a seed count"},
	}
	for _, tc := range tests {
		p, err := rules.ParsePosition(tc.in)
		if err == nil {
			t.Errorf("ParsePosition(%q) = %s, want an error", tc.in, p)
			continue
		}
		if p != (rules.Position{}) {
			t.Errorf("ParsePosition(%q) failed but returned %s", tc.in, p)
		}
		var pe *rules.PositionError
		if !errors.As(err, &pe) {
			t.Errorf("ParsePosition(%q) error %T is not a *PositionError", tc.in, err)
			continue
		}
		if pe.Input != tc.in || pe.Column != tc.column {
			t.Errorf("ParsePosition(%q): column %d (input %q), want column %d: %v", tc.in, pe.Column, pe.Input, tc.column, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("column %d:", tc.column)) {
			t.Errorf("ParsePosition(%q): message %q does not mention column %d", tc.in, err, tc.column)
		}
		if !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("ParsePosition(%q): message %q does not say %q", tc.in, pe.Msg, tc.msg)
		}
		var q rules.Position
		if q.UnmarshalText([]byte(tc.in)) == nil {
			t.Errorf("UnmarshalText(%q) accepted it", tc.in)
		}
	}
}

func TestMustParsePositionPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParsePosition of a bad position did not panic")
		}
	}()
	rules.MustParsePosition("4,4/4 s 0 0")
}

func TestPositionMarshalZero(t *testing.T) {
	if b, err := (rules.Position{}).MarshalText(); err == nil {
		t.Errorf("MarshalText of the zero Position = %q, want an error", b)
	}
}

func TestMoveNotation(t *testing.T) {
	for col := 0; col < rules.MaxHoles; col++ {
		for _, s := range []rules.Side{rules.South, rules.North} {
			m := rules.NewMove(s, col)
			letter := string(rune('a' + col))
			if s == rules.North {
				letter = string(rune('A' + col))
			}
			if m.String() != letter || m.Side() != s || m.Column() != col {
				t.Errorf("NewMove(%s, %d) = %s (side %s, column %d)", s, col, m, m.Side(), m.Column())
			}
			if got, err := rules.ParseMove(letter); err != nil || got != m {
				t.Errorf("ParseMove(%q) = %s, %v", letter, got, err)
			}
			b, err := m.MarshalText()
			if err != nil || string(b) != letter {
				t.Errorf("MarshalText(%s) = %q, %v", m, b, err)
			}
			var u rules.Move
			if err := u.UnmarshalText(b); err != nil || u != m {
				t.Errorf("UnmarshalText(%q) = %s, %v", b, u, err)
			}
			for h := col + 1; h <= rules.MaxHoles; h++ {
				if h < rules.MinHoles {
					continue
				}
				i := m.Index(h)
				if i != int(s)*h+col || rules.MoveAt(i, h) != m {
					t.Errorf("H=%d: %s.Index = %d, MoveAt back = %s", h, m, i, rules.MoveAt(i, h))
				}
			}
		}
	}
	for _, bad := range []string{"", "q", "Q", "z", "Z", "ab", "aa", "1", "-", " a", "a ", "é", "\x00"} {
		m, err := rules.ParseMove(bad)
		if err == nil {
			t.Errorf("ParseMove(%q) = %s, want an error", bad, m)
		}
		if m != rules.NoMove {
			t.Errorf("ParseMove(%q) failed but returned %v", bad, m)
		}
		var u rules.Move = 3
		if u.UnmarshalText([]byte(bad)) == nil || u != 3 {
			t.Errorf("UnmarshalText(%q) accepted it or changed the move", bad)
		}
	}
	for _, m := range []rules.Move{rules.NoMove, 0x20, 0x3F, 0x80} {
		if m.String() != "-" {
			t.Errorf("Move(%#x).String() = %q, want -", uint8(m), m.String())
		}
		if b, err := m.MarshalText(); err == nil {
			t.Errorf("Move(%#x).MarshalText() = %q, want an error", uint8(m), b)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewMove(South, 16) did not panic")
			}
		}()
		rules.NewMove(rules.South, rules.MaxHoles)
	}()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewMove(North, -1) did not panic")
			}
		}()
		rules.NewMove(rules.North, -1)
	}()
}

func TestVariantNotation(t *testing.T) {
	if fmt.Sprint(rules.Variants()) != "[standard cross]" {
		t.Errorf("Variants() = %v", rules.Variants())
	}
	for in, want := range map[string]rules.Variant{
		"standard": rules.Standard, "STANDARD": rules.Standard, " Standard ": rules.Standard,
		"endodoi": rules.Standard, "en-dodoi": rules.Standard, "default": rules.Standard,
		"cross": rules.Cross, "Cross": rules.Cross, "cross-endodoi": rules.Cross, "CrossEndodoi": rules.Cross,
	} {
		if got, err := rules.ParseVariant(in); err != nil || got != want {
			t.Errorf("ParseVariant(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "crosss", "std", "standard cross", "2"} {
		if v, err := rules.ParseVariant(bad); err == nil {
			t.Errorf("ParseVariant(%q) = %v, want an error", bad, v)
		} else if !strings.Contains(err.Error(), "standard, cross") {
			t.Errorf("ParseVariant(%q) error %q does not list the variants", bad, err)
		}
	}
	for _, v := range rules.Variants() {
		b, err := v.MarshalText()
		if err != nil || string(b) != v.String() {
			t.Errorf("%v.MarshalText() = %q, %v", v, b, err)
		}
		var u rules.Variant
		if err := u.UnmarshalText(b); err != nil || u != v {
			t.Errorf("UnmarshalText(%q) = %v, %v", b, u, err)
		}
		if v.Summary() == "" {
			t.Errorf("%v has no summary", v)
		}
	}
	var u rules.Variant = rules.Cross
	if u.UnmarshalText([]byte("nope")) == nil || u != rules.Cross {
		t.Errorf("UnmarshalText(nope) accepted it or changed the variant")
	}
	bad := rules.Variant(7)
	if bad.String() != "Variant(7)" || bad.Summary() != "" {
		t.Errorf("Variant(7): %q, %q", bad.String(), bad.Summary())
	}
	if b, err := bad.MarshalText(); err == nil {
		t.Errorf("Variant(7).MarshalText() = %q, want an error", b)
	}
}

func TestRulesParameters(t *testing.T) {
	var zero rules.Rules
	if zero.Laps() != rules.DefaultMaxLaps || zero.Validate() != nil || zero.String() != "standard, max 1000 laps" {
		t.Errorf("zero Rules: laps %d, validate %v, %q", zero.Laps(), zero.Validate(), zero.String())
	}
	d := rules.DefaultRules()
	if d.Variant != rules.Standard || d.MaxLaps != rules.DefaultMaxLaps || d.Laps() != 1000 {
		t.Errorf("DefaultRules() = %+v", d)
	}
	c := rules.Rules{Variant: rules.Cross, MaxLaps: 7}
	if c.Laps() != 7 || c.String() != "cross, max 7 laps" || c.Validate() != nil {
		t.Errorf("%+v: laps %d, %q, %v", c, c.Laps(), c.String(), c.Validate())
	}
	for _, ok := range []rules.Rules{{MaxLaps: 1}, {MaxLaps: rules.MaxMaxLaps}, {Variant: rules.Cross}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", ok, err)
		}
	}
	for _, bad := range []rules.Rules{{MaxLaps: -1}, {MaxLaps: rules.MaxMaxLaps + 1}, {Variant: 2}, {Variant: 255}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
	// Zero MaxLaps plays as the default cap.
	p := mustPos(t, "5,0/0,0 s 0 0")
	a := mustMove(t, "a")
	q1, err1 := p.Play(a, rules.Rules{})
	q2, err2 := p.Play(a, rules.DefaultRules())
	if q1 != q2 || err1 != err2 {
		t.Errorf("zero Rules plays differently from DefaultRules")
	}
}

func TestSideAndStatusNames(t *testing.T) {
	if rules.South.String() != "South" || rules.North.String() != "North" ||
		rules.South.Letter() != 's' || rules.North.Letter() != 'n' ||
		rules.South.Opponent() != rules.North || rules.North.Opponent() != rules.South {
		t.Error("side names or opponents wrong")
	}
	for s, want := range map[rules.Status]string{
		rules.InProgress: "in progress", rules.NoLegalMove: "no legal move", rules.Repetition: "third repetition",
	} {
		if s.String() != want {
			t.Errorf("Status %d = %q, want %q", s, s.String(), want)
		}
	}
	for r, want := range map[rules.Result]string{
		rules.Unfinished: "unfinished", rules.SouthWins: "South wins", rules.NorthWins: "North wins", rules.Draw: "draw",
	} {
		if r.String() != want {
			t.Errorf("Result %d = %q, want %q", r, r.String(), want)
		}
	}
	for r, want := range map[rules.Result]string{
		rules.Unfinished: "South false", rules.SouthWins: "South true", rules.NorthWins: "North true", rules.Draw: "South false",
	} {
		s, ok := r.Winner()
		if got := fmt.Sprint(s, " ", ok); got != want {
			t.Errorf("%v.Winner() = %s, want %s", r, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	type saved struct {
		Variant  rules.Variant
		Position rules.Position
		Moves    []rules.Move
	}
	in := saved{rules.Cross, mustPos(t, "1,0,0/1,2,1 s 0 0"), []rules.Move{mustMove(t, "a"), mustMove(t, "C")}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"Variant":"cross","Position":"1,0,0/1,2,1 s 0 0","Moves":["a","C"]}`
	if string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	var out saved
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Variant != in.Variant || out.Position != in.Position || fmt.Sprint(out.Moves) != fmt.Sprint(in.Moves) {
		t.Errorf("json round trip: %+v, want %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"Position":"1,0/1 s 0 0"}`), &out); err == nil {
		t.Error("json accepted a bad position")
	}
}

func TestPerftSmall(t *testing.T) {
	p := mustPos(t, "2,2/2,2 s 0 0")
	if rules.Perft(p, 0, standard) != 1 || rules.Perft(p, -1, standard) != 1 {
		t.Error("Perft at depth 0 is not 1")
	}
	counts := make([]uint64, 5)
	rules.PerftCounts(p, standard, counts)
	for d := range counts {
		if counts[d] != rules.Perft(p, d, standard) {
			t.Errorf("PerftCounts[%d] = %d, Perft = %d", d, counts[d], rules.Perft(p, d, standard))
		}
	}
	one := make([]uint64, 1)
	rules.PerftCounts(p, standard, one)
	if one[0] != 1 {
		t.Errorf("PerftCounts with one slot = %v", one)
	}
	rules.PerftCounts(p, standard, nil) // must not panic
	// Depth 2 by hand from the hand-worked moves: perft counts replies.
	var sum uint64
	for _, m := range p.LegalMoves(standard) {
		q, _ := p.Play(m, standard)
		sum += uint64(len(q.LegalMoves(standard)))
	}
	if got := rules.Perft(p, 2, standard); got != sum {
		t.Errorf("Perft 2 = %d, sum of replies %d", got, sum)
	}
}

// TestDocExamples checks the worked examples of docs/rules.md.
func TestDocExamples(t *testing.T) {
	start := mustPos(t, "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	openings := map[string]string{ // "All six opening moves"
		"a": "2,7,0,6,1,6/6,6,0,0,6,6 n 2 0",
		"b": "6,2,7,0,6,1/6,6,0,0,1,6 n 7 0",
		"c": "6,6,2,7,0,6/1,0,6,6,0,1 n 7 0",
		"d": "1,6,6,2,7,0/0,1,6,6,6,0 n 7 0",
		"e": "0,1,6,6,2,7/1,6,1,6,6,6 n 0 0",
		"f": "6,0,1,6,6,2/7,1,6,1,6,6 n 0 0",
	}
	for m, want := range openings {
		q, sw, err := start.Trace(mustMove(t, m), standard)
		if err != nil || q.String() != want || len(sw.Laps) != 5 {
			t.Errorf("opening %s: %s in %d laps (%v), want %s in 5", m, q, len(sw.Laps), err, want)
		}
	}
	// Example 2: e, with the laps and the board after each lap.
	e := mustMove(t, "e")
	_, sw, _ := start.Trace(e, standard)
	if fmt.Sprint(sw.Laps) != "[{4 4 8} {8 5 1} {1 5 6} {6 6 0} {0 6 6}]" {
		t.Errorf("example 2 laps %v", sw.Laps)
	}
	for k, want := range []string{
		"4,4,4,4,0,5/5,5,5,4,4,4", "5,5,4,4,0,5/5,5,0,5,5,5", "5,0,5,5,1,6/6,5,0,5,5,5",
		"6,0,5,5,1,6/0,6,1,6,6,6", "0,1,6,6,2,7/1,6,1,6,6,6",
	} {
		// Rebuild the board after lap k+1 from the first k+1 laps.
		b := board(start)
		for _, lap := range sw.Laps[:k+1] {
			b[lap.From] = 0
			for i, pos := 0, lap.From; i < lap.Seeds; i++ {
				pos = (pos + 1) % 12
				b[pos]++
			}
		}
		got, _ := rules.NewPositionFromRows(b[:6], b[6:], rules.South, 0, 0)
		if s, _, _ := strings.Cut(got.String(), " "); s != want {
			t.Errorf("example 2, board after lap %d: %s, want %s", k+1, s, want)
		}
	}
	if q, _ := start.Play(e, cross); q.String() != "0,1,6,6,2,0/0,6,1,6,6,6 n 8 0" {
		t.Errorf("example 2 under cross: %s", q)
	}
	// Small examples.
	for _, tc := range [][3]string{
		{"6,0,0/0,0,1 s 0 0", "a", "0,1,1/1,1,0 n 3 0"},
		{"1,0,0/1,0,0 s 0 0", "a", "0,1,0/1,0,0 n 0 0"},
	} {
		if q, err := mustPos(t, tc[0]).Play(mustMove(t, tc[1]), standard); err != nil || q.String() != tc[2] {
			t.Errorf("%s %s: %s, %v; want %s", tc[0], tc[1], q, err, tc[2])
		}
	}
	g := mustGame(t, "2,0/2,1 s 0 0", standard)
	wantScore(t, g, 0, 5, rules.NorthWins)
}

// TestPlayStaysWithinNotationLimits: docs/rules.md says any position within
// the notation's limits may be set up and that the notation is exact. A
// legal move from such a position must then give a position that prints to
// notation which reads back. The total of board and captured seeds is
// bounded by MaxTotalSeeds, and moves conserve it, so captures near the
// limit still print and read back.
func TestPlayStaysWithinNotationLimits(t *testing.T) {
	if _, err := rules.ParsePosition("1,0,0/1,2,1 s 999999999 0"); err == nil {
		t.Errorf("a position with more than MaxTotalSeeds seeds in all was accepted")
	}
	for _, tc := range []struct{ pos, move string }{
		{"1,0,0/1,2,1 s 999999994 0", "a"}, // captures 3
		{"0,2,0/1,0,0 n 0 999999995", "A"}, // captures 3
	} {
		p := mustPos(t, tc.pos)
		q, err := p.Play(mustMove(t, tc.move), standard)
		if err != nil {
			// Refusing the move would be one consistent answer.
			continue
		}
		if _, err := rules.ParsePosition(q.String()); err != nil {
			t.Errorf("%s %s gives %s, which does not read back: %v", p, tc.move, q, err)
		}
	}
	// The end-of-game sweep likewise.
	p := mustPos(t, "0,5/0,0 n 999999994 0")
	if _, err := rules.ParsePosition(p.Final().String()); err != nil {
		t.Errorf("Final(%s) = %s, which does not read back: %v", p, p.Final(), err)
	}
}
