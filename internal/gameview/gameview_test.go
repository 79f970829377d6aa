package gameview

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// TestNewBoard plays random games to their end and checks the view of
// every one of their positions against the game itself.
func TestNewBoard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, holes := range []int{4, 6, 8} {
		start, err := rules.NewPosition(holes, 2)
		if err != nil {
			t.Fatal(err)
		}
		g, err := rules.NewGame(start, rules.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		var sowings []rules.Sowing
		for {
			v := NewBoard(g, sowings)
			if len(v.Positions) != g.Ply()+1 || len(v.Moves) != g.Ply() || len(v.Sowings) != len(sowings) {
				t.Fatalf("%d holes, ply %d: %d positions, %d moves, %d sowings", holes, g.Ply(), len(v.Positions), len(v.Moves), len(v.Sowings))
			}
			for i, p := range v.Positions {
				if p != g.PositionAt(i).String() {
					t.Fatalf("%d holes: position %d is %s, want %s", holes, i, p, g.PositionAt(i))
				}
			}
			if south, north := g.Score(); v.Score != (Score{south, north}) || v.Result != g.Result().Token() ||
				v.Position != g.Position().String() || v.Holes != holes {
				t.Fatalf("%d holes, ply %d: %+v", holes, g.Ply(), v)
			}
			if g.Over() {
				if v.Status == "playing" || len(v.LegalMoves) != 0 {
					t.Errorf("%d holes: over as %s with %d legal moves", holes, v.Status, len(v.LegalMoves))
				}
				break
			}
			legal := g.LegalMoves()
			if v.Status != "playing" || len(v.LegalMoves) != len(legal) {
				t.Fatalf("%d holes, ply %d: %s, legal %v", holes, g.Ply(), v.Status, v.LegalMoves)
			}
			sw, err := g.PlayTraced(legal[rng.IntN(len(legal))])
			if err != nil {
				t.Fatal(err)
			}
			sowings = append(sowings, sw)
			got := NewSowing(sw)
			if got.Move != sw.Move.String() || len(got.Laps) != len(sw.Laps) || got.CaptureFrom != sw.CaptureFrom || got.Captured != sw.Captured {
				t.Fatalf("sowing %+v of %+v", got, sw)
			}
			for i, l := range sw.Laps {
				if got.Laps[i] != (Lap{l.From, l.Seeds, l.To}) {
					t.Fatalf("lap %d: %+v of %+v", i, got.Laps[i], l)
				}
			}
		}
	}
}

// TestEmptyListsAreArrays: a game with no moves shows its lists as empty
// arrays, never null, which the page reads without a check.
func TestEmptyListsAreArrays(t *testing.T) {
	start, _ := rules.NewPosition(6, 4)
	g, err := rules.NewGame(start, rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(NewBoard(g, nil))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "null") || !strings.Contains(string(out), `"moves":[]`) || !strings.Contains(string(out), `"sowings":[]`) {
		t.Errorf("a new game: %s", out)
	}
	out, err = json.Marshal(NewSowing(rules.Sowing{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"laps":[]`) {
		t.Errorf("a sowing without laps: %s", out)
	}
}

func TestStatusName(t *testing.T) {
	for s, want := range map[rules.Status]string{rules.InProgress: "playing", rules.NoLegalMove: "no-legal-move", rules.Repetition: "repetition"} {
		if got := StatusName(s); got != want {
			t.Errorf("StatusName(%v) = %q, want %q", s, got, want)
		}
	}
}
