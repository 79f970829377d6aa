// Package terminal plays En Dodoi at a terminal: a session reads a
// person's moves and commands from a reader and writes the board, the
// sowings and the engine's replies to a writer, against the engine or
// between two people at one keyboard.
package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// Config describes a game at the terminal.
type Config struct {
	// Game is the game to play on, from its current position.
	Game *rules.Game
	// Level is the engine's level (engine.MinLevel to engine.MaxLevel).
	Level int
	// Human is the side the person plays against the engine.
	Human rules.Side
	// TwoPlayers: two people play each other; the engine only gives hints.
	TwoPlayers bool
	// Laps shows every move's sowing lap by lap.
	Laps bool
	// Rand drives the engine's choices at the weaker levels; nil for a
	// fixed seed.
	Rand *rand.Rand
	// Save names the file to write the game record to when the game ends
	// or is left; empty for none.
	Save string
	// HintTime is how long a hint thinks: DefaultHintTime when zero.
	HintTime time.Duration
	// Tablebase, if not nil, gives the hints and the strongest levels the
	// exact values of endgames (package egtb). The hints and the strongest
	// levels know the opening book of proven values (package book) in any
	// case.
	Tablebase engine.Tablebase
}

// strongestLevel is the lowest level that plays what is proven perfectly:
// the endgame databases and the opening book.
const strongestLevel = 9

// DefaultHintTime is how long a hint thinks unless Config.HintTime says.
const DefaultHintTime = 500 * time.Millisecond

// MaxLine bounds one line of the player's input.
const MaxLine = 64 << 10

// Session is one game at the terminal: it reads moves and commands, one a
// line, and writes the board, the moves and the engine's replies.
type Session struct {
	out        io.Writer
	in         *bufio.Scanner
	g          *rules.Game
	rules      rules.Rules
	level      int
	tablebase  engine.Tablebase
	human      rules.Side // the side the person plays, against the engine
	twoPlayers bool
	laps       bool
	rng        *rand.Rand
	save       string
	hintTime   time.Duration
	eng        *engine.Engine // made when first needed
}

// NewSession returns a session of the game cfg describes, reading from in
// and writing to out.
func NewSession(cfg Config, in io.Reader, out io.Writer) (*Session, error) {
	if cfg.Game == nil {
		return nil, errors.New("terminal: no game")
	}
	if !cfg.TwoPlayers && (cfg.Level < engine.MinLevel || cfg.Level > engine.MaxLevel) {
		return nil, fmt.Errorf("terminal: level %d out of range (%d to %d)", cfg.Level, engine.MinLevel, engine.MaxLevel)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	if cfg.HintTime <= 0 {
		cfg.HintTime = DefaultHintTime
	}
	s := &Session{
		out:        out,
		in:         bufio.NewScanner(in),
		g:          cfg.Game,
		rules:      cfg.Game.Rules(),
		level:      cfg.Level,
		human:      cfg.Human & 1,
		twoPlayers: cfg.TwoPlayers,
		laps:       cfg.Laps,
		rng:        cfg.Rand,
		save:       cfg.Save,
		hintTime:   cfg.HintTime,
		tablebase:  cfg.Tablebase,
	}
	s.in.Buffer(make([]byte, 0, 4096), MaxLine)
	return s, nil
}

func (s *Session) printf(format string, args ...any) {
	fmt.Fprintf(s.out, format, args...)
}

// engine returns the engine, making it when first needed.
func (s *Session) engine() (*engine.Engine, error) {
	if s.eng == nil {
		cfg := engine.Config{Rules: s.rules}
		if s.twoPlayers || s.level >= strongestLevel {
			cfg.Tablebase, cfg.Book = s.tablebase, true
		}
		e, err := engine.New(cfg)
		if err != nil {
			return nil, err
		}
		s.eng = e
	}
	return s.eng, nil
}

// sideName names a side, telling who plays it.
func (s *Session) sideName(side rules.Side) string {
	if s.twoPlayers {
		return side.String()
	}
	if side == s.human {
		return side.String() + " (you)"
	}
	return fmt.Sprintf("%s (endodoi level %d)", side, s.level)
}

// Run plays the game to its end, or until the player quits or the input
// ends, then shows the moves and saves the record if asked to.
func (s *Session) Run(ctx context.Context) error {
	p := s.g.Start()
	s.printf("En Dodoi on %d holes a row, %s.\n", p.Holes(), s.rules)
	if s.twoPlayers {
		s.printf("Two players: South and North take turns at this keyboard.\n")
	} else {
		s.printf("You play %s; the engine plays %s at level %d.\n", s.human, s.human.Opponent(), s.level)
	}
	s.printf("Type a hole's letter to sow from it, or help for the commands.\n\n")
	DrawBoard(s.out, p)

	for !s.g.Over() {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := s.g.Position()
		if !s.twoPlayers && p.ToMove() != s.human {
			if err := s.engineMove(ctx); err != nil {
				return err
			}
			continue
		}
		s.printf("\n%s to move (%s), or: help, undo, hint, moves, board, quit > ", p.ToMove(), rules.MoveList(s.g.LegalMoves()))
		if !s.in.Scan() {
			s.printf("\n")
			if err := s.in.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return fmt.Errorf("reading input: line longer than %d bytes", MaxLine)
				}
				return fmt.Errorf("reading input: %w", err)
			}
			s.printf("End of input: the game is left unfinished after %s.\n", plural(s.g.Ply(), "move"))
			return s.finish()
		}
		quit, err := s.command(ctx, s.in.Text())
		if err != nil {
			return err
		}
		if quit {
			s.printf("Game left unfinished after %s.\n", plural(s.g.Ply(), "move"))
			return s.finish()
		}
	}
	s.printf("\n%s\n", s.endText())
	return s.finish()
}

// finish shows the moves and writes the record if asked to.
func (s *Session) finish() error {
	if s.g.Ply() > 0 {
		s.printf("Moves: %s\n", rules.NumberedMoves(s.g.Start().ToMove(), s.g.Moves()))
	}
	if s.save == "" {
		if s.g.Ply() > 0 {
			s.printf("(Run with --save FILE to keep the game record.)\n")
		}
		return nil
	}
	rec := record.New(s.g)
	rec.Event = "endodoi play"
	rec.Date = time.Now().Format("2006-01-02")
	switch {
	case s.twoPlayers:
		rec.South, rec.North = "South player", "North player"
	case s.human == rules.South:
		rec.South, rec.North = "human", fmt.Sprintf("endodoi level %d", s.level)
	default:
		rec.South, rec.North = fmt.Sprintf("endodoi level %d", s.level), "human"
	}
	f, err := os.Create(s.save)
	if err != nil {
		return fmt.Errorf("saving the game: %w", err)
	}
	if _, err := rec.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("saving the game to %s: %w", s.save, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("saving the game to %s: %w", s.save, err)
	}
	s.printf("Game record saved to %s.\n", s.save)
	return nil
}

// endText explains why the game ended and gives the result.
func (s *Session) endText() string {
	p := s.g.Position()
	var b strings.Builder
	switch s.g.Status() {
	case rules.NoLegalMove:
		b.WriteString(rules.GameOverText(p, s.g.Ply()))
	case rules.Repetition:
		fmt.Fprintf(&b, "This position has now occurred for the third time: the game is over. The %d seeds left on the board count for neither player.\n", p.OnBoard())
		south, north := s.g.Score()
		b.WriteString(rules.ResultText(south, north))
	default:
		return "The game is not over."
	}
	if !s.twoPlayers {
		if w, ok := s.g.Result().Winner(); ok {
			if w == s.human {
				b.WriteString(" You win!")
			} else {
				b.WriteString(" The engine wins.")
			}
		}
	}
	return b.String()
}

// engineMove lets the engine choose and play a move.
func (s *Session) engineMove(ctx context.Context) error {
	p := s.g.Position()
	s.printf("\n%s thinks...\n", p.ToMove())
	e, err := s.engine()
	if err != nil {
		return err
	}
	res, err := e.PlayLevel(ctx, p, s.g.History(), s.level, s.rng)
	if err != nil {
		return fmt.Errorf("the engine failed: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Move == rules.NoMove {
		return fmt.Errorf("the engine found no move in %v", p)
	}
	return s.playMove(res.Move)
}

// playMove plays a legal move and shows it.
func (s *Session) playMove(m rules.Move) error {
	before := s.g.Position()
	after, sow, err := before.Trace(m, s.rules)
	if err != nil {
		return fmt.Errorf("move %s: %w", m, err)
	}
	if err := s.g.Play(m); err != nil {
		return fmt.Errorf("move %s: %w", m, err)
	}
	if s.g.Position() != after {
		return fmt.Errorf("move %s: the traced sowing and the game disagree (%v, %v)", m, after, s.g.Position())
	}
	s.printf("%s\n", sow.Describe(before))
	if s.laps {
		s.printf("%s", sow.LapsText(before))
	}
	DrawBoard(s.out, after)
	return nil
}

// command handles one line of input; it reports whether the player quits.
func (s *Session) command(ctx context.Context, line string) (quit bool, err error) {
	word := strings.TrimSpace(line)
	if word == "" {
		return false, nil
	}
	if f := strings.Fields(word); len(f) > 1 {
		s.printf("One move or command at a time, please (got %q). Type help for the commands.\n", word)
		return false, nil
	}
	p := s.g.Position()
	switch strings.ToLower(word) {
	case "help", "?":
		s.help()
		return false, nil
	case "quit", "exit":
		return true, nil
	case "board":
		DrawBoard(s.out, p)
		return false, nil
	case "moves":
		if s.g.Ply() == 0 {
			s.printf("No moves yet.\n")
		} else {
			s.printf("%s\n", rules.NumberedMoves(s.g.Start().ToMove(), s.g.Moves()))
		}
		return false, nil
	case "undo":
		s.undo()
		return false, nil
	case "hint":
		return false, s.hint(ctx)
	}
	if utf8.RuneCountInString(word) != 1 {
		s.printf("Unknown command %q. Type a hole's letter (%s) or help.\n", word, rules.MoveList(s.g.LegalMoves()))
		return false, nil
	}
	c := word[0]
	var col int
	switch {
	case c >= 'a' && c <= 'z':
		col = int(c - 'a')
	case c >= 'A' && c <= 'Z':
		col = int(c - 'A')
	default:
		s.printf("Unknown command %q. Type a hole's letter (%s) or help.\n", word, rules.MoveList(s.g.LegalMoves()))
		return false, nil
	}
	if col >= p.Holes() {
		first, last := rules.NewMove(p.ToMove(), 0), rules.NewMove(p.ToMove(), p.Holes()-1)
		s.printf("No such hole: %s. This board has %d holes a row; %s plays %s to %s.\n", word, p.Holes(), p.ToMove(), first, last)
		return false, nil
	}
	// The letter names a hole of the side to move whatever its case: the
	// other side's holes cannot be played now.
	m := rules.NewMove(p.ToMove(), col)
	if _, err := p.Play(m, s.rules); err != nil {
		s.printf("Not a legal move: %s.\n", rules.DescribeMoveError(p, m, err))
		return false, nil
	}
	return false, s.playMove(m)
}

func (s *Session) help() {
	p := s.g.Position()
	s.printf(`Type the letter of one of %s's holes to lift its seeds and sow them
(either case will do: %s and %s are the same move now). Commands:
  help   this text
  undo   take back %s
  hint   ask the engine for the best move
  moves  list the moves played so far
  board  draw the board again
  quit   leave the game (the end of the input does too)
Seeds go counterclockwise: South's row left to right, North's row right to left.
A sowing that ends in an occupied hole lifts it and sows on; one that ends in
an empty hole of your own row captures the seeds opposite, plus the last seed.
The rules are in docs/rules.md.
`, p.ToMove(), strings.ToLower(rules.NewMove(p.ToMove(), 0).String()), strings.ToUpper(rules.NewMove(p.ToMove(), 0).String()),
		map[bool]string{true: "the last move", false: "your last move and the engine's reply"}[s.twoPlayers])
}

// undo takes back the last move (two players) or the person's last move
// and the engine's moves after it.
func (s *Session) undo() {
	if s.g.Ply() == 0 {
		s.printf("Nothing to undo: no move has been played.\n")
		return
	}
	var taken []rules.Move
	if s.twoPlayers {
		m, _ := s.g.Undo()
		taken = append(taken, m)
	} else {
		mine := false
		for i := 0; i < s.g.Ply(); i++ {
			if s.g.PositionAt(i).ToMove() == s.human {
				mine = true
				break
			}
		}
		if !mine {
			s.printf("Nothing to undo: you have not moved yet.\n")
			return
		}
		for {
			mover := s.g.PositionAt(s.g.Ply() - 1).ToMove()
			m, _ := s.g.Undo()
			taken = append([]rules.Move{m}, taken...)
			if mover == s.human {
				break
			}
		}
	}
	s.printf("Took back %s.\n", rules.MoveList(taken))
	DrawBoard(s.out, s.g.Position())
}

// hint asks the engine for the best move.
func (s *Session) hint(ctx context.Context) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	p := s.g.Position()
	res, err := e.Search(ctx, p, s.g.History(), engine.Limits{MoveTime: s.hintTime}, nil)
	if err != nil {
		return fmt.Errorf("the engine failed: %w", err)
	}
	if res.Move == rules.NoMove {
		s.printf("No hint: there is no legal move.\n")
		return nil
	}
	s.printf("Hint: %s (score %s for %s, %s; expected line %s)\n", res.Move, engine.ScoreText(res.Score, res.Exact),
		p.ToMove(), engine.FinalText(p, res.Score, res.Exact), rules.MoveList(res.PV))
	return nil
}

// plural writes a count and a noun, adding an s unless the count is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// DrawBoard draws p from South's side of the board: North's row on top,
// read right to left in its sowing order, South's row below, left to right.
// Each column pairs a hole with the hole opposite it.
func DrawBoard(w io.Writer, p rules.Position) {
	n := p.Holes()
	width := 2
	for i := 0; i < 2*n; i++ {
		width = max(width, len(strconv.Itoa(p.SeedsAt(i))))
	}
	cell := width + 2
	var b strings.Builder
	labels := func(side rules.Side) {
		b.WriteString("    ")
		for col := 0; col < n; col++ {
			j := col
			if side == rules.North {
				j = n - 1 - col
			}
			fmt.Fprintf(&b, " %*s", cell, rules.NewMove(side, j).String()+strings.Repeat(" ", (cell-1)/2))
		}
		b.WriteByte('\n')
	}
	rule := func() {
		b.WriteString("    +")
		for col := 0; col < n; col++ {
			b.WriteString(strings.Repeat("-", cell))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	row := func(side rules.Side, name, arrow string) {
		fmt.Fprintf(&b, "  %s |", name)
		for col := 0; col < n; col++ {
			j := col
			if side == rules.North {
				j = n - 1 - col
			}
			fmt.Fprintf(&b, " %*d |", width, p.Seeds(rules.NewMove(side, j)))
		}
		fmt.Fprintf(&b, " %s\n", arrow)
	}
	fmt.Fprintf(&b, "North  captured %d%s\n", p.Captured(rules.North), marker(p, rules.North))
	labels(rules.North)
	rule()
	row(rules.North, "N", "<- North sows right to left")
	rule()
	row(rules.South, "S", "-> South sows left to right")
	rule()
	labels(rules.South)
	fmt.Fprintf(&b, "South  captured %d%s\n", p.Captured(rules.South), marker(p, rules.South))
	fmt.Fprintf(&b, "%s\n", p)
	io.WriteString(w, b.String())
}

func marker(p rules.Position, s rules.Side) string {
	if p.ToMove() == s {
		return "  (to move)"
	}
	return ""
}
