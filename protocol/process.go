package protocol

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Process is a running engine that a client drives: a program started by
// StartProgram, or a Serve-like function run by StartInProcess behind pipes
// as if it were one. Send writes commands to it; Lines delivers its output.
type Process struct {
	cmd    *exec.Cmd          // nil for an engine in this process
	stop   context.CancelFunc // ends an engine in this process
	stdin  io.WriteCloser
	lines  chan string   // output lines; closed at the end of the output
	exited chan struct{} // closed once the engine has ended and been waited for
	quit   chan struct{} // closed to make the reader discard the output
	once   sync.Once
	stderr *tail
	err    error // how the engine ended, valid once exited is closed
}

// endGrace is how long End waits for the engine to quit before it kills
// it.
const endGrace = 2 * time.Second

func newProcess(stdin io.WriteCloser) *Process {
	return &Process{stdin: stdin, lines: make(chan string, 64), exited: make(chan struct{}),
		quit: make(chan struct{}), stderr: &tail{}}
}

// StartProgram starts the program argv (its path and arguments) in a
// process group of its own (see setProcessGroup).
func StartProgram(argv []string) (*Process, error) {
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
	pr := newProcess(stdin)
	pr.cmd = cmd
	cmd.Stderr = pr.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		pr.scan(stdout)
		_, _ = io.Copy(io.Discard, stdout) // until Wait closes it
		pr.err = cmd.Wait()
		close(pr.exited)
	}()
	return pr, nil
}

// StartInProcess runs serve as an engine in this process, behind pipes,
// as if it were a program: serve reads commands from in and writes replies
// to out until in ends or ctx does (Serve with a Handler is one). Its error
// is the engine's end.
func StartInProcess(serve func(ctx context.Context, in io.Reader, out io.Writer) error) *Process {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	pr := newProcess(inW)
	pr.stop = cancel
	served := make(chan error, 1)
	go func() {
		err := serve(ctx, inR, outW)
		inR.Close()
		outW.Close()
		served <- err
	}()
	go func() {
		pr.scan(outR)
		_, _ = io.Copy(io.Discard, outR)
		pr.err = <-served
		cancel()
		close(pr.exited)
	}()
	return pr
}

// scan sends the engine's output lines until it ends or the client stops
// listening, and closes lines.
func (pr *Process) scan(out io.Reader) {
	defer close(pr.lines)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 4096), MaxLine)
	for sc.Scan() {
		select {
		case pr.lines <- strings.TrimRight(sc.Text(), "\r"):
		case <-pr.quit:
			return
		}
	}
}

// Lines delivers the engine's output, a line at a time without its line
// end; it is closed when the output ends or the engine is ended.
func (pr *Process) Lines() <-chan string { return pr.lines }

// Exited is closed once the engine has ended; Err then says how.
func (pr *Process) Exited() <-chan struct{} { return pr.exited }

// Err is the program's exit error (or the in-process engine's), valid once
// Exited is closed.
func (pr *Process) Err() error { return pr.err }

// Stderr is the last line the program wrote to its standard error, for
// the message of its crash.
func (pr *Process) Stderr() string { return pr.stderr.String() }

// WaitExit waits up to d for the engine to end and reports whether it
// did.
func (pr *Process) WaitExit(d time.Duration) bool {
	select {
	case <-pr.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// Send writes commands to the engine, one a line.
func (pr *Process) Send(cmds ...Command) error {
	var b []byte
	for _, c := range cmds {
		b = append(c.Append(b), '\n')
	}
	_, err := pr.stdin.Write(b)
	return err
}

func (pr *Process) discard() { pr.once.Do(func() { close(pr.quit) }) }

// Kill ends the engine at once (a program's whole process group) and
// waits for it.
func (pr *Process) Kill() {
	if pr.cmd != nil {
		killProcess(pr.cmd)
	} else {
		pr.stop()
	}
	pr.stdin.Close()
	pr.discard()
	<-pr.exited
}

// End asks the engine to quit, and kills it if it does not within a
// moment.
func (pr *Process) End() {
	_ = pr.Send(Quit{})
	pr.stdin.Close()
	pr.discard()
	if !pr.WaitExit(endGrace) {
		pr.Kill()
	}
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

// String is the last line written.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// RulesOptions returns the setoption commands that change an engine set to
// the rules from to the rules to: Variant and MaxLaps, each only if it
// differs. declared holds the options the engine declared in its
// handshake, lower case; an error says which option is missing.
func RulesOptions(from, to rules.Rules, declared map[string]bool) ([]Command, error) {
	var cmds []Command
	if to.Variant != from.Variant {
		if !declared["variant"] {
			return nil, fmt.Errorf("the engine declares no Variant option, needed for the %s rules", to.Variant)
		}
		cmds = append(cmds, SetOption{Name: "Variant", Value: to.Variant.String()})
	}
	if to.Laps() != from.Laps() {
		if !declared["maxlaps"] {
			return nil, fmt.Errorf("the engine declares no MaxLaps option, needed for a lap cap of %d", to.Laps())
		}
		cmds = append(cmds, SetOption{Name: "MaxLaps", Value: strconv.Itoa(to.Laps())})
	}
	return cmds, nil
}
