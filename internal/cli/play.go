package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// defaultPlayLevel is the engine's level in play unless --level says.
const defaultPlayLevel = 5

// playHintTime is how long a hint thinks; tests shorten it.
var playHintTime = 500 * time.Millisecond

// maxPlayLine bounds one line of the player's input.
const maxPlayLine = 64 << 10

var playCommand = &command{
	name:    "play",
	summary: "play a game in the terminal against the engine, or between two people",
	usage: "[--level N] [--holes H] [--seeds S] [--position P] [--side south|north|random] [--first south|north]\n" +
		"                    [--two-players] [--laps] [--save FILE] [--variant V] [--max-laps L]",
	examples: []string{
		"endodoi play --holes 6 --level 3",
		"endodoi play --side north --laps --save game.txt",
		"endodoi play --two-players --holes 6",
		"endodoi play --position '3,0,1/2,2,2 n 5 7' --side north",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		level := fs.Int("level", defaultPlayLevel, fmt.Sprintf("the engine's strength, %d (beginner) to %d (strongest)", engine.MinLevel, engine.MaxLevel))
		holes := fs.Int("holes", rules.DefaultHoles, fmt.Sprintf("holes per row (%d to %d)", rules.MinHoles, rules.MaxHoles))
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, fmt.Sprintf("seeds per hole at the start (%d to %d)", rules.MinStartSeeds, rules.MaxStartSeeds))
		position := fs.String("position", "", "start from this position instead (not with --holes, --seeds or --first)")
		side := fs.String("side", "south", "the side you play against the engine: south, north or random")
		first := fs.String("first", "south", "the side that moves first: south or north")
		twoPlayers := fs.Bool("two-players", false, "two people play each other; the engine only gives hints")
		laps := fs.Bool("laps", false, "show every move's sowing lap by lap")
		save := fs.String("save", "", "write the game record to this file when the game ends or is left")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("play takes no operands (got %q); give a start with --position", args[0])
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			r, err := rf.rules()
			if err != nil {
				return err
			}
			if *level < engine.MinLevel || *level > engine.MaxLevel {
				return usagef("--level %d out of range (%d to %d)", *level, engine.MinLevel, engine.MaxLevel)
			}
			firstSide, err := parseSide("--first", *first, false)
			if err != nil {
				return err
			}
			var start rules.Position
			if set["position"] {
				for _, name := range []string{"holes", "seeds", "first"} {
					if set[name] {
						return usagef("--%s does not go with --position, which gives the whole start", name)
					}
				}
				if start, err = positionOperand([]string{*position}); err != nil {
					return err
				}
			} else {
				if *holes < rules.MinHoles || *holes > rules.MaxHoles {
					return usagef("--holes %d out of range (%d to %d)", *holes, rules.MinHoles, rules.MaxHoles)
				}
				if *seeds < rules.MinStartSeeds || *seeds > rules.MaxStartSeeds {
					return usagef("--seeds %d out of range (%d to %d)", *seeds, rules.MinStartSeeds, rules.MaxStartSeeds)
				}
				if start, err = rules.NewPosition(*holes, *seeds); err != nil {
					return usagef("%v", err)
				}
				start = start.WithToMove(firstSide)
			}
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
			human, err := parseSide("--side", *side, true)
			if err != nil {
				return err
			}
			if strings.EqualFold(*side, "random") {
				human = rules.Side(rng.IntN(2))
			}
			if *twoPlayers && set["side"] {
				return usagef("--side does not go with --two-players")
			}
			if *twoPlayers && set["level"] {
				return usagef("--level does not go with --two-players: the engine does not play")
			}
			g, err := rules.NewGame(start, r)
			if err != nil {
				return usagef("%v", err)
			}
			s := &playSession{
				out:        env.Stdout,
				in:         bufio.NewScanner(env.Stdin),
				g:          g,
				rules:      r,
				level:      *level,
				human:      human,
				twoPlayers: *twoPlayers,
				laps:       *laps,
				rng:        rng,
				save:       *save,
			}
			s.in.Buffer(make([]byte, 0, 4096), maxPlayLine)
			return s.run(ctx)
		}
	},
}

// parseSide reads --side or --first.
func parseSide(flagName, v string, random bool) (rules.Side, error) {
	switch strings.ToLower(v) {
	case "south", "s":
		return rules.South, nil
	case "north", "n":
		return rules.North, nil
	case "random":
		if random {
			return rules.South, nil
		}
	}
	if random {
		return 0, usagef("%s %q: want south, north or random", flagName, v)
	}
	return 0, usagef("%s %q: want south or north", flagName, v)
}

// playSession is one game at the terminal.
type playSession struct {
	out        io.Writer
	in         *bufio.Scanner
	g          *rules.Game
	rules      rules.Rules
	level      int
	human      rules.Side // the side the person plays, against the engine
	twoPlayers bool
	laps       bool
	rng        *rand.Rand
	save       string
	eng        *engine.Engine // made when first needed
}

func (s *playSession) printf(format string, args ...any) {
	fmt.Fprintf(s.out, format, args...)
}

// engine returns the engine, making it when first needed.
func (s *playSession) engine() (*engine.Engine, error) {
	if s.eng == nil {
		e, err := engine.New(engine.Config{Rules: s.rules})
		if err != nil {
			return nil, err
		}
		s.eng = e
	}
	return s.eng, nil
}

// history returns the positions before the current one, oldest first.
func (s *playSession) history() []rules.Position {
	h := make([]rules.Position, s.g.Ply())
	for i := range h {
		h[i] = s.g.PositionAt(i)
	}
	return h
}

// sideName names a side, telling who plays it.
func (s *playSession) sideName(side rules.Side) string {
	if s.twoPlayers {
		return side.String()
	}
	if side == s.human {
		return side.String() + " (you)"
	}
	return fmt.Sprintf("%s (endodoi level %d)", side, s.level)
}

func (s *playSession) run(ctx context.Context) error {
	p := s.g.Start()
	s.printf("En Dodoi on %d holes a row, %s.\n", p.Holes(), s.rules)
	if s.twoPlayers {
		s.printf("Two players: South and North take turns at this keyboard.\n")
	} else {
		s.printf("You play %s; the engine plays %s at level %d.\n", s.human, s.human.Opponent(), s.level)
	}
	s.printf("Type a hole's letter to sow from it, or help for the commands.\n\n")
	drawBoard(s.out, p)

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
					return fmt.Errorf("reading input: line longer than %d bytes", maxPlayLine)
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
func (s *playSession) finish() error {
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
func (s *playSession) endText() string {
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
func (s *playSession) engineMove(ctx context.Context) error {
	p := s.g.Position()
	s.printf("\n%s thinks...\n", p.ToMove())
	e, err := s.engine()
	if err != nil {
		return err
	}
	res, err := e.PlayLevel(ctx, p, s.history(), s.level, s.rng)
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
func (s *playSession) playMove(m rules.Move) error {
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
	drawBoard(s.out, after)
	return nil
}

// command handles one line of input; it reports whether the player quits.
func (s *playSession) command(ctx context.Context, line string) (quit bool, err error) {
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
		drawBoard(s.out, p)
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

func (s *playSession) help() {
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
func (s *playSession) undo() {
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
	drawBoard(s.out, s.g.Position())
}

// hint asks the engine for the best move.
func (s *playSession) hint(ctx context.Context) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	p := s.g.Position()
	res, err := e.Search(ctx, p, s.history(), engine.Limits{MoveTime: playHintTime}, nil)
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
