package terminal

// The play command's options (endodoi play): what they set of a Config,
// read and checked here so that the command only wires them.

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// DefaultLevel is the engine's level unless the options say.
const DefaultLevel = 5

// Flags are the play command's options, but the rules'.
type Flags struct {
	fs                          *flag.FlagSet
	level, holes, seeds         *int
	position, side, first, save *string
	twoPlayers, laps            *bool
}

// AddFlags defines the play command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	f.level = fs.Int("level", DefaultLevel, fmt.Sprintf("the engine's strength, %d (beginner) to %d (strongest)", engine.MinLevel, engine.MaxLevel))
	f.holes = fs.Int("holes", rules.DefaultHoles, fmt.Sprintf("holes per row (%d to %d)", rules.MinHoles, rules.MaxHoles))
	f.seeds = fs.Int("seeds", rules.DefaultStartSeeds, fmt.Sprintf("seeds per hole at the start (%d to %d)", rules.MinStartSeeds, rules.MaxStartSeeds))
	f.position = fs.String("position", "", "start from this position instead (not with --holes, --seeds or --first)")
	f.side = fs.String("side", "south", "the side you play against the engine: south, north or random")
	f.first = fs.String("first", "south", "the side that moves first: south or north")
	f.twoPlayers = fs.Bool("two-players", false, "two people play each other; the engine only gives hints")
	f.laps = fs.Bool("laps", false, "show every move's sowing lap by lap")
	f.save = fs.String("save", "", "write the game record to this file when the game ends or is left")
	return f
}

// Config checks the options as parsed and returns the session they
// describe under r; an error is a mistake in them.
func (f *Flags) Config(r rules.Rules) (Config, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	inRange := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("--%s %d out of range (%d to %d)", name, v, lo, hi)
		}
		return nil
	}
	if err := inRange("level", *f.level, engine.MinLevel, engine.MaxLevel); err != nil {
		return Config{}, err
	}
	firstSide, err := parseSide("--first", *f.first, false)
	if err != nil {
		return Config{}, err
	}
	var start rules.Position
	if set["position"] {
		for _, name := range []string{"holes", "seeds", "first"} {
			if set[name] {
				return Config{}, fmt.Errorf("--%s does not go with --position, which gives the whole start", name)
			}
		}
		if *f.position == "start" {
			start, err = rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
		} else {
			start, err = rules.ParsePosition(*f.position)
		}
		if err != nil {
			return Config{}, err
		}
	} else {
		if err := cmp.Or(inRange("holes", *f.holes, rules.MinHoles, rules.MaxHoles), inRange("seeds", *f.seeds, rules.MinStartSeeds, rules.MaxStartSeeds)); err != nil {
			return Config{}, err
		}
		if start, err = rules.NewPosition(*f.holes, *f.seeds); err != nil {
			return Config{}, err
		}
		start = start.WithToMove(firstSide)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	human, err := parseSide("--side", *f.side, true)
	if err != nil {
		return Config{}, err
	}
	if strings.EqualFold(*f.side, "random") {
		human = rules.Side(rng.IntN(2))
	}
	switch {
	case *f.twoPlayers && set["side"]:
		return Config{}, fmt.Errorf("--side does not go with --two-players")
	case *f.twoPlayers && set["level"]:
		return Config{}, fmt.Errorf("--level does not go with --two-players: the engine does not play")
	}
	g, err := rules.NewGame(start, r)
	if err != nil {
		return Config{}, err
	}
	return Config{Game: g, Level: *f.level, Human: human, TwoPlayers: *f.twoPlayers, Laps: *f.laps, Rand: rng, Save: *f.save}, nil
}

// parseSide reads --side or --first; with random, "random" is allowed too
// (South until the side is drawn).
func parseSide(flagName, v string, random bool) (rules.Side, error) {
	s, err := rules.ParseSide(v)
	switch {
	case err == nil, random && strings.EqualFold(v, "random"):
		return s, nil
	case random:
		return 0, fmt.Errorf("%s %q: want south, north or random", flagName, v)
	}
	return 0, fmt.Errorf("%s %v", flagName, err)
}
