package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// seriesGame is one game of a series as the store lists it: its result
// token, and for an online game how it ended when not by the rules of
// play.
type seriesGame struct {
	result string
	end    string // online only: "resign", "timeout", "agreed", "aborted", "expired"
}

// storedSeries makes the stored series of games, whose first player
// alternates from South (docs/rules.md, rule 11): game i is begun by South
// when i is even, by North when odd, draws included. Each game has an odd
// number of moves, so that the side to move at its end is the one that did
// not begin.
func storedSeries(target int, games []seriesGame) *game.Series {
	sr := &game.Series{ID: "0123456789abcdef", Target: target}
	for i, g := range games {
		first := rules.Side(i % 2)
		sr.Games = append(sr.Games, game.Summary{
			ID: fmt.Sprintf("%016x", i+1), Holes: 6, Moves: 2*i + 1, ToMove: first.Opponent(),
			Result: g.result, SeriesID: sr.ID, Online: g.end != "", End: g.end,
		})
	}
	return sr
}

// TestSeriesTally checks the tally of newSeriesView against the series
// rules (docs/rules.md, rules 11 and 13): a win counts for its side,
// whoever began the game, since the players keep their rows; a draw
// counts for neither; an unfinished or aborted game counts for no one; a
// game lost on time, by resignation or by expiry counts for the opponent;
// the first side to reach the target wins the series.
func TestSeriesTally(t *testing.T) {
	for _, tc := range []struct {
		name         string
		target       int
		games        []seriesGame
		south, north int
		draws        int
		over         bool
		winner       string
	}{
		{name: "no game yet", target: 3},
		{name: "first game in play", target: 3, games: []seriesGame{{result: "*"}}},
		{name: "a win each and a draw, whoever began",
			target: 3, games: []seriesGame{{result: "1-0"}, {result: "0-1"}, {result: "1/2-1/2"}, {result: "*"}},
			south: 1, north: 1, draws: 1},
		{name: "each side wins the games the other began", target: 3,
			games: []seriesGame{{result: "0-1"}, {result: "1-0"}, {result: "0-1"}, {result: "1-0"}},
			south: 2, north: 2},
		{name: "South reaches the target", target: 3,
			games: []seriesGame{{result: "1-0"}, {result: "0-1"}, {result: "1-0"}, {result: "1/2-1/2"}, {result: "1-0"}},
			south: 3, north: 1, draws: 1, over: true, winner: "s"},
		{name: "North reaches the target of two", target: 2,
			games: []seriesGame{{result: "0-1"}, {result: "1/2-1/2"}, {result: "1/2-1/2"}, {result: "0-1"}},
			north: 2, draws: 2, over: true, winner: "n"},
		{name: "draws alone never end it", target: 1,
			games: []seriesGame{{result: "1/2-1/2"}, {result: "1/2-1/2"}, {result: "1/2-1/2"}},
			draws: 3},
		{name: "one win takes a series of one", target: 1,
			games: []seriesGame{{result: "1/2-1/2"}, {result: "1-0"}},
			south: 1, draws: 1, over: true, winner: "s"},
		{name: "online: time, resignation and expiry count for the opponent, agreement for neither, an abort for no one",
			target: 3, games: []seriesGame{
				{result: "0-1", end: "timeout"}, {result: "1-0", end: "resign"}, {result: "1/2-1/2", end: "agreed"},
				{result: "*", end: "aborted"}, {result: "0-1", end: "expired"}, {result: "1-0"},
			},
			south: 2, north: 2, draws: 1},
		{name: "a token the store should not hold counts for no one", target: 3,
			games: []seriesGame{{result: "1-0"}, {result: "2-0"}, {result: ""}},
			south: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := storedSeries(tc.target, tc.games)
			v := api.NewSeries(sr, play.TallyOf(sr))
			if v.Wins.South != tc.south || v.Wins.North != tc.north || v.Draws != tc.draws {
				t.Errorf("tally South %d, North %d, draws %d; want %d, %d, %d", v.Wins.South, v.Wins.North, v.Draws, tc.south, tc.north, tc.draws)
			}
			if v.Over != tc.over || v.Winner != tc.winner {
				t.Errorf("over %t, winner %q; want %t, %q", v.Over, v.Winner, tc.over, tc.winner)
			}
			var results []string
			for _, g := range tc.games {
				results = append(results, g.result)
			}
			if v.ID != sr.ID || v.Target != tc.target || len(v.Results) != len(tc.games) || !slices.Equal(v.Results, results) {
				t.Errorf("view %+v; want ID %s, target %d, results %q", v, sr.ID, tc.target, results)
			}
			if v.Games != nil {
				t.Errorf("the tally lists the games: %+v", v.Games)
			}
			// The JSON always has a list of results, empty for no game.
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if list, ok := back["results"].([]any); !ok || len(list) != len(tc.games) {
				t.Errorf("JSON results %v in %s", back["results"], b)
			}
		})
	}
}
