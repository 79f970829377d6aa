package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/protocol"
	"github.com/endodoi/endodoi/rules"
)

// EngineConfig says how to run the engine: any program that speaks the
// engine protocol (docs/engine-protocol.md).
type EngineConfig struct {
	// Command is the program and its arguments.
	Command []string
	// Serve, when Command is empty, runs the engine in this process
	// instead, reading commands from in and writing replies to out until
	// in ends or ctx does (protocol.Serve with a protocol.Handler is
	// one): for a program that embeds its engine.
	Serve func(ctx context.Context, in io.Reader, out io.Writer) error
	// Options are sent with setoption after the handshake, in order.
	Options []EngineOption
	// Level, from 1 to 10, sets the engine's Level option and searches
	// with a bare "go", which plays at that level, stopped with "stop"
	// when the move's time is up. 0 searches with "go movetime".
	Level int
}

// EngineOption is one setoption.
type EngineOption struct{ Name, Value string }

// Timeouts of the engine driver.
const (
	// handshakeTimeout bounds the handshake and each readyok.
	handshakeTimeout = 10 * time.Second
	// stopGrace is how long past its time a search may run before the
	// driver sends stop; bestmoveGrace how long after that it waits for
	// bestmove before it kills the engine.
	stopGrace     = 50 * time.Millisecond
	bestmoveGrace = 2 * time.Second
	// maxRestarts bounds the engine's restarts within one move.
	maxRestarts = 2
)

// Engine drives one engine process for one game: started when first
// needed, restarted after a crash (the game is sent whole with every
// search, so a new process picks it up where the old one died), and
// ended by Close.
type Engine struct {
	cfg EngineConfig
	log *slog.Logger

	proc     *protocol.Process // nil when not running
	name     string
	declared map[string]bool // the options the engine declared, lower case
	rules    rules.Rules     // the rules the running process has been set to
	starts   int
}

// NewEngine returns a driver of the engine cfg runs; nothing is started
// yet.
func NewEngine(cfg EngineConfig, log *slog.Logger) *Engine {
	return &Engine{cfg: cfg, log: log}
}

// Name is the engine's name from its handshake, once started.
func (e *Engine) Name() string { return e.name }

// Declares reports whether the engine declared option name in its
// handshake; it starts the engine if needed.
func (e *Engine) Declares(ctx context.Context, name string) (bool, error) {
	if err := e.ensure(ctx); err != nil {
		return false, err
	}
	return e.declared[strings.ToLower(name)], nil
}

// Search is what to search: a game from its start with its moves, under
// its rules, for Think.
type Search struct {
	Start rules.Position
	Moves []rules.Move
	Rules rules.Rules
	Think time.Duration
}

// errEngine marks a failure of the engine (crashed, silent, nonsense):
// the process is killed and the next search starts a new one.
var errEngine = errors.New("engine failure")

// BestMove asks the engine for its move in s. A crash is survived by
// restarting the engine and sending the game again, while the move's time
// lasts; ctx's end stops the search.
func (e *Engine) BestMove(ctx context.Context, s Search) (rules.Move, error) {
	g, err := rules.NewGame(s.Start, s.Rules)
	if err != nil {
		return rules.NoMove, fmt.Errorf("the game's start: %w", err)
	}
	for i, m := range s.Moves {
		if err := g.Play(m); err != nil {
			return rules.NoMove, fmt.Errorf("the game's move %d (%s): %w", i+1, m, err)
		}
	}
	if g.Over() {
		return rules.NoMove, errors.New("the game is over: no move to search")
	}
	deadline := time.Now().Add(s.Think)
	for attempt := 0; ; attempt++ {
		m, err := e.search(ctx, g, s, time.Until(deadline))
		if err == nil || ctx.Err() != nil {
			return m, err
		}
		e.kill()
		if attempt >= maxRestarts || time.Until(deadline) <= MinThink {
			return rules.NoMove, err
		}
		e.log.Warn("engine failed; restarting it", "err", err)
	}
}

// search runs one search for think on the running engine (starting it
// first if needed).
func (e *Engine) search(ctx context.Context, g *rules.Game, s Search, think time.Duration) (rules.Move, error) {
	think = max(think, MinThink)
	if err := e.ensure(ctx); err != nil {
		return rules.NoMove, err
	}
	if err := e.setRules(ctx, s.Rules); err != nil {
		return rules.NoMove, err
	}
	goCmd := protocol.Go{}
	if e.cfg.Level == 0 {
		goCmd.Limits = engine.Limits{MoveTime: max(think.Truncate(time.Millisecond), time.Millisecond)}
	}
	if err := e.proc.Send(protocol.Position{Start: s.Start, Moves: s.Moves}, goCmd); err != nil {
		return rules.NoMove, e.procError("sending go", err)
	}
	stopAt := time.NewTimer(think + stopGrace)
	defer stopAt.Stop()
	var giveUp <-chan time.Time
	stopped := false
	stop := func() error {
		stopped = true
		giveUp = time.After(bestmoveGrace)
		if err := e.proc.Send(protocol.Stop{}); err != nil {
			return e.procError("sending stop", err)
		}
		return nil
	}
	done := ctx.Done()
	var lastError string
	for {
		select {
		case line, ok := <-e.proc.Lines():
			if !ok {
				return rules.NoMove, e.procError("waiting for bestmove", nil)
			}
			r, err := protocol.ParseReply(line)
			if err != nil {
				if strings.HasPrefix(strings.TrimSpace(line), "bestmove") {
					return rules.NoMove, e.fault("bad bestmove line %q%s", clip(line, 100), after(lastError))
				}
				continue
			}
			switch r := r.(type) {
			case protocol.InfoString:
				if text, isErr := r.Error(); isErr {
					lastError = text
					e.log.Warn("the engine reports an error", "text", clip(text, 300))
				}
			case protocol.BestMove:
				if ctx.Err() != nil {
					return rules.NoMove, ctx.Err()
				}
				if r.Move == rules.NoMove {
					return rules.NoMove, e.fault("bestmove none in a game that is not over%s", after(lastError))
				}
				if !slices.Contains(g.LegalMoves(), r.Move) {
					return rules.NoMove, e.fault("illegal bestmove %s%s", r.Move, after(lastError))
				}
				return r.Move, nil
			}
		case <-stopAt.C:
			if err := stop(); err != nil {
				return rules.NoMove, err
			}
		case <-done:
			// The game moved on: let the engine end its search, so that
			// it is ready for the next.
			done = nil
			if !stopped {
				if err := stop(); err != nil {
					return rules.NoMove, err
				}
			}
		case <-giveUp:
			if ctx.Err() != nil {
				e.kill()
				return rules.NoMove, ctx.Err()
			}
			return rules.NoMove, e.fault("no bestmove %v after stop", bestmoveGrace)
		}
	}
}

func after(lastError string) string {
	if lastError == "" {
		return ""
	}
	return " after the error: " + clip(lastError, 300)
}

// fault returns an engine failure saying what went wrong.
func (e *Engine) fault(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errEngine, fmt.Sprintf(format, args...))
}

// ensure starts the engine and does the handshake, unless it runs.
func (e *Engine) ensure(ctx context.Context) error {
	if e.proc != nil {
		select {
		case <-e.proc.Exited():
			e.kill()
		default:
			return nil
		}
	}
	var pr *protocol.Process
	switch {
	case len(e.cfg.Command) > 0:
		var err error
		if pr, err = protocol.StartProgram(e.cfg.Command); err != nil {
			return fmt.Errorf("%w: starting %s: %v", errEngine, e.cfg.Command[0], err)
		}
	case e.cfg.Serve != nil:
		pr = protocol.StartInProcess(e.cfg.Serve)
	default:
		return errors.New("no engine command")
	}
	e.proc, e.starts = pr, e.starts+1
	e.rules = rules.DefaultRules()
	e.declared = map[string]bool{}
	if err := e.handshake(ctx); err != nil {
		e.kill()
		return err
	}
	return nil
}

func (e *Engine) handshake(ctx context.Context) error {
	if err := e.proc.Send(protocol.Hello{}); err != nil {
		return e.procError("sending the handshake", err)
	}
	err := e.await(ctx, "endodoiok", func(r protocol.Reply) bool {
		switch r := r.(type) {
		case protocol.ID:
			if r.Key == "name" {
				e.name = clip(r.Value, 100)
			}
		case protocol.Option:
			e.declared[strings.ToLower(r.Name)] = true
		case protocol.HelloOK:
			return true
		}
		return false
	})
	if err != nil {
		return err
	}
	var cmds []protocol.Command
	for _, o := range e.cfg.Options {
		cmds = append(cmds, protocol.SetOption{Name: o.Name, Value: o.Value})
	}
	if e.cfg.Level > 0 {
		if !e.declared["level"] {
			return e.fault("the engine declares no Level option, needed to play at level %d", e.cfg.Level)
		}
		cmds = append(cmds, protocol.SetOption{Name: "Level", Value: strconv.Itoa(e.cfg.Level)})
	}
	cmds = append(cmds, protocol.IsReady{})
	if err := e.proc.Send(cmds...); err != nil {
		return e.procError("sending options", err)
	}
	return e.await(ctx, "readyok", isReadyOK)
}

func isReadyOK(r protocol.Reply) bool {
	_, ok := r.(protocol.ReadyOK)
	return ok
}

// setRules sets the engine's rules options to r, if they differ.
func (e *Engine) setRules(ctx context.Context, r rules.Rules) error {
	if r.Variant == e.rules.Variant && r.Laps() == e.rules.Laps() {
		return nil
	}
	cmds, err := protocol.RulesOptions(e.rules, r, e.declared)
	if err != nil {
		return err
	}
	cmds = append(cmds, protocol.IsReady{})
	if err := e.proc.Send(cmds...); err != nil {
		return e.procError("sending the rules", err)
	}
	if err := e.await(ctx, "readyok", isReadyOK); err != nil {
		return err
	}
	e.rules = r
	return nil
}

// await reads the engine's replies until want accepts one, within the
// handshake's timeout.
func (e *Engine) await(ctx context.Context, what string, want func(protocol.Reply) bool) error {
	timer := time.NewTimer(handshakeTimeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-e.proc.Lines():
			if !ok {
				return e.procError("waiting for "+what, nil)
			}
			r, err := protocol.ParseReply(line)
			if err != nil {
				continue
			}
			if s, ok := r.(protocol.InfoString); ok {
				if text, isErr := s.Error(); isErr {
					e.log.Warn("the engine reports an error", "text", clip(text, 300))
				}
			}
			if want(r) {
				return nil
			}
		case <-timer.C:
			return e.fault("no %s within %v", what, handshakeTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// procError describes the engine's end, or its broken pipe (cause), while
// doing something.
func (e *Engine) procError(doing string, cause error) error {
	pr := e.proc
	if !pr.WaitExit(time.Second) {
		if cause != nil {
			return e.fault("%v while %s", cause, doing)
		}
		return e.fault("the engine's output ended while %s", doing)
	}
	detail := "the engine exited"
	if err := pr.Err(); err != nil {
		detail += " (" + err.Error() + ")"
	}
	if t := pr.Stderr(); t != "" {
		detail += ", saying: " + clip(t, 200)
	}
	return e.fault("%s while %s", detail, doing)
}

// kill ends the engine at once.
func (e *Engine) kill() {
	if e.proc != nil {
		e.proc.Kill()
		e.proc = nil
	}
}

// Close asks the engine to quit, and kills it if it does not within a
// moment.
func (e *Engine) Close() {
	if e.proc == nil {
		return
	}
	e.proc.End()
	e.proc = nil
}
