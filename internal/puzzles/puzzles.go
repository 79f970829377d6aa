// Package puzzles selects the browser game's puzzles from solved positions.
// On small boards (two rows of 3 or 4 holes, up to 12 or 14 seeds on the
// board) the endgame databases, built in memory in well under a second,
// know every move's exact value, so a puzzle's answer is proven, not
// guessed. Two kinds are chosen:
//
//   - "most": exactly one move gains the most over the rest of the game
//     (the seeds South will capture less those North will, with best play
//     on both sides, the move's own capture included);
//   - "save": exactly one move keeps a final result that is not a loss,
//     given the seeds both players have already captured.
//
// Each puzzle has a level from 1 to 3, from the board's size, whether the
// plain greedy capture is the answer, the answer's laps and the number of
// moves to choose from. The selection is deterministic: the file
// web/static/learn/puzzles.json is exactly what [Tables], [Generate] and
// [Marshal] produce, and `go generate ./internal/puzzles` writes it again. The tests
// check the file against the generator and re-derive every answer from the
// databases.
package puzzles

//go:generate go test -run ^TestFileIsGenerated$ -update .

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// Kinds of puzzle.
const (
	Most = "most" // find the move that gains the most
	Save = "save" // find the only move that does not lose
)

// Levels run from 1 (first steps) to MaxLevel.
const MaxLevel = 3

// Puzzle is one puzzle as the page reads it. South is always to move.
type Puzzle struct {
	ID       string `json:"id"`
	Level    int    `json:"level"`
	Kind     string `json:"kind"`
	Position string `json:"position"`
	Answer   string `json:"answer"`
	// Values holds every legal move's value: the seeds South gains over
	// North from here to the end of the game after that move (its own
	// capture included), with best play on both sides.
	Values map[string]int `json:"values"`
}

// board is one board the puzzles are drawn from: holes a row, the range of
// seeds on the board, and the seeds in all (on the board and captured), as
// in a game begun with three seeds a hole.
type board struct {
	holes, minSeeds, maxSeeds, total int
}

var boards = []board{
	{holes: 3, minSeeds: 6, maxSeeds: 12, total: 18},
	{holes: 4, minSeeds: 8, maxSeeds: 14, total: 24},
}

// perGroup is the number of puzzles of each kind at each level.
const perGroup = 5

// maxHole keeps puzzles readable: no hole holds more seeds than this.
const maxHole = 7

// Tables builds, in memory, the databases of every board the puzzles use,
// by holes a row.
func Tables(ctx context.Context) (map[int]*egtb.Tablebase, error) {
	out := map[int]*egtb.Tablebase{}
	for _, b := range boards {
		tb, err := egtb.Build(ctx, egtb.Options{Holes: b.holes, MaxSeeds: b.maxSeeds, Rules: rules.DefaultRules()})
		if err != nil {
			return nil, fmt.Errorf("puzzles: building the databases for %d holes: %w", b.holes, err)
		}
		out[b.holes] = tb
	}
	return out, nil
}

// candidate is a position worth a puzzle, with what grading needs.
type candidate struct {
	Puzzle
	hash uint64
}

// Generate selects the puzzles from the databases of [Tables]: perGroup of
// each kind at each level, ordered by level, then kind.
func Generate(ctx context.Context, tables map[int]*egtb.Tablebase) ([]Puzzle, error) {
	groups := map[[2]int][]candidate{} // {level, kind index}
	for _, b := range boards {
		tb := tables[b.holes]
		if tb == nil {
			return nil, fmt.Errorf("puzzles: no databases for %d holes a row", b.holes)
		}
		row := make([]int, 2*b.holes)
		for n := b.minSeeds; n <= b.maxSeeds; n++ {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("puzzles: %w", err)
			}
			for r := range egtb.Size(b.holes, n) {
				if err := egtb.Unrank(row, n, r); err != nil {
					return nil, fmt.Errorf("puzzles: %w", err)
				}
				for _, c := range consider(tb, b, row) {
					k := [2]int{c.Level, kindIndex(c.Kind)}
					groups[k] = append(groups[k], c)
				}
			}
		}
	}
	var out []Puzzle
	used := map[string]bool{} // boards already set: each is used once
	for level := 1; level <= MaxLevel; level++ {
		for kind := range 2 {
			picked := pick(groups[[2]int{level, kind}], used)
			if len(picked) < perGroup {
				return nil, fmt.Errorf("puzzles: only %d candidates of kind %s at level %d", len(picked), kindName(kind), level)
			}
			out = append(out, picked...)
		}
	}
	for i := range out {
		out[i].ID = fmt.Sprintf("p%02d", i+1)
	}
	return out, nil
}

func kindIndex(k string) int {
	if k == Save {
		return 1
	}
	return 0
}

func kindName(i int) string { return [2]string{Most, Save}[i] }

// consider returns the puzzles (none, one or two) that the board row, South
// to move, makes.
func consider(tb *egtb.Tablebase, b board, row []int) []candidate {
	h := b.holes
	for _, c := range row {
		if c > maxHole {
			return nil
		}
	}
	north := 0
	for _, c := range row[h:] {
		north += c
	}
	if north == 0 {
		return nil
	}
	p, err := rules.NewPositionFromRows(row[:h], row[h:], rules.South, 0, 0)
	if err != nil {
		return nil
	}
	moves, err := tb.Moves(p)
	if err != nil || len(moves) < 3 {
		return nil
	}
	order := slices.Clone(moves)
	slices.SortStableFunc(order, func(x, y egtb.MoveValue) int { return y.Value - x.Value })
	best, second := order[0], order[1]
	if best.Value == second.Value {
		return nil // no single answer
	}
	captured := b.total - p.OnBoard()
	hash := fnv.New64a()
	fmt.Fprint(hash, p.String())
	sum := hash.Sum64()

	var out []candidate
	// "most": a clear best move that gains something.
	if best.Value > 0 && best.Value-second.Value >= 2 {
		s := captured / 2
		if q, err := rules.NewPositionFromRows(row[:h], row[h:], rules.South, s, captured-s); err == nil {
			out = append(out, newCandidate(q, Most, moves, best.Move, tb.Rules(), sum))
		}
	}
	// "save": North ahead by d, with second < d <= best, so that only the
	// best move reaches a final margin of 0 or more. A draw is preferred.
	for _, d := range []int{best.Value, best.Value - 1} {
		if d <= second.Value || (captured-d)%2 != 0 || captured-d < 0 || captured+d < 0 {
			continue
		}
		s, nn := (captured-d)/2, (captured+d)/2
		if q, err := rules.NewPositionFromRows(row[:h], row[h:], rules.South, s, nn); err == nil {
			out = append(out, newCandidate(q, Save, moves, best.Move, tb.Rules(), sum))
		}
		break
	}
	return out
}

func newCandidate(p rules.Position, kind string, moves []egtb.MoveValue, answer rules.Move, r rules.Rules, hash uint64) candidate {
	values := map[string]int{}
	for _, mv := range moves {
		values[mv.Move.String()] = mv.Value
	}
	return candidate{
		Puzzle: Puzzle{Level: level(p, moves, answer, r), Kind: kind, Position: p.String(), Answer: answer.String(), Values: values},
		hash:   hash,
	}
}

// level grades a puzzle from 1 to 3. The plain greedy choice, the biggest
// capture now, being wrong weighs most; a longer board, many seeds to
// count, a long relay and many moves to weigh add to it.
func level(p rules.Position, moves []egtb.MoveValue, answer rules.Move, r rules.Rules) int {
	score := 0
	if p.Holes() >= 4 {
		score++
	}
	if p.OnBoard() > 10 {
		score++
	}
	var answerCaptures int
	for _, mv := range moves {
		if mv.Move == answer {
			answerCaptures = mv.Captures
		}
	}
	greedy := answerCaptures > 0
	for _, mv := range moves {
		if mv.Move != answer && mv.Captures >= answerCaptures {
			greedy = false
		}
	}
	if !greedy {
		score += 2
	}
	if _, sw, err := p.Trace(answer, r); err == nil && len(sw.Laps) >= 3 {
		score++
	}
	if len(moves) >= 4 {
		score++
	}
	switch {
	case score <= 1:
		return 1
	case score <= 3:
		return 2
	}
	return 3
}

// pick chooses perGroup candidates, spread over the boards and answers: in
// the order of their positions' hashes, skipping a board already used and
// one whose board size, or board size and answer letter, picked ones
// already share too often.
func pick(cs []candidate, used map[string]bool) []Puzzle {
	slices.SortFunc(cs, func(x, y candidate) int {
		switch {
		case x.hash < y.hash:
			return -1
		case x.hash > y.hash:
			return 1
		}
		return 0
	})
	var out []Puzzle
	seen := map[string]int{}
	for _, c := range cs {
		if len(out) == perGroup {
			break
		}
		pos, err := rules.ParsePosition(c.Position)
		if err != nil {
			continue
		}
		rows, _, _ := strings.Cut(c.Position, " ")
		size := fmt.Sprint(pos.Holes())
		letter := size + c.Answer
		if used[rows] || seen[size] >= (perGroup+1)/2 || seen[letter] >= 2 {
			continue
		}
		used[rows] = true
		seen[size]++
		seen[letter]++
		out = append(out, c.Puzzle)
	}
	return out
}

// Marshal returns the puzzle file: a JSON object with one puzzle a line,
// so that a change shows as a small diff.
func Marshal(ps []Puzzle) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\"puzzles\": [\n")
	for i, p := range ps {
		line, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("puzzles: %w", err)
		}
		buf.Write(line)
		if i < len(ps)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]}\n")
	return buf.Bytes(), nil
}

// Unmarshal reads a puzzle file.
func Unmarshal(data []byte) ([]Puzzle, error) {
	var f struct {
		Puzzles []Puzzle `json:"puzzles"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("puzzles: reading the file: %w", err)
	}
	return f.Puzzles, nil
}

// Check re-derives a puzzle's answer from the databases in tables (by holes
// a row) and returns an error saying what is wrong with it, if anything.
func Check(pz Puzzle, tables map[int]*egtb.Tablebase) error {
	p, err := rules.ParsePosition(pz.Position)
	if err != nil {
		return fmt.Errorf("puzzle %s: %w", pz.ID, err)
	}
	if p.ToMove() != rules.South {
		return fmt.Errorf("puzzle %s: North is to move; puzzles are set for South", pz.ID)
	}
	if pz.Level < 1 || pz.Level > MaxLevel {
		return fmt.Errorf("puzzle %s: level %d out of range", pz.ID, pz.Level)
	}
	tb := tables[p.Holes()]
	if tb == nil {
		return fmt.Errorf("puzzle %s: no databases for %d holes a row", pz.ID, p.Holes())
	}
	moves, err := tb.Moves(p)
	if err != nil {
		return fmt.Errorf("puzzle %s: %w", pz.ID, err)
	}
	got := map[string]int{}
	for _, mv := range moves {
		got[mv.Move.String()] = mv.Value
	}
	if !maps.Equal(got, pz.Values) {
		return fmt.Errorf("puzzle %s: the moves' values are %v, the databases say %v", pz.ID, pz.Values, got)
	}
	// The final margin from South's side after each move, with best play.
	lead := p.Captured(rules.South) - p.Captured(rules.North)
	var right []string
	for _, mv := range moves {
		switch pz.Kind {
		case Most:
			if mv.Value == slices.Max(slices.Collect(maps.Values(got))) {
				right = append(right, mv.Move.String())
			}
		case Save:
			if lead+mv.Value >= 0 {
				right = append(right, mv.Move.String())
			}
		default:
			return fmt.Errorf("puzzle %s: unknown kind %q", pz.ID, pz.Kind)
		}
	}
	if len(right) != 1 || right[0] != pz.Answer {
		return fmt.Errorf("puzzle %s (%s): the databases' answers are %v, the puzzle's is %s", pz.ID, pz.Kind, right, pz.Answer)
	}
	return nil
}
