package arena

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// Player chooses moves in arena games. A Player plays one game at a time;
// Run gives every worker its own players.
type Player interface {
	// Name identifies the player in reports.
	Name() string
	// NewGame prepares for a game from start under rules r. An error
	// forfeits the game.
	NewGame(ctx context.Context, r rules.Rules, start rules.Position) error
	// Move chooses a move for the side to move in g, which is not over.
	// It must not change g. An error, or a move that is not legal,
	// forfeits the game.
	Move(ctx context.Context, g *rules.Game) (rules.Move, error)
	// Close releases the player's resources.
	Close() error
}

// DefaultHashMiB is the transposition table size of engine players that
// give no hash=N: smaller than the engine's own default, since a match
// runs two engines per worker and clears their tables every game.
const DefaultHashMiB = 16

// Defaults for players.
const (
	DefaultBaselineDepth = 6                      // plies searched by "baseline"
	MaxBaselineDepth     = 20                     // deepest "baseline=D"
	DefaultCmdMoveTime   = 100 * time.Millisecond // "go movetime" for a cmd player without limits
	DefaultCmdTimeout    = 30 * time.Second       // wait for bestmove after "go depth" or "go nodes"
	// CmdMargin is added to a cmd player's movetime to get the time it
	// has to answer before it forfeits.
	CmdMargin = time.Second
	// HandshakeTimeout bounds the wait for endodoiok and readyok.
	HandshakeTimeout = 5 * time.Second
)

type playerKind uint8

const (
	kindEngine playerKind = iota
	kindBaseline
	kindCmd
)

// Spec is a parsed player specification: see ParseSpec.
type Spec struct {
	raw  string
	kind playerKind

	// engine players
	level   int
	limits  engine.Limits
	threads int
	hashMiB int

	// baseline
	depth int

	// cmd players
	argv    []string
	timeout time.Duration // 0: derived from the limits
}

// String returns the specification as written.
func (s Spec) String() string { return s.raw }

// SpecSyntax summarises the specification syntax, for error messages.
const SpecSyntax = "a player is level=N, depth=N, time=DURATION or nodes=N (combinable, with threads=N and hash=MiB, e.g. depth=8,hash=16), baseline[=D], or cmd=<command line>[;depth=N][;time=DURATION][;nodes=N][;timeout=DURATION]"

// ParseSpec reads a player specification:
//
//   - Engine players are comma-separated settings: level=N (1 to 10, the
//     engine's levels, with their randomness seeded per player), or any of
//     depth=N, time=DURATION (as in "100ms" or "1.5s": the time per move)
//     and nodes=N, which stop the search at the first limit reached; plus
//     threads=N (default 1) and hash=MiB (default DefaultHashMiB). Examples:
//     "level=5", "time=100ms", "depth=8,threads=1,hash=16".
//   - "baseline" or "baseline=D": a plain fixed-depth alpha-beta search,
//     D plies deep (default 6), counting captured seeds only; independent of
//     package engine and deterministic.
//   - "cmd=<command line>" followed by optional ";key=value" settings: an
//     external program speaking the engine protocol. The command line is
//     split on spaces (no quoting; it may not contain ';'), and the program
//     is looked up like a shell would. Settings: depth=N, time=DURATION,
//     nodes=N (sent as "go depth N movetime MS nodes N"; default
//     time=100ms when none is given) and timeout=DURATION (how long the
//     program has to answer a "go": by default the move time plus
//     CmdMargin, or DefaultCmdTimeout without a move time).
//     Example: "cmd=./mybot --fast;time=50ms".
func ParseSpec(spec string) (Spec, error) {
	s := Spec{raw: strings.TrimSpace(spec)}
	if s.raw == "" {
		return Spec{}, errors.New("empty player")
	}
	if rest, ok := strings.CutPrefix(s.raw, "cmd="); ok {
		return parseCmdSpec(s, rest)
	}
	if s.raw == "baseline" {
		s.kind, s.depth = kindBaseline, DefaultBaselineDepth
		return s, nil
	}
	if rest, ok := strings.CutPrefix(s.raw, "baseline="); ok {
		d, err := strconv.Atoi(rest)
		if err != nil || d < 1 || d > MaxBaselineDepth {
			return Spec{}, fmt.Errorf("baseline=%s: want a depth from 1 to %d", rest, MaxBaselineDepth)
		}
		s.kind, s.depth = kindBaseline, d
		return s, nil
	}
	s.kind = kindEngine
	s.threads, s.hashMiB = 1, DefaultHashMiB
	err := eachSetting(strings.Split(s.raw, ","), "", func(key, val string) (err error) {
		if handled, err := limitSetting(&s.limits, key, val); handled {
			return err
		}
		switch key {
		case "level":
			s.level, err = intSetting(key, val, engine.MinLevel, engine.MaxLevel)
		case "threads":
			s.threads, err = intSetting(key, val, 1, engine.MaxThreads)
		case "hash":
			s.hashMiB, err = intSetting(key, val, 1, engine.MaxHashMiB)
		default:
			return fmt.Errorf("unknown setting %q", key)
		}
		return err
	})
	if err != nil {
		return Spec{}, err
	}
	hasLimit := s.limits != engine.Limits{}
	switch {
	case s.level != 0 && hasLimit:
		return Spec{}, errors.New("level=N sets its own limits: give it without depth, time or nodes")
	case s.level == 0 && !hasLimit:
		return Spec{}, errors.New("no limit: give level, depth, time or nodes")
	}
	return s, nil
}

func parseCmdSpec(s Spec, rest string) (Spec, error) {
	s.kind = kindCmd
	parts := strings.Split(rest, ";")
	s.argv = strings.Fields(parts[0])
	if len(s.argv) == 0 {
		return Spec{}, errors.New("cmd=: no command")
	}
	err := eachSetting(parts[1:], "cmd setting ", func(key, val string) (err error) {
		if handled, err := limitSetting(&s.limits, key, val); handled {
			return err
		}
		if key != "timeout" {
			return fmt.Errorf("unknown cmd setting %q (want depth, time, nodes or timeout)", key)
		}
		s.timeout, err = durationSetting(key, val)
		return err
	})
	if err != nil {
		return Spec{}, err
	}
	if s.limits == (engine.Limits{}) {
		s.limits.MoveTime = DefaultCmdMoveTime
	}
	if s.limits.MoveTime != 0 && s.limits.MoveTime < time.Millisecond {
		return Spec{}, errors.New("cmd time: the protocol counts whole milliseconds; give at least 1ms")
	}
	if s.timeout == 0 {
		s.timeout = DefaultCmdTimeout
		if s.limits.MoveTime > 0 {
			s.timeout = s.limits.MoveTime + CmdMargin
		}
	}
	if _, err := exec.LookPath(s.argv[0]); err != nil {
		return Spec{}, fmt.Errorf("cmd: %v", err)
	}
	return s, nil
}

// eachSetting calls set for each key=value item, refusing malformed items
// and keys given twice; what names the items in errors.
func eachSetting(items []string, what string, set func(key, val string) error) error {
	seen := map[string]bool{}
	for _, item := range items {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || val == "" {
			return fmt.Errorf("%s%q: want key=value", what, item)
		}
		if seen[key] {
			return fmt.Errorf("%s%s given twice", what, key)
		}
		seen[key] = true
		if err := set(key, val); err != nil {
			return err
		}
	}
	return nil
}

// limitSetting reads the search limits depth, time and nodes; it reports
// whether key was one of them.
func limitSetting(l *engine.Limits, key, val string) (bool, error) {
	var err error
	switch key {
	case "depth":
		l.Depth, err = intSetting(key, val, 1, engine.MaxDepth)
	case "time":
		l.MoveTime, err = durationSetting(key, val)
	case "nodes":
		var n int
		n, err = intSetting(key, val, 1, 1<<62)
		l.Nodes = uint64(n)
	default:
		return false, nil
	}
	return true, err
}

func intSetting(key, val string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s=%s: want a whole number from %d to %d", key, val, lo, hi)
	}
	return n, nil
}

func durationSetting(key, val string) (time.Duration, error) {
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%s: want a positive duration such as 100ms or 2s", key, val)
	}
	return d, nil
}

// New makes a player from the specification for rules r, which must be
// the rules of the games it will play (an engine player forfeits games
// under other rules). seed seeds the randomness of level players (others
// ignore it).
func (s Spec) New(r rules.Rules, seed uint64) (Player, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	switch s.kind {
	case kindBaseline:
		return newBaseline(s.raw, s.depth, r), nil
	case kindCmd:
		return newCmdPlayer(s, r), nil
	}
	e, err := engine.New(engine.Config{Rules: r, Threads: s.threads, HashMiB: s.hashMiB})
	if err != nil {
		return nil, err
	}
	p := &enginePlayer{name: s.raw, e: e, level: s.level, limits: s.limits}
	if s.level != 0 {
		p.rng = rand.New(rand.NewPCG(seed, 0x6172656e61))
	}
	return p, nil
}

// Factory returns a function that makes a new player from the
// specification each time it is called, for Run: the n-th player made gets
// a seed derived from seed and n, so that workers' level players do not all
// play alike.
func (s Spec) Factory(r rules.Rules, seed uint64) func() (Player, error) {
	var n atomic.Uint64
	return func() (Player, error) {
		return s.New(r, splitmix(seed+n.Add(1)*0x9e3779b97f4a7c15))
	}
}

// splitmix is SplitMix64's finaliser, a good mixer of seeds.
func splitmix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// ParsePlayer parses a player specification (see ParseSpec) and makes the
// player for rules r, with seed 0 for a level player's randomness.
func ParsePlayer(spec string, r rules.Rules) (Player, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.New(r, 0)
}

// enginePlayer plays with its own engine.Engine.
type enginePlayer struct {
	name   string
	e      *engine.Engine
	level  int // 0: search with limits
	limits engine.Limits
	rng    *rand.Rand
}

func (p *enginePlayer) Name() string { return p.name }

func (p *enginePlayer) NewGame(ctx context.Context, r rules.Rules, start rules.Position) error {
	if er := p.e.Config().Rules; er.Canonical() != r.Canonical() {
		return fmt.Errorf("player made for rules %v, game played under %v", er, r)
	}
	p.e.NewGame()
	return nil
}

func (p *enginePlayer) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	var res engine.Result
	var err error
	if p.level != 0 {
		res, err = p.e.PlayLevel(ctx, g.Position(), g.History(), p.level, p.rng)
	} else {
		res, err = p.e.Search(ctx, g.Position(), g.History(), p.limits, nil)
	}
	if err != nil {
		return rules.NoMove, err
	}
	if res.Move == rules.NoMove {
		return rules.NoMove, errors.New("engine found no move")
	}
	return res.Move, nil
}

func (p *enginePlayer) Close() error { return nil }
