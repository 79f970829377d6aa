package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/endodoi/endodoi/rules"
)

// MaxLine bounds one input line of a session (a position with a long
// game's moves fits many times over); a longer line ends the session.
const MaxLine = 1 << 20

// Handler is the engine behind a session served by Serve. Serve calls its
// methods from one goroutine, one at a time: Search runs on a goroutine of
// its own, but the commands that arrive during a search wait for its end,
// so no other method runs while it does.
type Handler interface {
	// Hello returns the handshake's id and option lines; Serve adds
	// HelloOK.
	Hello() []Reply
	// Ready makes the engine ready after option changes; Serve answers
	// ReadyOK after it, error or not.
	Ready() error
	// SetOption, NewGame and Position carry out those commands. An error
	// is reported to the client, and the session goes on.
	SetOption(name, value string) error
	NewGame() error
	Position(c Position) error
	// Search searches the current position within the limits until ctx
	// is done, calling report after each completed iteration, and returns
	// the best move, or rules.NoMove when the game is over. It should
	// return a move promptly when ctx is done, even if it is done before
	// the search begins.
	Search(ctx context.Context, g Go, report func(Info)) (rules.Move, error)
}

// Serve reads commands from in, one a line, and answers on out through h
// until Quit, the end of the input, or ctx's end; see
// docs/engine-protocol.md for the behaviour. Only Serve's own goroutine
// writes to out: the search reports to it through a channel.
//
// During a search, Stop and IsReady are answered at once, and Quit and the
// end of the input stop the search; other commands wait for the search's
// end and are then carried out in order. After Quit or the end of the
// input, the waiting commands are still carried out, with any search among
// them stopped at once (it still answers BestMove), and Serve returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, h Handler) error {
	s := &server{h: h, out: out}
	done := make(chan struct{})
	defer close(done)
	lineCh, readCh := make(chan string), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
		for sc.Scan() {
			select {
			case lineCh <- sc.Text():
			case <-done:
				return
			}
		}
		readCh <- sc.Err()
	}()
	// Set to nil once the session ends, so that no more input is taken.
	lines, readErr := lineCh, readCh

	var exitErr error
	for {
		for s.search == nil && len(s.queue) > 0 && s.err == nil {
			next := s.queue[0]
			s.queue = s.queue[1:]
			s.execute(ctx, next.cmd, next.err)
		}
		if s.err != nil {
			s.abort()
			return s.err
		}
		if s.search == nil && s.quitting {
			return exitErr
		}
		var events chan event
		if s.search != nil {
			events = s.search.events
		}
		select {
		case <-ctx.Done():
			s.abort()
			return ctx.Err()
		case line := <-lines:
			cmd, err := ParseCommand(line)
			if s.receive(ctx, cmd, err) {
				lines, readErr = nil, nil // read no further
			}
		case ev := <-events:
			s.event(ev)
		case err := <-readErr:
			// The end of the input acts like quit.
			lines, readErr = nil, nil
			switch {
			case errors.Is(err, bufio.ErrTooLong):
				s.write(Errorf("input line longer than %d bytes; stopping", MaxLine))
				exitErr = fmt.Errorf("reading input: line longer than %d bytes", MaxLine)
			case err != nil:
				exitErr = fmt.Errorf("reading input: %w", err)
			}
			s.quit()
		}
	}
}

// server is the state of one Serve call, used by its goroutine only.
type server struct {
	h        Handler
	out      io.Writer
	buf      []byte
	err      error      // the first write error
	search   *searchRun // the running search, or nil
	queue    []pending  // commands waiting for the search's end
	quitting bool       // Quit or the end of the input has come
}

// pending is a command line waiting for a search's end, or what was wrong
// with it.
type pending struct {
	cmd Command
	err error
}

// searchRun is a running search.
type searchRun struct {
	cancel context.CancelFunc
	events chan event // iterations, then the end; unbuffered, so in order
}

// event is a search's report of an iteration or, when done, of its end.
type event struct {
	info Info
	done bool
	move rules.Move
	err  error
}

// write writes one reply line with one Write.
func (s *server) write(r Reply) {
	if s.err != nil {
		return
	}
	s.buf = append(r.Append(s.buf[:0]), '\n')
	if _, err := s.out.Write(s.buf); err != nil {
		s.err = fmt.Errorf("writing output: %w", err)
	}
}

// receive handles a command line as it arrives; it reports whether the
// session is ending, so that no more input is read.
func (s *server) receive(ctx context.Context, cmd Command, err error) (quit bool) {
	if errors.Is(err, ErrEmpty) {
		return false
	}
	switch cmd.(type) {
	case Quit:
		s.quit()
		return true
	case IsReady:
		if s.search != nil {
			// The engine is busy but alive: answered at once.
			s.write(ReadyOK{})
			return false
		}
	case Stop:
		if s.search != nil {
			s.search.cancel()
			return false
		}
	}
	if s.search != nil {
		s.queue = append(s.queue, pending{cmd, err})
		return false
	}
	s.execute(ctx, cmd, err)
	return false
}

// quit starts the session's end: the running search stops.
func (s *server) quit() {
	s.quitting = true
	if s.search != nil {
		s.search.cancel()
	}
}

// execute carries out a command while no search runs.
func (s *server) execute(ctx context.Context, cmd Command, err error) {
	if err != nil {
		if !errors.Is(err, ErrEmpty) {
			s.write(Errorf("%v", err))
		}
		return
	}
	report := func(err error) {
		if err != nil {
			s.write(Errorf("%v", err))
		}
	}
	switch c := cmd.(type) {
	case Hello:
		for _, r := range s.h.Hello() {
			s.write(r)
		}
		s.write(HelloOK{})
	case IsReady:
		report(s.h.Ready())
		s.write(ReadyOK{})
	case SetOption:
		report(s.h.SetOption(c.Name, c.Value))
	case NewGame:
		report(s.h.NewGame())
	case Position:
		report(s.h.Position(c))
	case Go:
		s.start(ctx, c)
	case Quit:
		s.quit()
	case Stop:
		// Nothing to stop.
	}
}

// start runs a search on its own goroutine.
func (s *server) start(ctx context.Context, g Go) {
	sctx, cancel := context.WithCancel(ctx)
	if s.quitting {
		cancel() // a search waiting behind quit only gives its move
	}
	run := &searchRun{cancel: cancel, events: make(chan event)}
	s.search = run
	go func() {
		defer cancel()
		move, err := s.h.Search(sctx, g, func(i Info) { run.events <- event{info: i} })
		run.events <- event{done: true, move: move, err: err}
	}()
}

// event writes a search's report; at its end, the bestmove.
func (s *server) event(ev event) {
	if !ev.done {
		s.write(ev.info)
		return
	}
	if ev.err != nil {
		s.write(Errorf("search: %v", ev.err))
		ev.move = rules.NoMove
	}
	s.write(BestMove{Move: ev.move})
	s.search = nil
}

// abort stops the running search and writes what it still reports.
func (s *server) abort() {
	if s.search == nil {
		return
	}
	s.search.cancel()
	for s.search != nil {
		s.event(<-s.search.events)
	}
}
