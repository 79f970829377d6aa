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

// Reply is one line from the engine to the client: ID, Option, HelloOK,
// ReadyOK, Info, InfoString or BestMove.
type Reply interface {
	// Append appends the reply's line, without a newline, to b.
	Append(b []byte) []byte
	String() string
	reply()
}

// ID is "id <Key> <Value>", where Key is name or author.
type ID struct {
	Key, Value string
}

// Option declares an option in the handshake: "option name <Name> type
// <Type> default <Default>", then "min <Min> max <Max>" for a spin or
// "var <v>" for each of a combo's Vars.
type Option struct {
	Name    string
	Type    string // "spin" or "combo"
	Default string
	Min     int // spin
	Max     int // spin
	Vars    []string
}

// Option types.
const (
	Spin  = "spin"
	Combo = "combo"
)

// HelloOK ends the handshake: "endodoiok".
type HelloOK struct{}

// ReadyOK answers IsReady.
type ReadyOK struct{}

// Info reports a completed iteration of a search: "info depth D score S
// [exact] nodes N nps N time MS pv m1 m2 ...".
type Info struct {
	Depth int
	Score engine.Score
	Exact bool
	Nodes uint64
	NPS   uint64
	Time  time.Duration // a whole number of milliseconds
	PV    []rules.Move
}

// InfoString is a message, "info string <Text>"; errors begin "error: ".
type InfoString struct {
	Text string
}

// BestMove ends a search: "bestmove <m>", or "bestmove none" for
// rules.NoMove.
type BestMove struct {
	Move rules.Move
}

func (ID) reply()         {}
func (Option) reply()     {}
func (HelloOK) reply()    {}
func (ReadyOK) reply()    {}
func (Info) reply()       {}
func (InfoString) reply() {}
func (BestMove) reply()   {}

// InfoFrom converts the engine's report of an iteration, with the time
// truncated to milliseconds.
func InfoFrom(i engine.Info) Info {
	return Info{Depth: i.Depth, Score: i.Score, Exact: i.Exact, Nodes: i.Nodes, NPS: i.NPS(),
		Time: i.Elapsed.Truncate(time.Millisecond), PV: i.PV}
}

// Errorf returns the InfoString reporting an error.
func Errorf(format string, args ...any) InfoString {
	return InfoString{Text: "error: " + fmt.Sprintf(format, args...)}
}

// Error returns the error an InfoString reports, and whether it reports
// one.
func (r InfoString) Error() (string, bool) {
	msg, ok := strings.CutPrefix(r.Text, "error:")
	return strings.TrimSpace(msg), ok
}

// Append implements Reply.
func (r ID) Append(b []byte) []byte {
	return append(append(append(append(b, "id "...), r.Key...), ' '), r.Value...)
}

// Append implements Reply.
func (r Option) Append(b []byte) []byte {
	b = fmt.Appendf(b, "option name %s type %s default %s", r.Name, r.Type, r.Default)
	if r.Type == Spin {
		b = fmt.Appendf(b, " min %d max %d", r.Min, r.Max)
	}
	for _, v := range r.Vars {
		b = append(append(b, " var "...), v...)
	}
	return b
}

// Append implements Reply.
func (HelloOK) Append(b []byte) []byte { return append(b, "endodoiok"...) }

// Append implements Reply.
func (ReadyOK) Append(b []byte) []byte { return append(b, "readyok"...) }

// Append implements Reply.
func (r Info) Append(b []byte) []byte {
	b = fmt.Appendf(b, "info depth %d score %s", r.Depth, r.Score)
	if r.Exact {
		b = append(b, " exact"...)
	}
	b = fmt.Appendf(b, " nodes %d nps %d time %d pv", r.Nodes, r.NPS, r.Time.Milliseconds())
	for _, m := range r.PV {
		b = append(append(b, ' '), m.String()...)
	}
	return b
}

// Append implements Reply.
func (r InfoString) Append(b []byte) []byte { return append(append(b, "info string "...), r.Text...) }

// Append implements Reply.
func (r BestMove) Append(b []byte) []byte {
	if r.Move == rules.NoMove {
		return append(b, "bestmove none"...)
	}
	return append(append(b, "bestmove "...), r.Move.String()...)
}

func (r ID) String() string         { return string(r.Append(nil)) }
func (r Option) String() string     { return string(r.Append(nil)) }
func (r HelloOK) String() string    { return string(r.Append(nil)) }
func (r ReadyOK) String() string    { return string(r.Append(nil)) }
func (r Info) String() string       { return string(r.Append(nil)) }
func (r InfoString) String() string { return string(r.Append(nil)) }
func (r BestMove) String() string   { return string(r.Append(nil)) }

// ParseReply reads one reply line. It returns ErrEmpty for a blank line; a
// client should skip lines it cannot read rather than give up.
func ParseReply(line string) (Reply, error) {
	f := fields(line)
	if len(f) == 0 {
		return nil, ErrEmpty
	}
	switch {
	case f[0] == "id" && len(f) >= 3:
		return ID{Key: f[1], Value: strings.Join(f[2:], " ")}, nil
	case f[0] == "option":
		return parseOption(f[1:])
	case f[0] == "endodoiok" && len(f) == 1:
		return HelloOK{}, nil
	case f[0] == "readyok" && len(f) == 1:
		return ReadyOK{}, nil
	case f[0] == "info" && len(f) >= 2 && f[1] == "string":
		// The text is kept as written after "info string ", spaces and all.
		_, text, _ := strings.Cut(strings.TrimRight(line, "\r\n"), "string")
		return InfoString{Text: strings.TrimLeft(text, " \t")}, nil
	case f[0] == "info":
		return parseInfo(f[1:])
	case f[0] == "bestmove" && len(f) >= 2:
		if f[1] == "none" {
			return BestMove{Move: rules.NoMove}, nil
		}
		m, err := rules.ParseMove(f[1])
		if err != nil {
			return nil, fmt.Errorf("bestmove %q: %w", f[1], err)
		}
		return BestMove{Move: m}, nil
	}
	return nil, fmt.Errorf("unknown reply %q", f[0])
}

func parseOption(f []string) (Reply, error) {
	if len(f) < 6 || f[0] != "name" || f[2] != "type" || f[4] != "default" {
		return nil, errors.New("option: want 'option name <Name> type <t> default <d> ...'")
	}
	o := Option{Name: f[1], Type: f[3]}
	rest := f[5:]
	// A combo's default may be empty: then the next word is "var".
	if len(rest) > 0 && !(o.Type == Combo && rest[0] == "var") {
		o.Default, rest = rest[0], rest[1:]
	}
	switch o.Type {
	case Spin:
		if len(rest) != 4 || rest[0] != "min" || rest[2] != "max" {
			return nil, fmt.Errorf("option %s: a spin wants 'min <a> max <b>'", o.Name)
		}
		var err1, err2 error
		o.Min, err1 = strconv.Atoi(rest[1])
		o.Max, err2 = strconv.Atoi(rest[3])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("option %s: min and max must be whole numbers", o.Name)
		}
	case Combo:
		for len(rest) >= 2 && rest[0] == "var" {
			o.Vars, rest = append(o.Vars, rest[1]), rest[2:]
		}
		if len(rest) > 0 {
			return nil, fmt.Errorf("option %s: want 'var <v>' after the default, got %q", o.Name, rest[0])
		}
	default:
		return nil, fmt.Errorf("option %s: unknown type %q", o.Name, o.Type)
	}
	return o, nil
}

func parseInfo(f []string) (Reply, error) {
	var r Info
	next := func(key string) (string, error) {
		if len(f) < 2 || f[0] != key {
			return "", fmt.Errorf("info: want %s", key)
		}
		v := f[1]
		f = f[2:]
		return v, nil
	}
	number := func(key string) (uint64, error) {
		v, err := next(key)
		if err != nil {
			return 0, err
		}
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("info %s: %q is not a whole number", key, v)
		}
		return x, nil
	}
	depth, err := number("depth")
	if err != nil {
		return nil, err
	}
	if depth > 1<<31 {
		return nil, fmt.Errorf("info depth: %d is too deep", depth)
	}
	r.Depth = int(depth)
	s, err := next("score")
	if err != nil {
		return nil, err
	}
	if r.Score, err = ParseScore(s); err != nil {
		return nil, fmt.Errorf("info score: %w", err)
	}
	if len(f) > 0 && f[0] == "exact" {
		r.Exact, f = true, f[1:]
	}
	if r.Nodes, err = number("nodes"); err != nil {
		return nil, err
	}
	if r.NPS, err = number("nps"); err != nil {
		return nil, err
	}
	ms, err := number("time")
	if err != nil {
		return nil, err
	}
	if ms > uint64(time.Duration(1<<63-1)/time.Millisecond) {
		return nil, fmt.Errorf("info time: %d ms is too long", ms)
	}
	r.Time = time.Duration(ms) * time.Millisecond
	if len(f) == 0 || f[0] != "pv" {
		return nil, errors.New("info: want pv")
	}
	for _, w := range f[1:] {
		m, err := rules.ParseMove(w)
		if err != nil {
			return nil, fmt.Errorf("info pv %q: %w", w, err)
		}
		r.PV = append(r.PV, m)
	}
	return r, nil
}

// ParseScore reads a score as Score.String writes it: seeds with a sign
// (none for 0) and at most two decimals, such as "+3.5", "-2" or "0".
func ParseScore(s string) (engine.Score, error) {
	bad := fmt.Errorf("%q is not a score (want seeds such as +3.5, -2 or 0)", s)
	if s == "0" {
		return 0, nil
	}
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, bad
	}
	whole, frac, dot := strings.Cut(s[1:], ".")
	if whole == "" || (dot && (frac == "" || len(frac) > 2)) {
		return 0, bad
	}
	w, err := strconv.ParseUint(whole, 10, 32)
	if err != nil || whole[0] == '+' {
		return 0, bad
	}
	var c uint64
	for i := range 2 {
		c *= 10
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, bad
			}
			c += uint64(frac[i] - '0')
		}
	}
	v := w*uint64(engine.Seed) + c
	if v >= uint64(engine.Infinity) {
		return 0, bad
	}
	if s[0] == '-' {
		return -engine.Score(v), nil
	}
	return engine.Score(v), nil
}
