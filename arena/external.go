package arena

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/endodoi/endodoi/protocol"
	"github.com/endodoi/endodoi/rules"
)

// cmdPlayer drives an external program over the engine protocol
// (docs/engine-protocol.md). The program is started at the first NewGame
// and again at the next NewGame after it failed (crashed, timed out or
// answered nonsense), so one failure forfeits one game, not the match.
type cmdPlayer struct {
	spec Spec
	r    rules.Rules

	proc    *protocol.Process // nil when not running
	sent    rules.Rules
	options map[string]bool // options the program declared, lower case
	idName  string
	start   rules.Position
}

func newCmdPlayer(s Spec, r rules.Rules) *cmdPlayer {
	return &cmdPlayer{spec: s, r: r}
}

func (p *cmdPlayer) Name() string { return p.spec.raw }

// errNoReply is returned when the program's output ends.
var errNoReply = errors.New("the program's output ended")

// await reads replies until want accepts one, the time runs out, the
// output ends or ctx is done. want gets each line, read as a reply (with
// the error if it is not one); it returns true to accept it, or an error
// to reject the answer.
func (p *cmdPlayer) await(ctx context.Context, timeout time.Duration, what string, want func(line string, r protocol.Reply, err error) (bool, error)) (protocol.Reply, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-p.proc.Lines():
			if !ok {
				return nil, p.exitError("waiting for "+what, nil)
			}
			r, err := protocol.ParseReply(l)
			if errors.Is(err, protocol.ErrEmpty) {
				continue
			}
			if done, err := want(l, r, err); done || err != nil {
				return r, err
			}
		case <-timer.C:
			return nil, fmt.Errorf("no %s within %v", what, timeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// is returns a want function for await that accepts a reply like r.
func is[R protocol.Reply]() func(string, protocol.Reply, error) (bool, error) {
	return func(_ string, r protocol.Reply, _ error) (bool, error) {
		_, ok := r.(R)
		return ok, nil
	}
}

// exitError describes the program's end, or its broken output or input
// (cause), while doing something.
func (p *cmdPlayer) exitError(doing string, cause error) error {
	pr := p.proc
	if !pr.WaitExit(time.Second) {
		if cause != nil {
			return fmt.Errorf("%v while %s", cause, doing)
		}
		return fmt.Errorf("output ended while %s", doing)
	}
	var detail []string
	if err := pr.Err(); err != nil {
		detail = append(detail, err.Error())
	}
	if t := pr.Stderr(); t != "" {
		detail = append(detail, "stderr: "+t)
	}
	msg := "the program exited"
	if len(detail) > 0 {
		msg += " (" + strings.Join(detail, "; ") + ")"
	}
	return fmt.Errorf("%s while %s", msg, doing)
}

// fail stops the program after an error, so that the next game starts it
// afresh, and returns err.
func (p *cmdPlayer) fail(err error) error {
	if p.proc != nil {
		p.proc.Kill()
		p.proc = nil
	}
	return err
}

func (p *cmdPlayer) NewGame(ctx context.Context, r rules.Rules, start rules.Position) error {
	p.r, p.start = r, start
	if p.proc == nil {
		if err := p.launch(ctx); err != nil {
			return p.fail(err)
		}
	}
	if p.sent != r {
		if err := p.setRules(ctx, r); err != nil {
			return p.fail(err)
		}
	}
	if err := p.proc.Send(protocol.NewGame{}); err != nil {
		return p.fail(p.exitError("sending newgame", err))
	}
	return nil
}

// launch starts the program and does the handshake.
func (p *cmdPlayer) launch(ctx context.Context) error {
	pr, err := protocol.StartProgram(p.spec.argv)
	if err != nil {
		return err
	}
	p.proc = pr
	p.sent = rules.DefaultRules()
	p.options = map[string]bool{}
	if err := pr.Send(protocol.Hello{}); err != nil {
		return p.exitError("sending the handshake", err)
	}
	_, err = p.await(ctx, HandshakeTimeout, "endodoiok", func(_ string, r protocol.Reply, _ error) (bool, error) {
		switch r := r.(type) {
		case protocol.ID:
			if r.Key == "name" {
				p.idName = r.Value
			}
		case protocol.Option:
			p.options[strings.ToLower(r.Name)] = true
		case protocol.HelloOK:
			return true, nil
		}
		return false, nil
	})
	return err
}

// setRules sends the rules options and waits for readyok.
func (p *cmdPlayer) setRules(ctx context.Context, r rules.Rules) error {
	cmds, err := protocol.RulesOptions(p.sent, r, p.options)
	if err != nil {
		return err
	}
	cmds = append(cmds, protocol.IsReady{})
	if err := p.proc.Send(cmds...); err != nil {
		return p.exitError("sending options", err)
	}
	if _, err := p.await(ctx, HandshakeTimeout, "readyok", is[protocol.ReadyOK]()); err != nil {
		return err
	}
	p.sent = r
	return nil
}

func (p *cmdPlayer) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	if p.proc == nil {
		return rules.NoMove, errors.New("the program is not running")
	}
	// The limits go as whole milliseconds, at least one.
	lim := p.spec.limits
	if lim.MoveTime > 0 {
		lim.MoveTime = max(lim.MoveTime.Truncate(time.Millisecond), time.Millisecond)
	}
	if err := p.proc.Send(protocol.Position{Start: g.Start(), Moves: g.Moves()}, protocol.Go{Limits: lim}); err != nil {
		return rules.NoMove, p.fail(p.exitError("sending go", err))
	}
	var lastError string
	reply, err := p.await(ctx, p.spec.timeout, "bestmove", func(line string, r protocol.Reply, err error) (bool, error) {
		if msg, ok := r.(protocol.InfoString); ok {
			if text, isErr := msg.Error(); isErr {
				lastError = text
			}
		}
		if err != nil && strings.HasPrefix(strings.TrimSpace(line), "bestmove") {
			return false, withLastError(fmt.Sprintf("bad bestmove line %q", line), lastError)
		}
		_, ok := r.(protocol.BestMove)
		return ok, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: let the program stop; it is not its fault.
			_ = p.proc.Send(protocol.Stop{})
			_, _ = p.await(context.Background(), time.Second, "bestmove", is[protocol.BestMove]())
			return rules.NoMove, ctx.Err()
		}
		return rules.NoMove, p.fail(err)
	}
	m := reply.(protocol.BestMove).Move
	if m == rules.NoMove {
		return rules.NoMove, p.fail(withLastError("bestmove none in a game that is not over", lastError))
	}
	if _, err := g.Position().Play(m, g.Rules()); err != nil {
		return rules.NoMove, p.fail(withLastError(fmt.Sprintf("illegal bestmove %s (%v)", m, err), lastError))
	}
	return m, nil
}

// withLastError returns an error saying msg and, if the program reported
// an error before, that error.
func withLastError(msg, lastError string) error {
	if lastError != "" {
		msg += " after error: " + lastError
	}
	return errors.New(msg)
}

func (p *cmdPlayer) Close() error {
	if p.proc != nil {
		p.proc.End()
		p.proc = nil
	}
	return nil
}
