package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

var engineCommand = &command{
	name:    "engine",
	summary: "speak the engine protocol on standard input and output (for GUIs and bots)",
	usage:   "< commands",
	examples: []string{
		"endodoi engine",
		"printf 'endodoi\\nisready\\n' | endodoi engine",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("engine reads commands from standard input and takes no arguments (got %q)", args[0])
			}
			return runEngineProtocol(ctx, env.Stdin, env.Stdout)
		}
	},
}

// engineVersion is what the handshake reports after "id name endodoi".
const engineVersion = "dev"

// maxEngineLine bounds one input line (a position with a long game's moves
// fits many times over).
const maxEngineLine = 1 << 20

// Option ranges and defaults.
const (
	defaultLevel = 10
	maxLevel     = 10
	// maxMoveTime bounds "go movetime": a day.
	maxMoveTime = 24 * 60 * 60 * 1000
)

// runEngineProtocol reads protocol commands from in, one a line, and
// answers on out until "quit", the end of the input, or ctx's end.
func runEngineProtocol(ctx context.Context, in io.Reader, out io.Writer) error {
	s := newEngineSession(out)
	defer s.stopSearch()

	lines := make(chan string)
	readErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), maxEngineLine)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
		readErr <- sc.Err()
	}()

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line := <-lines:
			if s.handle(line) {
				return s.out.error()
			}
			if err := s.out.error(); err != nil {
				return err
			}
		case err := <-readErr:
			// The end of the input acts like quit.
			if errors.Is(err, bufio.ErrTooLong) {
				s.out.printf("info string error: input line longer than %d bytes; stopping", maxEngineLine)
				s.handle("quit")
				return fmt.Errorf("reading input: line longer than %d bytes", maxEngineLine)
			}
			// A search with limits finishes first, so that piped
			// commands ("position ...", "go depth 12") get a full answer;
			// an infinite one is stopped.
			if s.search != nil && !s.search.infinite {
				select {
				case <-s.search.done:
				case <-ctx.Done():
				}
			}
			s.handle("quit")
			if err != nil {
				return fmt.Errorf("reading input: %w", err)
			}
			return s.out.error()
		}
	}
}

// lineWriter writes whole lines, one Write each, under a mutex, so that
// the search goroutine's lines never interleave with the command loop's.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error // the first write error
}

func (lw *lineWriter) printf(format string, args ...any) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = fmt.Appendf(lw.buf[:0], format, args...)
	lw.buf = append(lw.buf, '\n')
	lw.writeLocked()
}

// line writes the line that build appends to its argument.
func (lw *lineWriter) line(build func([]byte) []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = append(build(lw.buf[:0]), '\n')
	lw.writeLocked()
}

func (lw *lineWriter) writeLocked() {
	if lw.err != nil {
		return
	}
	if _, err := lw.w.Write(lw.buf); err != nil {
		lw.err = fmt.Errorf("writing output: %w", err)
	}
}

func (lw *lineWriter) error() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// engineOptions are the settable options.
type engineOptions struct {
	variant rules.Variant
	maxLaps int
	threads int
	hashMiB int
	level   int
}

func (o engineOptions) rules() rules.Rules {
	return rules.Rules{Variant: o.variant, MaxLaps: o.maxLaps}
}

// engineOption describes one option for the handshake and for setoption.
type engineOption struct {
	name     string
	kind     string // "spin" or "combo"
	min, max int    // spin
	vars     []string
	def      func() string
	// set applies a value that has passed the range check; it reports
	// whether the engine must be recreated.
	set func(o *engineOptions, v string) (recreate bool, err error)
}

var engineOptionList = []engineOption{
	{
		name: "Variant", kind: "combo", vars: variantNames(),
		def: func() string { return rules.Standard.String() },
		set: func(o *engineOptions, v string) (bool, error) {
			variant, err := rules.ParseVariant(v)
			if err != nil {
				return false, err
			}
			o.variant = variant
			return true, nil
		},
	},
	{
		name: "MaxLaps", kind: "spin", min: 1, max: rules.MaxMaxLaps,
		def: func() string { return strconv.Itoa(rules.DefaultMaxLaps) },
		set: func(o *engineOptions, v string) (bool, error) {
			o.maxLaps, _ = strconv.Atoi(v)
			return true, nil
		},
	},
	{
		name: "Threads", kind: "spin", min: 1, max: engine.MaxThreads,
		def: func() string { return "1" },
		set: func(o *engineOptions, v string) (bool, error) {
			o.threads, _ = strconv.Atoi(v)
			return true, nil
		},
	},
	{
		name: "Hash", kind: "spin", min: 1, max: engine.MaxHashMiB,
		def: func() string { return strconv.Itoa(engine.DefaultHashMiB) },
		set: func(o *engineOptions, v string) (bool, error) {
			o.hashMiB, _ = strconv.Atoi(v)
			return true, nil
		},
	},
	{
		name: "Level", kind: "spin", min: 1, max: maxLevel,
		def: func() string { return strconv.Itoa(defaultLevel) },
		set: func(o *engineOptions, v string) (bool, error) {
			o.level, _ = strconv.Atoi(v)
			return false, nil
		},
	},
}

func variantNames() []string {
	var names []string
	for _, v := range rules.Variants() {
		names = append(names, v.String())
	}
	return names
}

// levelLimits returns the limits a "go" without any limit searches with:
// those of engine.Level. Such a go plays with engine.Engine.PlayLevel (see
// levelSearch), which also adds the level's randomness.
func levelLimits(level int) engine.Limits {
	setting, err := engine.Level(level)
	if err != nil {
		return engine.Limits{MoveTime: time.Second}
	}
	return setting.Limits()
}

// levelSearch chooses a move at the session's level with
// engine.Engine.PlayLevel. Levels with randomness draw on the session's rng,
// used by one search at a time. PlayLevel reports no iterations, so the
// result is reported as one info line.
func (s *engineSession) levelSearch(ctx context.Context, e *engine.Engine, p rules.Position, history []rules.Position) (engine.Result, error) {
	res, err := e.PlayLevel(ctx, p, history, s.opts.level, s.rng)
	if err == nil && res.Move != rules.NoMove && res.Depth > 0 {
		s.reportInfo(res.Info)
	}
	return res, err
}

// engineSession is one protocol conversation. handle is called from one
// goroutine; the search runs in another and only writes to out. The search
// works on copies of the position and its history and holds its own
// engine, so position, setoption and newgame may come during a search:
// they apply to the next one.
type engineSession struct {
	out  *lineWriter
	opts engineOptions
	eng  *engine.Engine // nil until needed after an option change
	game *rules.Game
	rng  *rand.Rand // the levels' randomness, seeded from the clock

	search *searchRun // the running search, or nil
}

// searchRun is a search in progress.
type searchRun struct {
	cancel   context.CancelFunc
	finished chan struct{} // closed once the search is over, just before bestmove is written
	done     chan struct{} // closed once bestmove has been written
	infinite bool          // searching until stopped: the end of the input stops it
}

func newEngineSession(out io.Writer) *engineSession {
	s := &engineSession{
		out: &lineWriter{w: out},
		opts: engineOptions{
			variant: rules.Standard,
			maxLaps: rules.DefaultMaxLaps,
			threads: 1,
			hashMiB: engine.DefaultHashMiB,
			level:   defaultLevel,
		},
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x656e646f646f69)),
	}
	s.game = s.startGame()
	return s
}

// startGame returns a game from the default start under the current rules.
func (s *engineSession) startGame() *rules.Game {
	p, err := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	if err != nil {
		panic(err) // the defaults are valid
	}
	g, err := rules.NewGame(p, s.opts.rules())
	if err != nil {
		panic(err) // the options are validated when set
	}
	return g
}

// engine returns the engine, creating it after an option change.
func (s *engineSession) engine() (*engine.Engine, error) {
	if s.eng == nil {
		e, err := engine.New(engine.Config{Rules: s.opts.rules(), Threads: s.opts.threads, HashMiB: s.opts.hashMiB})
		if err != nil {
			return nil, err
		}
		s.eng = e
	}
	return s.eng, nil
}

// searching reports whether a search is running.
func (s *engineSession) searching() bool {
	if s.search == nil {
		return false
	}
	select {
	case <-s.search.finished:
		<-s.search.done // at most the time to write bestmove
		s.search = nil
		return false
	default:
		return true
	}
}

// stopSearch stops the running search, if any, and waits until it has
// written its bestmove.
func (s *engineSession) stopSearch() {
	if s.search == nil {
		return
	}
	s.search.cancel()
	<-s.search.done
	s.search = nil
}

func (s *engineSession) errorf(format string, args ...any) {
	s.out.printf("info string error: "+format, args...)
}

// handle answers one command line. It reports true when the session is
// over ("quit").
func (s *engineSession) handle(line string) (quit bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	cmd, args := f[0], f[1:]
	switch cmd {
	case "endodoi":
		s.handshake()
	case "isready":
		if !s.searching() {
			if _, err := s.engine(); err != nil {
				s.errorf("%v", err)
			}
		}
		s.out.printf("readyok")
	case "setoption":
		s.setOption(args)
	case "newgame":
		if len(args) > 0 {
			s.errorf("newgame takes no arguments (got %q)", args[0])
			return false
		}
		if s.searching() {
			// The running search holds the engine: the next search gets a
			// fresh one, which is as good as cleared.
			s.eng = nil
		} else if s.eng != nil {
			s.eng.NewGame()
		}
		s.game = s.startGame()
	case "position":
		s.position(args)
	case "go":
		if s.searching() {
			s.errorf("already searching")
			return false
		}
		s.goSearch(args)
	case "stop":
		if len(args) > 0 {
			s.errorf("stop takes no arguments (got %q)", args[0])
		}
		s.stopSearch()
	case "quit":
		s.stopSearch()
		return true
	default:
		s.errorf("unknown command %q", cmd)
	}
	return false
}

func (s *engineSession) handshake() {
	s.out.printf("id name endodoi %s", engineVersion)
	s.out.printf("id author the endodoi developers")
	for _, o := range engineOptionList {
		var b strings.Builder
		fmt.Fprintf(&b, "option name %s type %s default %s", o.name, o.kind, o.def())
		if o.kind == "spin" {
			fmt.Fprintf(&b, " min %d max %d", o.min, o.max)
		}
		for _, v := range o.vars {
			fmt.Fprintf(&b, " var %s", v)
		}
		s.out.printf("%s", b.String())
	}
	s.out.printf("endodoiok")
}

// setOption handles "setoption name <Name> value <v>".
func (s *engineSession) setOption(args []string) {
	if len(args) == 0 || args[0] != "name" {
		s.errorf("setoption: want 'setoption name <Name> value <v>'")
		return
	}
	var name, value []string
	i := 1
	for ; i < len(args) && args[i] != "value"; i++ {
		name = append(name, args[i])
	}
	if i < len(args) {
		value = args[i+1:]
	}
	if len(name) == 0 {
		s.errorf("setoption: missing option name")
		return
	}
	n := strings.Join(name, " ")
	var opt *engineOption
	for i := range engineOptionList {
		if strings.EqualFold(engineOptionList[i].name, n) {
			opt = &engineOptionList[i]
		}
	}
	if opt == nil {
		s.errorf("setoption: no option %q", n)
		return
	}
	if i >= len(args) || len(value) == 0 {
		s.errorf("setoption %s: missing value", opt.name)
		return
	}
	v := strings.Join(value, " ")
	if opt.kind == "spin" {
		x, err := strconv.Atoi(v)
		if err != nil {
			s.errorf("setoption %s: value %q is not a whole number", opt.name, v)
			return
		}
		if x < opt.min || x > opt.max {
			s.errorf("setoption %s: value %d out of range (%d to %d)", opt.name, x, opt.min, opt.max)
			return
		}
	}
	next := s.opts
	recreate, err := opt.set(&next, v)
	if err != nil {
		s.errorf("setoption %s: %v", opt.name, err)
		return
	}
	oldRules := s.opts.rules()
	s.opts = next
	if recreate {
		s.eng = nil // created again, with the new configuration, when needed
	}
	if s.opts.rules() != oldRules {
		s.replay()
	}
}

// replay plays the current game again under changed rules. If a move is no
// longer legal, the game goes back to its start.
func (s *engineSession) replay() {
	g, err := rules.NewGame(s.game.Start(), s.opts.rules())
	if err != nil {
		s.errorf("%v", err)
		return
	}
	for i, m := range s.game.Moves() {
		if err := g.Play(m); err != nil {
			reason := moveErrorReason(g, m, err)
			g, _ = rules.NewGame(s.game.Start(), s.opts.rules())
			s.errorf("move %d (%s) is illegal under the new rules: %s; the position is back at its start",
				i+1, m, reason)
			break
		}
	}
	s.game = g
}

// position handles "position (startpos [H S] | <position>) [moves m1 m2 ...]".
func (s *engineSession) position(args []string) {
	var spec, moves []string
	cut := len(args)
	for i, a := range args {
		if a == "moves" {
			cut = i
			break
		}
	}
	spec = args[:cut]
	if cut < len(args) {
		moves = args[cut+1:]
	}
	if len(spec) == 0 {
		s.errorf("position: want 'position startpos [H S]' or 'position <position>', then optionally 'moves m1 m2 ...'")
		return
	}
	var start rules.Position
	var err error
	if spec[0] == "startpos" {
		switch len(spec) {
		case 1:
			start, err = rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
		case 3:
			h, err1 := strconv.Atoi(spec[1])
			n, err2 := strconv.Atoi(spec[2])
			if err1 != nil || err2 != nil {
				s.errorf("position startpos: holes and seeds must be whole numbers (got %q %q)", spec[1], spec[2])
				return
			}
			start, err = rules.NewPosition(h, n)
		default:
			s.errorf("position startpos: want no numbers or both the holes per row and the seeds per hole")
			return
		}
		if err != nil {
			s.errorf("position startpos: %v", err)
			return
		}
	} else {
		start, err = rules.ParsePosition(strings.Join(spec, " "))
		if err != nil {
			s.errorf("position: %v", err)
			return
		}
	}
	g, err := rules.NewGame(start, s.opts.rules())
	if err != nil {
		s.errorf("position: %v", err)
		return
	}
	for i, text := range moves {
		m, err := rules.ParseMove(text)
		if err != nil {
			s.errorf("move %d (%s): %v", i+1, text, err)
			return
		}
		if err := g.Play(m); err != nil {
			s.errorf("move %d (%s): %s", i+1, text, moveErrorReason(g, m, err))
			return
		}
	}
	s.game = g
}

// moveErrorReason describes why g.Play refused m.
func moveErrorReason(g *rules.Game, m rules.Move, err error) string {
	for _, base := range []error{rules.ErrWrongSide, rules.ErrNoSuchHole, rules.ErrEmptyHole, rules.ErrEndless} {
		if errors.Is(err, base) {
			return describeMoveError(g.Position(), m, base)
		}
	}
	if errors.Is(err, rules.ErrGameOver) {
		return fmt.Sprintf("the game is already over (%s)", g.Status())
	}
	return err.Error()
}

// parseGo reads the arguments of "go". explicit reports whether any limit
// was given.
func parseGo(args []string) (lim engine.Limits, explicit bool, err error) {
	for i := 0; i < len(args); i++ {
		word := args[i]
		if word == "infinite" {
			lim.Infinite = true
			explicit = true
			continue
		}
		var max uint64
		switch word {
		case "depth":
			max = engine.MaxDepth
		case "movetime":
			max = maxMoveTime
		case "nodes":
			max = 1<<63 - 1
		default:
			return lim, false, fmt.Errorf("go: unknown word %q (want depth N, movetime MS, nodes N or infinite)", word)
		}
		if i+1 >= len(args) {
			return lim, false, fmt.Errorf("go %s: missing number", word)
		}
		i++
		x, perr := strconv.ParseUint(args[i], 10, 64)
		if perr != nil || x < 1 || x > max {
			return lim, false, fmt.Errorf("go %s: %q is not a whole number from 1 to %d", word, args[i], max)
		}
		switch word {
		case "depth":
			lim.Depth = int(x)
		case "movetime":
			lim.MoveTime = time.Duration(x) * time.Millisecond
		case "nodes":
			lim.Nodes = x
		}
		explicit = true
	}
	return lim, explicit, nil
}

// goSearch starts a search of the current position.
func (s *engineSession) goSearch(args []string) {
	lim, explicit, err := parseGo(args)
	if err != nil {
		s.errorf("%v", err)
		return
	}
	if !explicit {
		lim = levelLimits(s.opts.level)
	}
	if s.game.Over() || len(s.game.LegalMoves()) == 0 {
		s.out.printf("bestmove none")
		return
	}
	e, err := s.engine()
	if err != nil {
		s.errorf("%v", err)
		return
	}
	p := s.game.Position()
	history := make([]rules.Position, s.game.Ply())
	for i := range history {
		history[i] = s.game.PositionAt(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &searchRun{cancel: cancel, finished: make(chan struct{}), done: make(chan struct{}), infinite: lim.Infinite}
	s.search = run
	go func() {
		defer close(run.done)
		defer cancel()
		var res engine.Result
		var err error
		if explicit {
			res, err = e.Search(ctx, p, history, lim, s.reportInfo)
		} else {
			res, err = s.levelSearch(ctx, e, p, history)
		}
		best := "bestmove none"
		if err != nil {
			s.errorf("search: %v", err)
		} else if res.Move != rules.NoMove {
			best = "bestmove " + res.Move.String()
		}
		// The search counts as over before its bestmove can be read, so
		// that a go sent on reading it is never refused.
		s.out.mu.Lock()
		close(run.finished)
		s.out.buf = append(append(s.out.buf[:0], best...), '\n')
		s.out.writeLocked()
		s.out.mu.Unlock()
	}()
}

// reportInfo writes one completed iteration.
func (s *engineSession) reportInfo(info engine.Info) {
	s.out.line(func(b []byte) []byte {
		b = fmt.Appendf(b, "info depth %d score %s", info.Depth, info.Score)
		if info.Exact {
			b = append(b, " exact"...)
		}
		b = fmt.Appendf(b, " nodes %d nps %d time %d pv", info.Nodes, info.NPS(), info.Elapsed.Milliseconds())
		for _, m := range info.PV {
			b = append(b, ' ')
			b = append(b, m.String()...)
		}
		return b
	})
}
