// Package protocol implements the endodoi engine protocol, a line protocol
// modelled on chess's UCI (docs/engine-protocol.md): the typed commands a
// client sends and the replies an engine writes, their parsing and
// formatting, a server loop that runs an engine behind the protocol (Serve
// with a Handler; Session is endodoi's own engine), and what a client needs
// to drive one.
//
// Every command and reply formats to exactly one line without its newline;
// parsing a formatted line gives back an equal value.
package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// Limits of the go command's numbers.
const (
	// MaxMoveTime bounds "go movetime": a day, in milliseconds.
	MaxMoveTime = 24 * 60 * 60 * 1000
	// maxNodes bounds "go nodes".
	maxNodes = 1<<63 - 1
)

// Command is one line from the client to the engine: Hello, IsReady,
// SetOption, NewGame, Position, Go, Stop or Quit.
type Command interface {
	// Append appends the command's line, without a newline, to b.
	Append(b []byte) []byte
	String() string
	command()
}

// Hello is the handshake, "endodoi".
type Hello struct{}

// IsReady asks the engine to answer ReadyOK once it is ready.
type IsReady struct{}

// SetOption is "setoption name <Name> value <Value>". Name and Value are
// the words of the line joined by single spaces.
type SetOption struct {
	Name, Value string
}

// NewGame starts a new game.
type NewGame struct{}

// Position is "position (startpos [H S] | <position>) [moves m1 m2 ...]".
// StartPos records that the start was given as startpos: it formats as
// "startpos" for the default start and "startpos H S" for another. The
// moves are read but not checked: only the rules in force can tell whether
// they are legal.
type Position struct {
	Start    rules.Position
	StartPos bool
	Moves    []rules.Move
}

// Go is "go [depth N] [movetime MS] [nodes N] [infinite]". Zero Limits
// (a bare "go") leaves the limits to the engine's Level option. MoveTime
// is a whole number of milliseconds.
type Go struct {
	Limits engine.Limits
}

// Stop ends the running search.
type Stop struct{}

// Quit ends the session.
type Quit struct{}

func (Hello) command()     {}
func (IsReady) command()   {}
func (SetOption) command() {}
func (NewGame) command()   {}
func (Position) command()  {}
func (Go) command()        {}
func (Stop) command()      {}
func (Quit) command()      {}

// Append implements Command.
func (Hello) Append(b []byte) []byte { return append(b, "endodoi"...) }

// Append implements Command.
func (IsReady) Append(b []byte) []byte { return append(b, "isready"...) }

// Append implements Command.
func (c SetOption) Append(b []byte) []byte {
	return append(append(append(append(b, "setoption name "...), c.Name...), " value "...), c.Value...)
}

// Append implements Command.
func (NewGame) Append(b []byte) []byte { return append(b, "newgame"...) }

// Append implements Command.
func (c Position) Append(b []byte) []byte {
	b = append(b, "position "...)
	switch {
	case !c.StartPos:
		b = c.Start.AppendText(b)
	case c.Start == defaultStart():
		b = append(b, "startpos"...)
	default:
		b = fmt.Appendf(b, "startpos %d %d", c.Start.Holes(), c.Start.SeedsAt(0))
	}
	if len(c.Moves) > 0 {
		b = append(b, " moves"...)
		for _, m := range c.Moves {
			b = append(append(b, ' '), m.String()...)
		}
	}
	return b
}

// Append implements Command.
func (c Go) Append(b []byte) []byte {
	b = append(b, "go"...)
	if c.Limits.Depth > 0 {
		b = fmt.Appendf(b, " depth %d", c.Limits.Depth)
	}
	if c.Limits.MoveTime > 0 {
		b = fmt.Appendf(b, " movetime %d", c.Limits.MoveTime.Milliseconds())
	}
	if c.Limits.Nodes > 0 {
		b = fmt.Appendf(b, " nodes %d", c.Limits.Nodes)
	}
	if c.Limits.Infinite {
		b = append(b, " infinite"...)
	}
	return b
}

// Append implements Command.
func (Stop) Append(b []byte) []byte { return append(b, "stop"...) }

// Append implements Command.
func (Quit) Append(b []byte) []byte { return append(b, "quit"...) }

func (c Hello) String() string     { return string(c.Append(nil)) }
func (c IsReady) String() string   { return string(c.Append(nil)) }
func (c SetOption) String() string { return string(c.Append(nil)) }
func (c NewGame) String() string   { return string(c.Append(nil)) }
func (c Position) String() string  { return string(c.Append(nil)) }
func (c Go) String() string        { return string(c.Append(nil)) }
func (c Stop) String() string      { return string(c.Append(nil)) }
func (c Quit) String() string      { return string(c.Append(nil)) }

// defaultStart is the start "position startpos" means.
func defaultStart() rules.Position {
	p, err := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	if err != nil {
		panic(err) // the defaults are valid
	}
	return p
}

// ErrEmpty is returned by ParseCommand and ParseReply for a line with no
// words, which the protocol ignores.
var ErrEmpty = errors.New("empty line")

// fields splits a line into words at spaces and tabs; a carriage return
// ending the line is dropped.
func fields(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' })
}

// ParseCommand reads one command line. It returns ErrEmpty for a blank
// line and a descriptive error, fit for an "info string error:" reply, for
// anything else it cannot read.
func ParseCommand(line string) (Command, error) {
	f := fields(line)
	if len(f) == 0 {
		return nil, ErrEmpty
	}
	cmd, args := f[0], f[1:]
	switch cmd {
	case "endodoi":
		return Hello{}, nil
	case "isready":
		return IsReady{}, nil
	case "setoption":
		return parseSetOption(args)
	case "newgame", "stop":
		if len(args) > 0 {
			return nil, fmt.Errorf("%s takes no arguments (got %q)", cmd, args[0])
		}
		if cmd == "stop" {
			return Stop{}, nil
		}
		return NewGame{}, nil
	case "position":
		return parsePosition(args)
	case "go":
		return parseGo(args)
	case "quit":
		return Quit{}, nil
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

func parseSetOption(args []string) (Command, error) {
	if len(args) == 0 || args[0] != "name" {
		return nil, errors.New("setoption: want 'setoption name <Name> value <v>'")
	}
	i := 1
	for i < len(args) && args[i] != "value" {
		i++
	}
	name := strings.Join(args[1:i], " ")
	if name == "" {
		return nil, errors.New("setoption: missing option name")
	}
	if i+1 >= len(args) {
		return nil, fmt.Errorf("setoption %s: missing value", name)
	}
	return SetOption{Name: name, Value: strings.Join(args[i+1:], " ")}, nil
}

func parsePosition(args []string) (Command, error) {
	cut := len(args)
	for i, a := range args {
		if a == "moves" {
			cut = i
			break
		}
	}
	spec := args[:cut]
	if len(spec) == 0 {
		return nil, errors.New("position: want 'position startpos [H S]' or 'position <position>', then optionally 'moves m1 m2 ...'")
	}
	var c Position
	var err error
	if spec[0] == "startpos" {
		c.StartPos = true
		switch len(spec) {
		case 1:
			c.Start = defaultStart()
		case 3:
			h, err1 := strconv.Atoi(spec[1])
			n, err2 := strconv.Atoi(spec[2])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("position startpos: holes and seeds must be whole numbers (got %q %q)", spec[1], spec[2])
			}
			if c.Start, err = rules.NewPosition(h, n); err != nil {
				return nil, fmt.Errorf("position startpos: %w", err)
			}
		default:
			return nil, errors.New("position startpos: want no numbers or both the holes per row and the seeds per hole")
		}
	} else if c.Start, err = rules.ParsePosition(strings.Join(spec, " ")); err != nil {
		return nil, fmt.Errorf("position: %w", err)
	}
	if cut < len(args) {
		for i, text := range args[cut+1:] {
			m, err := rules.ParseMove(text)
			if err != nil {
				return nil, fmt.Errorf("move %d (%s): %w", i+1, text, err)
			}
			c.Moves = append(c.Moves, m)
		}
	}
	return c, nil
}

func parseGo(args []string) (Command, error) {
	var lim engine.Limits
	for i := 0; i < len(args); i++ {
		word := args[i]
		var limit uint64
		switch word {
		case "infinite":
			lim.Infinite = true
			continue
		case "depth":
			limit = engine.MaxDepth
		case "movetime":
			limit = MaxMoveTime
		case "nodes":
			limit = maxNodes
		default:
			return nil, fmt.Errorf("go: unknown word %q (want depth N, movetime MS, nodes N or infinite)", word)
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("go %s: missing number", word)
		}
		i++
		x, err := strconv.ParseUint(args[i], 10, 64)
		if err != nil || x < 1 || x > limit {
			return nil, fmt.Errorf("go %s: %q is not a whole number from 1 to %d", word, args[i], limit)
		}
		switch word {
		case "depth":
			lim.Depth = int(x)
		case "movetime":
			lim.MoveTime = time.Duration(x) * time.Millisecond
		case "nodes":
			lim.Nodes = x
		}
	}
	return Go{Limits: lim}, nil
}
