package arena

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
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

	proc    *process // nil when not running
	sent    rules.Rules
	options map[string]bool // options the program declared, lower case
	idName  string
	start   rules.Position
}

func newCmdPlayer(s Spec, r rules.Rules) *cmdPlayer {
	return &cmdPlayer{spec: s, r: r}
}

func (p *cmdPlayer) Name() string { return p.spec.raw }

// process is a running program: its input, its output lines and its end.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // output lines; closed at the end of the output
	exited chan struct{} // closed once the program has exited and been waited for
	quit   chan struct{} // closed to make the reader discard the output
	once   sync.Once
	stderr *tail
	err    error // Wait's error, valid once exited is closed
}

// tail keeps the last few hundred bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 512

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func startProcess(argv []string) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	pr := &process{
		cmd:    cmd,
		stdin:  stdin,
		lines:  make(chan string, 64),
		exited: make(chan struct{}),
		quit:   make(chan struct{}),
		stderr: &tail{},
	}
	cmd.Stderr = pr.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 4096), 1<<20)
	read:
		for sc.Scan() {
			select {
			case pr.lines <- strings.TrimRight(sc.Text(), "\r"):
			case <-pr.quit:
				break read
			}
		}
		close(pr.lines)
		if _, err := io.Copy(io.Discard, stdout); err != nil {
			_ = err // the pipe is closed by Wait below or was broken
		}
		pr.err = cmd.Wait()
		close(pr.exited)
	}()
	return pr, nil
}

// send writes commands to the program, one a line.
func (pr *process) send(cmds ...protocol.Command) error {
	var b []byte
	for _, c := range cmds {
		b = append(c.Append(b), '\n')
	}
	_, err := pr.stdin.Write(b)
	return err
}

func (pr *process) discard() { pr.once.Do(func() { close(pr.quit) }) }

// kill ends the program at once and waits for it.
func (pr *process) kill() {
	killProcess(pr.cmd)
	pr.stdin.Close()
	pr.discard()
	<-pr.exited
}

// end asks the program to quit, waits a little, then kills it.
func (pr *process) end() {
	_ = pr.send(protocol.Quit{})
	pr.stdin.Close()
	pr.discard()
	select {
	case <-pr.exited:
	case <-time.After(2 * time.Second):
		pr.kill()
	}
}

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
		case l, ok := <-p.proc.lines:
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
	select {
	case <-pr.exited:
	case <-time.After(time.Second):
		if cause != nil {
			return fmt.Errorf("%v while %s", cause, doing)
		}
		return fmt.Errorf("output ended while %s", doing)
	}
	var detail []string
	if pr.err != nil {
		detail = append(detail, pr.err.Error())
	}
	if t := pr.stderr.String(); t != "" {
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
		p.proc.kill()
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
	if err := p.proc.send(protocol.NewGame{}); err != nil {
		return p.fail(p.exitError("sending newgame", err))
	}
	return nil
}

// launch starts the program and does the handshake.
func (p *cmdPlayer) launch(ctx context.Context) error {
	pr, err := startProcess(p.spec.argv)
	if err != nil {
		return err
	}
	p.proc = pr
	p.sent = rules.DefaultRules()
	p.options = map[string]bool{}
	if err := pr.send(protocol.Hello{}); err != nil {
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
	var cmds []protocol.Command
	if r.Variant != p.sent.Variant {
		if !p.options["variant"] {
			return fmt.Errorf("the program declares no Variant option, needed for the %s variant", r.Variant)
		}
		cmds = append(cmds, protocol.SetOption{Name: "Variant", Value: r.Variant.String()})
	}
	if r.Laps() != p.sent.Laps() {
		if !p.options["maxlaps"] {
			return fmt.Errorf("the program declares no MaxLaps option, needed for a lap cap of %d", r.Laps())
		}
		cmds = append(cmds, protocol.SetOption{Name: "MaxLaps", Value: strconv.Itoa(r.Laps())})
	}
	cmds = append(cmds, protocol.IsReady{})
	if err := p.proc.send(cmds...); err != nil {
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
	if err := p.proc.send(protocol.Position{Start: g.Start(), Moves: g.Moves()}, protocol.Go{Limits: lim}); err != nil {
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
			_ = p.proc.send(protocol.Stop{})
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
		p.proc.end()
		p.proc = nil
	}
	return nil
}
