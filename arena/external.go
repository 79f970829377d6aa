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
	buf     []byte
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

// send writes lines to the program.
func (pr *process) send(lines ...string) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(pr.stdin, b.String())
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
	_ = pr.send("quit")
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

// await reads lines until want accepts one, the time runs out, the output
// ends or ctx is done. It returns the accepted line.
func (p *cmdPlayer) await(ctx context.Context, timeout time.Duration, what string, want func(string) bool) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-p.proc.lines:
			if !ok {
				return "", p.exitError("waiting for "+what, nil)
			}
			if want(l) {
				return l, nil
			}
		case <-timer.C:
			return "", fmt.Errorf("no %s within %v", what, timeout)
		case <-ctx.Done():
			return "", ctx.Err()
		}
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
	if err := p.proc.send("newgame"); err != nil {
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
	p.sent = rules.Rules{Variant: rules.Standard, MaxLaps: rules.DefaultMaxLaps}
	p.options = map[string]bool{}
	if err := pr.send("endodoi"); err != nil {
		return p.exitError("sending the handshake", err)
	}
	_, err = p.await(ctx, HandshakeTimeout, "endodoiok", func(l string) bool {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "id" && f[1] == "name":
			p.idName = strings.Join(f[2:], " ")
		case len(f) >= 3 && f[0] == "option" && f[1] == "name":
			p.options[strings.ToLower(f[2])] = true
		}
		return len(f) == 1 && f[0] == "endodoiok"
	})
	return err
}

// setRules sends the rules options and waits for readyok.
func (p *cmdPlayer) setRules(ctx context.Context, r rules.Rules) error {
	var lines []string
	if r.Variant != p.sent.Variant {
		if !p.options["variant"] {
			return fmt.Errorf("the program declares no Variant option, needed for the %s variant", r.Variant)
		}
		lines = append(lines, "setoption name Variant value "+r.Variant.String())
	}
	if r.Laps() != p.sent.Laps() {
		if !p.options["maxlaps"] {
			return fmt.Errorf("the program declares no MaxLaps option, needed for a lap cap of %d", r.Laps())
		}
		lines = append(lines, "setoption name MaxLaps value "+strconv.Itoa(r.Laps()))
	}
	lines = append(lines, "isready")
	if err := p.proc.send(lines...); err != nil {
		return p.exitError("sending options", err)
	}
	if _, err := p.await(ctx, HandshakeTimeout, "readyok", func(l string) bool { return strings.TrimSpace(l) == "readyok" }); err != nil {
		return err
	}
	p.sent = r
	return nil
}

func (p *cmdPlayer) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	if p.proc == nil {
		return rules.NoMove, errors.New("the program is not running")
	}
	b := append(p.buf[:0], "position "...)
	b = g.Start().AppendText(b)
	if moves := g.Moves(); len(moves) > 0 {
		b = append(b, " moves"...)
		for _, m := range moves {
			b = append(b, ' ')
			b = append(b, m.String()...)
		}
	}
	p.buf = b
	goCmd := "go"
	lim := p.spec.limits
	if lim.Depth > 0 {
		goCmd += " depth " + strconv.Itoa(lim.Depth)
	}
	if lim.MoveTime > 0 {
		goCmd += " movetime " + strconv.FormatInt(lim.MoveTime.Milliseconds(), 10)
	}
	if lim.Nodes > 0 {
		goCmd += " nodes " + strconv.FormatUint(lim.Nodes, 10)
	}
	if err := p.proc.send(string(b), goCmd); err != nil {
		return rules.NoMove, p.fail(p.exitError("sending go", err))
	}
	var lastError string
	line, err := p.await(ctx, p.spec.timeout, "bestmove", func(l string) bool {
		if rest, ok := strings.CutPrefix(l, "info string error:"); ok {
			lastError = strings.TrimSpace(rest)
		}
		f := strings.Fields(l)
		return len(f) >= 1 && f[0] == "bestmove"
	})
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: let the program stop; it is not its fault.
			_ = p.proc.send("stop")
			_, _ = p.await(context.Background(), time.Second, "bestmove", func(l string) bool { return strings.HasPrefix(l, "bestmove") })
			return rules.NoMove, ctx.Err()
		}
		return rules.NoMove, p.fail(err)
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return rules.NoMove, p.fail(fmt.Errorf("bestmove without a move"))
	}
	m, err := rules.ParseMove(f[1])
	if err != nil {
		msg := fmt.Sprintf("bad bestmove %q", f[1])
		if lastError != "" {
			msg += " after error: " + lastError
		}
		return rules.NoMove, p.fail(errors.New(msg))
	}
	if _, err := g.Position().Play(m, g.Rules()); err != nil {
		msg := fmt.Sprintf("illegal bestmove %s (%v)", m, err)
		if lastError != "" {
			msg += " after error: " + lastError
		}
		return rules.NoMove, p.fail(errors.New(msg))
	}
	return m, nil
}

func (p *cmdPlayer) Close() error {
	if p.proc != nil {
		p.proc.end()
		p.proc = nil
	}
	return nil
}
