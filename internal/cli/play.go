package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// defaultPlayLevel is the engine's level in play unless --level says.
const defaultPlayLevel = 5

var playCommand = &command{
	name:    "play",
	summary: "play a game in the terminal against the engine, or between two people",
	usage: "[--level N] [--holes H] [--seeds S] [--position P] [--side south|north|random] [--first south|north]\n" +
		"                    [--two-players] [--laps] [--save FILE] [--variant V] [--max-laps L]",
	examples: []string{
		"endodoi play --holes 6 --level 3",
		"endodoi play --side north --laps --save game.txt",
		"endodoi play --two-players --holes 6",
		"endodoi play --position '3,0,1/2,2,2 n 5 7' --side north",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		level := fs.Int("level", defaultPlayLevel, fmt.Sprintf("the engine's strength, %d (beginner) to %d (strongest)", engine.MinLevel, engine.MaxLevel))
		holes := fs.Int("holes", rules.DefaultHoles, fmt.Sprintf("holes per row (%d to %d)", rules.MinHoles, rules.MaxHoles))
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, fmt.Sprintf("seeds per hole at the start (%d to %d)", rules.MinStartSeeds, rules.MaxStartSeeds))
		position := fs.String("position", "", "start from this position instead (not with --holes, --seeds or --first)")
		side := fs.String("side", "south", "the side you play against the engine: south, north or random")
		first := fs.String("first", "south", "the side that moves first: south or north")
		twoPlayers := fs.Bool("two-players", false, "two people play each other; the engine only gives hints")
		laps := fs.Bool("laps", false, "show every move's sowing lap by lap")
		save := fs.String("save", "", "write the game record to this file when the game ends or is left")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("play takes no operands (got %q); give a start with --position", args[0])
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			r, err := rf.rules()
			if err != nil {
				return err
			}
			if err := inRange("level", *level, engine.MinLevel, engine.MaxLevel); err != nil {
				return err
			}
			firstSide, err := parseSide("--first", *first, false)
			if err != nil {
				return err
			}
			var start rules.Position
			if set["position"] {
				for _, name := range []string{"holes", "seeds", "first"} {
					if set[name] {
						return usagef("--%s does not go with --position, which gives the whole start", name)
					}
				}
				if start, err = positionOperand([]string{*position}); err != nil {
					return err
				}
			} else {
				if err := cmp.Or(inRange("holes", *holes, rules.MinHoles, rules.MaxHoles), inRange("seeds", *seeds, rules.MinStartSeeds, rules.MaxStartSeeds)); err != nil {
					return err
				}
				if start, err = rules.NewPosition(*holes, *seeds); err != nil {
					return usagef("%v", err)
				}
				start = start.WithToMove(firstSide)
			}
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
			human, err := parseSide("--side", *side, true)
			if err != nil {
				return err
			}
			if strings.EqualFold(*side, "random") {
				human = rules.Side(rng.IntN(2))
			}
			if *twoPlayers && set["side"] {
				return usagef("--side does not go with --two-players")
			}
			if *twoPlayers && set["level"] {
				return usagef("--level does not go with --two-players: the engine does not play")
			}
			g, err := rules.NewGame(start, r)
			if err != nil {
				return usagef("%v", err)
			}
			cfg := terminal.Config{Game: g, Level: *level, Human: human, TwoPlayers: *twoPlayers,
				Laps: *laps, Rand: rng, Save: *save}
			// The databases endodoi serve has built, if any.
			lib := egtb.NewLibrary(filepath.Join(store.DefaultDataDir(), "egtb"), egtb.LibraryOptions{})
			if tb := lib.Get(start.Holes(), r); tb != nil {
				cfg.Tablebase = tb
			}
			s, err := terminal.NewSession(cfg, env.Stdin, env.Stdout)
			if err != nil {
				return err
			}
			return s.Run(ctx)
		}
	},
}

// parseSide reads --side or --first; with random, "random" is allowed too
// (South until the side is drawn).
func parseSide(flagName, v string, random bool) (rules.Side, error) {
	s, err := rules.ParseSide(v)
	switch {
	case err == nil, random && strings.EqualFold(v, "random"):
		return s, nil
	case random:
		return 0, usagef("%s %q: want south, north or random", flagName, v)
	}
	return 0, usagef("%s %v", flagName, err)
}
