package rules_test

import (
	"fmt"

	"github.com/endodoi/endodoi/rules"
)

// Read a position, list the legal moves, play one and watch its laps; then
// play a whole game on a small board.
func Example() {
	r := rules.DefaultRules() // standard variant, at most 1000 laps a move
	p := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	fmt.Println("legal:", p.LegalMoves(r))

	m, _ := rules.ParseMove("c")
	q, err := p.Play(m, r)
	if err != nil {
		panic(err)
	}
	fmt.Println("after c:", q)

	// Trace plays the same move and reports every lap of the relay sowing.
	_, sw, _ := p.Trace(m, r)
	for _, lap := range sw.Laps {
		fmt.Printf("  lift %d from %s, last seed into %s\n",
			lap.Seeds, rules.MoveAt(lap.From, p.Holes()), rules.MoveAt(lap.To, p.Holes()))
	}
	fmt.Printf("  captured %d from %s\n", sw.Captured, rules.MoveAt(sw.CaptureFrom, p.Holes()))

	// A game applies the end rules. Here each side plays its first legal
	// move until the player to move has none; the last mover takes the
	// seeds left on the board.
	start, _ := rules.NewPosition(3, 2)
	g, _ := rules.NewGame(start, r)
	for !g.Over() {
		g.Play(g.LegalMoves()[0])
	}
	south, north := g.Score()
	fmt.Println("game:", g.Moves(), "ends at", g.Position())
	fmt.Printf("%s: %s, %d-%d\n", g.Status(), g.Result(), south, north)
	// Output:
	// legal: [a b c d e f]
	// after c: 6,6,2,7,0,6/1,0,6,6,0,1 n 7 0
	//   lift 4 from c, last seed into A
	//   lift 5 from A, last seed into F
	//   lift 5 from F, last seed into e
	//   lift 6 from e, last seed into E
	//   lift 6 from E, last seed into e
	//   captured 7 from B
	// game: [a B b B a A] ends at 0,0,0/0,0,2 s 4 6
	// no legal move: North wins, 4-8
}

// Errors tell why a move is refused; compare them with errors.Is or ==.
func ExamplePosition_Play() {
	p := rules.MustParsePosition("2,0/2,1 s 0 0")
	for _, s := range []string{"A", "b", "c", "a"} {
		m, _ := rules.ParseMove(s)
		_, err := p.Play(m, rules.DefaultRules())
		fmt.Printf("%s: %v\n", m, err)
	}
	fmt.Println("South can move:", p.HasLegalMove(rules.DefaultRules()))
	// Output:
	// A: wrong side: that hole belongs to the player not to move
	// b: empty hole: there are no seeds to lift
	// c: no such hole on this board
	// a: endless sowing: the sowing does not end within the lap cap
	// South can move: false
}

// A syntax error names the column where it was found.
func ExampleParsePosition() {
	_, err := rules.ParsePosition("4,4,4/4,4,04 s 0 0")
	fmt.Println(err)
	// Output:
	// position "4,4,4/4,4,04 s 0 0": column 11: a seed count "04" has a leading zero
}

// A series runs until one player has won the target number of games; the
// first player alternates and draws count for neither.
func ExampleSeries() {
	s, _ := rules.NewSeries(2)
	for _, r := range []rules.Result{rules.SouthWins, rules.Draw, rules.NorthWins, rules.SouthWins} {
		first := s.NextFirst()
		s.Record(r)
		fmt.Printf("%s first: %s (%d-%d)\n", first, r, s.Wins(rules.South), s.Wins(rules.North))
	}
	w, _ := s.Winner()
	fmt.Println(w, "takes the series")
	// Output:
	// South first: South wins (1-0)
	// North first: draw (1-0)
	// South first: North wins (1-1)
	// North first: South wins (2-1)
	// South takes the series
}
