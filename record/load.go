package record

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/endodoi/endodoi/rules"
)

// Load reads a record in either form (Read) from r, at most MaxSize bytes
// of it, and replays it (Record.Game). name says where the record comes
// from in the errors: a file's name, or "standard input".
func Load(r io.Reader, name string) (*Record, *rules.Game, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rec, err := Read(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	g, err := rec.Game()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return rec, g, nil
}

// LoadFile reads and replays the record in the named file (Load).
func LoadFile(name string) (*Record, *rules.Game, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Load(f, name)
}

// Summary describes a replayed game for people, a line each: its number
// of moves, final position, why it ended (or that it has not), the score
// and the result.
func Summary(g *rules.Game) string {
	p := g.Position()
	var b strings.Builder
	fmt.Fprintf(&b, "moves: %d\nfinal position: %s\n", g.Ply(), p)
	switch g.Status() {
	case rules.NoLegalMove:
		fmt.Fprintf(&b, "end: %s has no legal move; the %d seeds on the board go to %s, who moved last\n",
			p.ToMove(), p.OnBoard(), p.ToMove().Opponent())
	case rules.Repetition:
		fmt.Fprintf(&b, "end: the position occurred for the third time; the %d seeds on the board count for neither player\n", p.OnBoard())
	default:
		fmt.Fprintf(&b, "end: not finished; %s to move\n", p.ToMove())
	}
	s, n := g.Score()
	fmt.Fprintf(&b, "score: South %d, North %d\nresult: %s\n", s, n, g.Result())
	return b.String()
}
