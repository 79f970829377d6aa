package protocol

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// DefaultLevel is the Level option's default: full strength.
const DefaultLevel = engine.MaxLevel

// Session is endodoi's own engine behind the protocol, the Handler of
// "endodoi engine": the options of the handshake, the game the last
// Position set, and the engine.Engine that searches it.
type Session struct {
	version string
	opts    options
	eng     *engine.Engine // nil until needed after an option change
	tables  *egtb.Library  // the endgame databases, or nil
	tb      *egtb.Tablebase
	game    *rules.Game
	rng     *rand.Rand // the levels' randomness, seeded from the clock
}

// NewSession returns a session at the default options and the default
// start. version follows "id name endodoi" in the handshake.
func NewSession(version string) *Session {
	s := &Session{
		version: version,
		opts: options{
			variant: rules.Standard,
			maxLaps: rules.DefaultMaxLaps,
			threads: 1,
			hashMiB: engine.DefaultHashMiB,
			level:   DefaultLevel,
		},
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x656e646f646f69)),
	}
	s.game = s.startGame()
	return s
}

// options are the settable options.
type options struct {
	variant rules.Variant
	maxLaps int
	threads int
	hashMiB int
	level   int
}

func (o options) rules() rules.Rules {
	return rules.Rules{Variant: o.variant, MaxLaps: o.maxLaps}.Canonical()
}

// sessionOption is one option of the handshake and of setoption.
type sessionOption struct {
	Option
	// set applies a value that has passed the range check; it reports
	// whether the engine must be made again.
	set func(o *options, v string) (remake bool, err error)
}

// number reads a spin's value, checked already.
func number(v string) int {
	x, _ := strconv.Atoi(v)
	return x
}

var sessionOptions = []sessionOption{
	{Option{Name: "Variant", Type: Combo, Default: rules.Standard.String(), Vars: variantNames()},
		func(o *options, v string) (bool, error) {
			variant, err := rules.ParseVariant(v)
			o.variant = variant
			return true, err
		}},
	{Option{Name: "MaxLaps", Type: Spin, Default: strconv.Itoa(rules.DefaultMaxLaps), Min: 1, Max: rules.MaxMaxLaps},
		func(o *options, v string) (bool, error) { o.maxLaps = number(v); return true, nil }},
	{Option{Name: "Threads", Type: Spin, Default: "1", Min: 1, Max: engine.MaxThreads},
		func(o *options, v string) (bool, error) { o.threads = number(v); return true, nil }},
	{Option{Name: "Hash", Type: Spin, Default: strconv.Itoa(engine.DefaultHashMiB), Min: 1, Max: engine.MaxHashMiB},
		func(o *options, v string) (bool, error) { o.hashMiB = number(v); return true, nil }},
	{Option{Name: "Level", Type: Spin, Default: strconv.Itoa(DefaultLevel), Min: engine.MinLevel, Max: engine.MaxLevel},
		func(o *options, v string) (bool, error) { o.level = number(v); return false, nil }},
}

func variantNames() []string {
	var names []string
	for _, v := range rules.Variants() {
		names = append(names, v.String())
	}
	return names
}

// startGame returns a game from the default start under the current rules.
func (s *Session) startGame() *rules.Game {
	g, err := rules.NewGame(defaultStart(), s.opts.rules())
	if err != nil {
		panic(err) // the options are validated when set
	}
	return g
}

// UseTablebases makes the searches take the exact values of the endgame
// databases of lib for the board being played. The opening book of proven
// values (package book) is used whether or not there are databases.
func (s *Session) UseTablebases(lib *egtb.Library) {
	s.tables, s.eng = lib, nil
}

// engine returns the engine, making it after an option change or when the
// board's databases differ from the engine's.
func (s *Session) engine() (*engine.Engine, error) {
	var tb *egtb.Tablebase
	if s.tables != nil {
		tb = s.tables.Get(s.game.Position().Holes(), s.opts.rules())
	}
	if s.eng == nil || tb != s.tb {
		cfg := engine.Config{Rules: s.opts.rules(), Threads: s.opts.threads, HashMiB: s.opts.hashMiB, Book: true}
		if tb != nil {
			cfg.Tablebase = tb // only a non-nil one: a nil pointer in the interface would be probed
		}
		e, err := engine.New(cfg)
		if err != nil {
			return nil, err
		}
		s.eng, s.tb = e, tb
	}
	return s.eng, nil
}

// Hello implements Handler.
func (s *Session) Hello() []Reply {
	out := []Reply{ID{Key: "name", Value: "endodoi " + s.version}, ID{Key: "author", Value: "the endodoi developers"}}
	for _, o := range sessionOptions {
		out = append(out, o.Option)
	}
	return out
}

// Ready implements Handler: it makes the engine.
func (s *Session) Ready() error {
	_, err := s.engine()
	return err
}

// NewGame implements Handler.
func (s *Session) NewGame() error {
	if s.eng != nil {
		s.eng.NewGame()
	}
	s.game = s.startGame()
	return nil
}

// SetOption implements Handler. Names are matched ignoring case; a value
// that is out of range or not allowed changes nothing.
func (s *Session) SetOption(name, value string) error {
	var opt *sessionOption
	for i := range sessionOptions {
		if strings.EqualFold(sessionOptions[i].Name, name) {
			opt = &sessionOptions[i]
		}
	}
	if opt == nil {
		return fmt.Errorf("setoption: no option %q", name)
	}
	if opt.Type == Spin {
		x, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("setoption %s: value %q is not a whole number", opt.Name, value)
		}
		if x < opt.Min || x > opt.Max {
			return fmt.Errorf("setoption %s: value %d out of range (%d to %d)", opt.Name, x, opt.Min, opt.Max)
		}
	}
	next := s.opts
	remake, err := opt.set(&next, value)
	if err != nil {
		return fmt.Errorf("setoption %s: %w", opt.Name, err)
	}
	oldRules := s.opts.rules()
	s.opts = next
	if remake {
		s.eng = nil // made again, with the new configuration, when needed
	}
	if s.opts.rules() != oldRules {
		return s.replay()
	}
	return nil
}

// replay plays the current game again under changed rules. If a move is no
// longer legal, the game goes back to its start.
func (s *Session) replay() error {
	g, err := rules.NewGame(s.game.Start(), s.opts.rules())
	if err != nil {
		return err
	}
	for i, m := range s.game.Moves() {
		if err := g.Play(m); err != nil {
			reason := moveErrorReason(g, m, err)
			s.game, _ = rules.NewGame(s.game.Start(), s.opts.rules())
			return fmt.Errorf("move %d (%s) is illegal under the new rules: %s; the position is back at its start", i+1, m, reason)
		}
	}
	s.game = g
	return nil
}

// Position implements Handler: it plays the moves from the start under the
// current rules. An illegal move leaves the position as it was.
func (s *Session) Position(c Position) error {
	g, err := rules.NewGame(c.Start, s.opts.rules())
	if err != nil {
		return fmt.Errorf("position: %w", err)
	}
	for i, m := range c.Moves {
		if err := g.Play(m); err != nil {
			return fmt.Errorf("move %d (%s): %s", i+1, m, moveErrorReason(g, m, err))
		}
	}
	s.game = g
	return nil
}

// moveErrorReason describes why g.Play refused m.
func moveErrorReason(g *rules.Game, m rules.Move, err error) string {
	if errors.Is(err, rules.ErrGameOver) {
		return fmt.Sprintf("the game is already over (%s)", g.Status())
	}
	return rules.DescribeMoveError(g.Position(), m, err)
}

// Search implements Handler. A go without limits plays at the Level
// option with engine.Engine.PlayLevel, which reports no iterations: its
// result is reported as one Info.
func (s *Session) Search(ctx context.Context, g Go, report func(Info)) (rules.Move, error) {
	if s.game.Over() || len(s.game.LegalMoves()) == 0 {
		return rules.NoMove, nil
	}
	e, err := s.engine()
	if err != nil {
		return rules.NoMove, err
	}
	p := s.game.Position()
	history := s.game.History()
	var res engine.Result
	if g.Limits == (engine.Limits{}) {
		res, err = e.PlayLevel(ctx, p, history, s.opts.level, s.rng)
		if err == nil && res.Move != rules.NoMove && res.Depth > 0 {
			report(InfoFrom(res.Info))
		}
	} else {
		res, err = e.Search(ctx, p, history, g.Limits, func(i engine.Info) { report(InfoFrom(i)) })
	}
	if err != nil {
		return rules.NoMove, err
	}
	return res.Move, nil
}
