package api

import (
	mrand "math/rand/v2"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// NewGame is the body of POST /api/games.
type NewGame struct {
	Holes    int     `json:"holes"`    // default 8
	Seeds    int     `json:"seeds"`    // default 4
	Position string  `json:"position"` // a start position instead of holes and seeds
	Variant  string  `json:"variant"`  // default standard
	MaxLaps  int     `json:"maxLaps"`  // default 1000
	First    string  `json:"first"`    // "s" (default), "n" or "random"
	South    *string `json:"south"`    // absent or null: no name
	North    *string `json:"north"`
	Computer *struct {
		Side  string `json:"side"`  // "s" or "n"
		Level int    `json:"level"` // 1 to 10
	} `json:"computer"` // absent for two people on one device
	Series int `json:"series"` // wins that take a series; 0 for a single game

	// An online game: the creator's side and name, and the time control.
	Online bool    `json:"online"`
	Side   string  `json:"side"` // "s", "n" or "random"
	Name   *string `json:"name"`
	Clock  *Clock  `json:"clock"`
}

// Clock is a time control in a request or an answer: minutes for the game
// plus seconds a move, or days for each move.
type Clock struct {
	Minutes   int `json:"minutes"`
	Increment int `json:"increment"`
	Days      int `json:"days"`
}

// Control is the time control c asks for: none for a nil c.
func (c *Clock) Control() (game.Clock, error) {
	if c == nil {
		return game.Clock{}, nil
	}
	return play.Clock(c.Minutes, c.Increment, c.Days)
}

// ParseSide reads "s" or "n" (or the sides' names); what names the field
// in the message.
func ParseSide(s, what string) (rules.Side, error) {
	switch s {
	case "s", "south", "South":
		return rules.South, nil
	case "n", "north", "North":
		return rules.North, nil
	}
	return rules.South, Errorf(StatusBadRequest, "%s %q: want \"s\" or \"n\"", what, s)
}

// SideOrRandom reads "s", "n" or "random" (or nothing, for South).
func SideOrRandom(v, what string) (rules.Side, error) {
	if v == "random" {
		return rules.Side(mrand.IntN(2)), nil
	}
	if v == "" {
		return rules.South, nil
	}
	return ParseSide(v, what)
}

// OptionalName checks a name a request may leave out (nil): one given must
// pass DisplayName. A name refused is a 400 answer.
func OptionalName(name *string, who string) (string, error) {
	if name == nil {
		return "", nil
	}
	out, err := DisplayName(*name, who)
	if err != nil {
		return "", Errorf(StatusBadRequest, "%v", err)
	}
	return out, nil
}

// Game is the game req asks for, its names, rules, start and computer
// checked; and when req asks for a series, the series too.
func (req *NewGame) Game() (*game.Game, error) {
	g := &game.Game{Result: "*"}
	var err error
	if g.South, err = OptionalName(req.South, "South"); err != nil {
		return nil, err
	}
	if g.North, err = OptionalName(req.North, "North"); err != nil {
		return nil, err
	}
	if req.Variant != "" {
		if g.Rules.Variant, err = rules.ParseVariant(req.Variant); err != nil {
			return nil, Errorf(StatusBadRequest, "%v", err)
		}
	}
	if req.MaxLaps < 0 || req.MaxLaps > MaxLaps {
		return nil, Errorf(StatusBadRequest, "maxLaps %d out of range (1 to %d)", req.MaxLaps, MaxLaps)
	}
	g.Rules.MaxLaps = req.MaxLaps
	g.Rules = g.Rules.Canonical()
	if req.Position != "" {
		if req.Holes != 0 || req.Seeds != 0 {
			return nil, Errorf(StatusBadRequest, "give a position or holes and seeds, not both")
		}
		if g.Start, err = rules.ParsePosition(req.Position); err != nil {
			return nil, Errorf(StatusBadRequest, "%v", err)
		}
	} else {
		holes, seeds := orDefault(req.Holes, rules.DefaultHoles), orDefault(req.Seeds, rules.DefaultStartSeeds)
		if g.Start, err = rules.NewPosition(holes, seeds); err != nil {
			return nil, Errorf(StatusBadRequest, "%v", err)
		}
	}
	if req.First != "" {
		first, err := SideOrRandom(req.First, "first")
		if err != nil {
			return nil, err
		}
		if req.Position != "" && first != g.Start.ToMove() {
			return nil, Errorf(StatusBadRequest, "the position says who moves first")
		}
		g.Start = g.Start.WithToMove(first)
	}
	if c := req.Computer; c != nil {
		side, err := ParseSide(c.Side, "computer side")
		if err != nil {
			return nil, err
		}
		if _, err := engine.Level(c.Level); err != nil {
			return nil, Errorf(StatusBadRequest, "computer %v", err)
		}
		g.Computer = &game.Computer{Side: side, Level: c.Level}
	}
	if req.Series != 0 {
		if _, err := rules.NewSeries(req.Series); err != nil {
			return nil, Errorf(StatusBadRequest, "%v", err)
		}
		if req.Position != "" {
			return nil, Errorf(StatusBadRequest, "a series is played from the start: give holes and seeds, not a position")
		}
	}
	if !req.Online && (req.Side != "" || req.Name != nil || req.Clock != nil) {
		return nil, Errorf(StatusBadRequest, "side, name and clock are for online games (\"online\": true)")
	}
	return g, nil
}

// orDefault returns v, or def when v is zero.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// OnlineGame reads the online fields of new game g that req asks for:
// the creator's side, with its name, and the time control.
func (req *NewGame) OnlineGame(g *game.Game) (creator rules.Side, clock game.Clock, err error) {
	switch {
	case req.Computer != nil:
		return 0, clock, Errorf(StatusBadRequest, "an online game is between two people: no computer")
	case req.South != nil || req.North != nil:
		return 0, clock, Errorf(StatusBadRequest, "an online game takes the creator's name in name; the other player gives theirs on joining")
	case req.Position != "":
		return 0, clock, Errorf(StatusBadRequest, "an online game is played from the start: give holes and seeds, not a position")
	}
	if clock, err = req.Clock.Control(); err != nil {
		return 0, clock, err
	}
	if creator, err = SideOrRandom(req.Side, "side"); err != nil {
		return 0, clock, err
	}
	name, err := OptionalName(req.Name, "the creator")
	if err != nil {
		return 0, clock, err
	}
	if creator == rules.South {
		g.South = name
	} else {
		g.North = name
	}
	return creator, clock, nil
}

// Move is the body of POST /api/games/{id}/moves.
type Move struct {
	Move string `json:"move"`
	// Ply, if given, is the number of moves the player saw: a move made
	// on a stale view of the game is refused with 409.
	Ply *int `json:"ply"`
}

// Ply is the body of the requests whose only field is the stale view
// guard: the computer's move and a takeback.
type Ply struct {
	Ply *int `json:"ply"`
}

// Action is the body of POST /api/games/{id}/actions.
type Action struct {
	Action string `json:"action"`
	Ply    *int   `json:"ply"`
}
