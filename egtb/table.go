package egtb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/endodoi/endodoi/internal/prefetch"
	"github.com/endodoi/endodoi/rules"
)

// Tablebase is the set of databases of one board size and ruleset: the
// values of every position with at most MaxSeeds seeds on the board. Counts
// are loaded from their files on first use, or held in memory after
// [Build]. A Tablebase is safe for concurrent use.
type Tablebase struct {
	holes int
	rules rules.Rules
	dir   string // "" when every count is in memory
	max   int
	slots []slot // by seed count, 0..max
	stats []CountStats
}

// Stats describes the counts a build solved (not those it read from files).
func (tb *Tablebase) Stats() []CountStats { return tb.stats }

type slot struct {
	mu   sync.Mutex
	data atomic.Pointer[layer]
	err  error
}

// layer is one count's values (and, after an in-memory build that asked for
// them, the depths: plies of best play to the capture that realises each
// value).
type layer struct {
	values []int8
	depth  []uint16
}

// ErrNotFound is returned by Open when a directory holds no database for a
// board size and ruleset.
var ErrNotFound = errors.New("no endgame database")

// ErrBeyond is wrapped by the error for a position with more seeds on the
// board than the databases hold.
var ErrBeyond = errors.New("more seeds on the board than the databases hold")

// noDatabase is Open's error for a folder without databases for boards of
// holes a row under r: it wraps ErrNotFound and gives the command that
// builds them.
func noDatabase(dir string, holes int, r rules.Rules) error {
	return fmt.Errorf("%w for %d holes a row under %s in %s; build one with: endodoi egtb build --holes %d --max-seeds N --dir %s",
		ErrNotFound, holes, r, dir, holes, dir)
}

// beyondError is an error wrapping ErrBeyond whose message, of its own,
// says what to build.
type beyondError struct{ msg string }

func (e *beyondError) Error() string { return e.msg }
func (e *beyondError) Unwrap() error { return ErrBeyond }

func newTablebase(holes, max int, r rules.Rules, dir string) *Tablebase {
	return &Tablebase{holes: holes, rules: r, dir: dir, max: max, slots: make([]slot, max+1)}
}

// Open returns the databases in dir for boards of the given holes a row
// under rules r: every count from 0 up to the first one missing. It reads
// only the files' headers; each count's file is read and its checksum
// checked when first needed. When dir has not even the 0-seed file, it
// returns an error wrapping ErrNotFound that says what to build.
func Open(dir string, holes int, r rules.Rules) (*Tablebase, error) {
	if holes < rules.MinHoles || holes > rules.MaxHoles {
		return nil, fmt.Errorf("egtb: holes a row %d out of range (%d to %d)", holes, rules.MinHoles, rules.MaxHoles)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("egtb: %w", err)
	}
	r = r.Canonical()
	max := -1
	for n := 0; n <= MaxSeeds; n++ {
		path := filepath.Join(dir, FileName(holes, n, r))
		h, err := ReadHeader(path)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Holes != holes || h.Seeds != n || h.Rules != r {
			return nil, fmt.Errorf("egtb: %s holds %d seeds on %d holes under %s, not what its name says", path, h.Seeds, h.Holes, h.Rules)
		}
		max = n
	}
	if max < 0 {
		return nil, noDatabase(dir, holes, r)
	}
	return newTablebase(holes, max, r, dir), nil
}

// Holes returns the number of holes a row of the boards the databases hold.
func (tb *Tablebase) Holes() int { return tb.holes }

// Rules returns the rules the values hold under.
func (tb *Tablebase) Rules() rules.Rules { return tb.rules }

// MaxSeeds returns the most seeds on the board of a position the databases
// hold.
func (tb *Tablebase) MaxSeeds() int { return tb.max }

// Dir returns the directory the databases are read from ("" for an
// in-memory set).
func (tb *Tablebase) Dir() string { return tb.dir }

// layer returns count n's values, reading them on first use.
func (tb *Tablebase) layer(n int) (*layer, error) {
	s := &tb.slots[n]
	if l := s.data.Load(); l != nil {
		return l, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.data.Load(); l != nil {
		return l, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	if tb.dir == "" {
		s.err = fmt.Errorf("egtb: %d seeds: not built", n)
		return nil, s.err
	}
	values, err := readFile(filepath.Join(tb.dir, FileName(tb.holes, n, tb.rules)), tb.holes, n, tb.rules)
	if err != nil {
		s.err = err
		return nil, err
	}
	l := &layer{values: values}
	s.data.Store(l)
	return l, nil
}

// set installs count n's values.
func (tb *Tablebase) set(n int, l *layer) {
	tb.slots[n].data.Store(l)
}

// Values returns count n's values, indexed by [Rank] of the board with
// South to move, loading them if need be.
func (tb *Tablebase) Values(n int) ([]int8, error) {
	if n < 0 || n > tb.max {
		return nil, fmt.Errorf("egtb: %w: %d seeds asked for, at most %d held", ErrBeyond, n, tb.max)
	}
	l, err := tb.layer(n)
	if err != nil {
		return nil, err
	}
	return l.values, nil
}

// index returns the count and index of p's entry: its board, mirrored when
// North is to move. It returns false, without ranking, when p has more than
// max seeds on the board.
func index(p *rules.Position, max int) (n int, rank uint64, ok bool) {
	n = p.OnBoard()
	if n > max {
		return n, 0, false // most probes of a deep search, at the cost of a few word operations
	}
	// The holes are read from their packed words in the mover's sowing
	// order, and ranked as board.rank does, one table term a bar.
	const mask = len(rankTerms) - 1
	h := p.Holes()
	w := p.Packed()
	j := 0
	if p.ToMove() == rules.North {
		j = h
	}
	at := 0
	for i := 0; i < 2*h-1; i++ {
		at += int(w[(j>>2)&(len(w)-1)] >> (16 * uint(j&3)) & 0xFFFF)
		rank += rankTerms[at&mask]
		at += 257
		if j++; j == 2*h {
			j = 0
		}
	}
	return n, rank, true
}

// Probe returns the value of p for the side to move, and false when the
// databases do not hold it (another board size, too many seeds, or a file
// that cannot be read). It allocates nothing once the count is loaded.
func (tb *Tablebase) Probe(p *rules.Position) (int, bool) {
	if p.Holes() != tb.holes {
		return 0, false
	}
	n, r, ok := index(p, tb.max)
	if !ok {
		return 0, false
	}
	l, err := tb.layer(n)
	if err != nil {
		return 0, false
	}
	return int(l.values[r]), true
}

// prefetch asks for p's value to be brought into the cache, if the
// databases hold p and its count is loaded, so that a probe of p soon
// after does not wait for memory. p must be of the databases' board.
func (tb *Tablebase) prefetch(p *rules.Position) {
	n, r, ok := index(p, tb.max)
	if !ok {
		return
	}
	if l := tb.slots[n].data.Load(); l != nil && r < uint64(len(l.values)) {
		prefetch.Line(unsafe.Pointer(&l.values[r]))
	}
}

// Value returns the value of p for the side to move: the best future
// capture margin it can force. The error says why the databases do not hold
// p; for too many seeds on the board it wraps ErrBeyond.
func (tb *Tablebase) Value(p rules.Position) (int, error) {
	if p.Holes() != tb.holes {
		return 0, fmt.Errorf("egtb: the position has %d holes a row; the databases are for %d", p.Holes(), tb.holes)
	}
	if n := p.OnBoard(); n > tb.max {
		return 0, fmt.Errorf("egtb: %w: the position has %d seeds on the board, the databases for %d holes a row hold at most %d (build more with --max-seeds %d)",
			ErrBeyond, n, tb.holes, tb.max, n)
	}
	n, r, _ := index(&p, tb.max)
	l, err := tb.layer(n)
	if err != nil {
		return 0, err
	}
	return int(l.values[r]), nil
}

// depth returns p's depth (plies to the capture that realises its value),
// and false when unknown.
func (tb *Tablebase) depth(p *rules.Position) (int, bool) {
	if p.Holes() != tb.holes {
		return 0, false
	}
	n, r, ok := index(p, tb.max)
	if !ok {
		return 0, false
	}
	l, err := tb.layer(n)
	if err != nil || l.depth == nil {
		return 0, false
	}
	return int(l.depth[r]), true
}

// MoveValue is one legal move's value for the side to move: the seeds it
// captures plus the future margin after it, with best play on both sides.
type MoveValue struct {
	Move     rules.Move
	Value    int
	Captures int
}

// Moves returns the value of every legal move of p, in row order. p's own
// value is the largest (or, with no legal move, minus the seeds on the
// board).
func (tb *Tablebase) Moves(p rules.Position) ([]MoveValue, error) {
	if _, err := tb.Value(p); err != nil {
		return nil, err
	}
	mover := p.ToMove()
	var out []MoveValue
	for _, m := range p.LegalMoves(tb.rules) {
		q, _ := p.Play(m, tb.rules)
		gain := q.Captured(mover) - p.Captured(mover)
		v, err := tb.Value(q)
		if err != nil {
			return nil, err
		}
		out = append(out, MoveValue{Move: m, Value: gain - v, Captures: gain})
	}
	return out, nil
}

// PV returns a principal variation from p: moves of best play on both
// sides, at most limit of them. Where the databases hold depths (an
// in-memory build asked for them) the line makes progress: each move keeps
// the value and, where the value is not 0, heads for the capture that
// realises it, so the line ends at a game end or with the value realised.
// Without depths, and in positions worth 0, the line stops where a position
// would repeat.
func (tb *Tablebase) PV(p rules.Position, limit int) ([]rules.Move, error) {
	v, err := tb.Value(p)
	if err != nil {
		return nil, err
	}
	seen := map[rules.Position]bool{}
	var line []rules.Move
	for len(line) < limit {
		seen[p] = true
		moves, err := tb.Moves(p)
		if err != nil {
			return line, err
		}
		best := -1
		bestDepth := 0
		bestExit := false
		for i, mv := range moves {
			if mv.Value != v {
				continue
			}
			q, _ := p.Play(mv.Move, tb.rules)
			exit := mv.Captures > 0 || !q.HasLegalMove(tb.rules)
			d, known := tb.depth(&q)
			if !known {
				d = 0
			}
			switch {
			case best < 0,
				exit && !bestExit,
				exit == bestExit && d < bestDepth:
				best, bestDepth, bestExit = i, d, exit
			}
		}
		if best < 0 {
			return line, nil // no legal move: the game is over
		}
		q, _ := p.Play(moves[best].Move, tb.rules)
		if seen[q] {
			return line, nil // the line would repeat
		}
		line = append(line, moves[best].Move)
		p = q
		nv, err := tb.Value(p)
		if err != nil {
			return line, err
		}
		v = nv
	}
	return line, nil
}

// Describe states the result of best play from p, whose value for the side
// to move is value, counting the seeds already captured: "solved: South
// wins by 4", "solved: North wins by 2" or "solved: draw".
func Describe(p rules.Position, value int) string {
	switch margin := rules.FinalMargin(p, value, 1); {
	case margin > 0:
		return fmt.Sprintf("solved: South wins by %d", margin)
	case margin < 0:
		return fmt.Sprintf("solved: North wins by %d", -margin)
	}
	return "solved: draw"
}

// SouthValue returns a value for p's side to move as seen from South.
func SouthValue(p rules.Position, value int) int {
	if p.ToMove() == rules.North {
		return -value
	}
	return value
}
