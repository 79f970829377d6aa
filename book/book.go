// Package book is the opening book of proven values: the exact game-theoretic
// values of the positions near the starts of solved boards (docs/solutions.md),
// shipped in the binary so that the engine, the hints and the analysis board
// know them without any database on disk.
//
// A value is what an endgame database would give (package egtb): the best
// capture margin from here on that the side to move can force, in seeds, with
// no game history. The book's values come from proofs by search over endgame
// databases (command cmd/makebook writes the file); its tests check that they
// agree with each other and with the solutions table.
package book

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/endodoi/endodoi/rules"
)

//go:embed book.txt
var bookText string

// key is a position without its captured seeds, which do not change its
// future: the seeds of every hole, South's row first, and the side to move.
type key struct {
	holes  [2 * rules.MaxHoles]uint8
	n      uint8
	toMove rules.Side
}

func keyOf(p *rules.Position) (key, bool) {
	var k key
	n := p.Holes()
	for i := 0; i < 2*n; i++ {
		s := p.SeedsAt(i)
		if s > 255 {
			return key{}, false
		}
		k.holes[i] = uint8(s)
	}
	k.n, k.toMove = uint8(n), p.ToMove()
	return k, true
}

// Book holds the proven values of one ruleset's positions.
type Book struct {
	rules      rules.Rules
	values     map[key]int8
	minSeeds   int // fewest seeds on the board of any entry
	maxSeeds   int
	holesKnown [rules.MaxHoles + 1]bool
}

// Entry is one position of the book and its value.
type Entry struct {
	Rules    rules.Rules
	Position rules.Position // captured seeds are 0
	Value    int
}

var (
	loadOnce sync.Once
	books    map[rules.Rules]*Book
	entries  []Entry
	loadErr  error
)

func load() {
	books = map[rules.Rules]*Book{}
	entries, loadErr = Parse(bookText)
	if loadErr != nil {
		return
	}
	for _, e := range entries {
		b := books[e.Rules]
		if b == nil {
			b = &Book{rules: e.Rules, values: map[key]int8{}, minSeeds: rules.MaxBoardSeeds}
			books[e.Rules] = b
		}
		k, _ := keyOf(&e.Position)
		b.values[k] = int8(e.Value)
		b.minSeeds = min(b.minSeeds, e.Position.OnBoard())
		b.maxSeeds = max(b.maxSeeds, e.Position.OnBoard())
		b.holesKnown[e.Position.Holes()] = true
	}
}

// For returns the book of the ruleset r, or nil when it holds no position
// under r.
func For(r rules.Rules) *Book {
	loadOnce.Do(load)
	if loadErr != nil {
		return nil
	}
	return books[r.Canonical()]
}

// Entries returns every entry of the shipped book, in the file's order.
func Entries() ([]Entry, error) {
	loadOnce.Do(load)
	return entries, loadErr
}

// Rules returns the ruleset the book's values hold under.
func (b *Book) Rules() rules.Rules { return b.rules }

// Len returns the number of positions in the book.
func (b *Book) Len() int { return len(b.values) }

// Probe returns p's value for the side to move, and false when the book
// does not hold p. It allocates nothing.
func (b *Book) Probe(p *rules.Position) (int, bool) {
	if b == nil || !b.holesKnown[p.Holes()] {
		return 0, false
	}
	if s := p.OnBoard(); s < b.minSeeds || s > b.maxSeeds {
		return 0, false
	}
	k, ok := keyOf(p)
	if !ok {
		return 0, false
	}
	v, ok := b.values[k]
	return int(v), ok
}

// Parse reads a book file: one entry a line, "variant lapcap position value",
// for example "standard 1000 4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 8"; blank lines
// and lines starting with # are skipped. The captured seeds of the position
// must be 0.
func Parse(text string) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		e, err := parseEntry(s)
		if err != nil {
			return nil, fmt.Errorf("book: line %d: %w", line, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func parseEntry(s string) (Entry, error) {
	f := strings.Fields(s)
	if len(f) != 7 {
		return Entry{}, fmt.Errorf("%d fields, want 7 (variant lapcap position value)", len(f))
	}
	v, err := rules.ParseVariant(f[0])
	if err != nil {
		return Entry{}, err
	}
	laps, err := strconv.Atoi(f[1])
	if err != nil {
		return Entry{}, fmt.Errorf("lap cap %q: %w", f[1], err)
	}
	r, err := rules.NewRules(v, laps)
	if err != nil {
		return Entry{}, err
	}
	p, err := rules.ParsePosition(strings.Join(f[2:6], " "))
	if err != nil {
		return Entry{}, err
	}
	if p.Captured(rules.South) != 0 || p.Captured(rules.North) != 0 {
		return Entry{}, fmt.Errorf("position %s: captured seeds must be 0", p)
	}
	value, err := strconv.Atoi(f[6])
	if err != nil {
		return Entry{}, fmt.Errorf("value %q: %w", f[6], err)
	}
	if value < -p.OnBoard() || value > p.OnBoard() {
		return Entry{}, fmt.Errorf("value %d out of range for %d seeds on the board", value, p.OnBoard())
	}
	return Entry{Rules: r, Position: p, Value: value}, nil
}

// Format writes e as a line of the book file (without the newline).
func (e Entry) Format() string {
	return fmt.Sprintf("%s %d %s %d", e.Rules.Variant, e.Rules.Laps(), e.Position, e.Value)
}
