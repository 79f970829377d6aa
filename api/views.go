package api

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Game is a game as the API shows it (docs/api.md): its board, as the
// browser's worker shows one too, with what a game being played adds. Its
// Status is also "resigned" and the others of an online game; its
// Sowings[k] is move SowingsFrom+k+1's: the earliest moves of a game whose
// laps exceed MaxViewLaps have none (SowingsFrom > 0). The server adds the
// players' ratings to an online game's.
type Game struct {
	ID    string `json:"id"`
	South string `json:"south"`
	North string `json:"north"`
	gameview.Board
	SowingsFrom int       `json:"sowingsFrom"`
	Computer    *Computer `json:"computer,omitempty"`
	Online      *Online   `json:"online,omitempty"`
	SeriesID    string    `json:"seriesId,omitempty"`
	Series      *Series   `json:"series,omitempty"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// Computer is the computer player of a game.
type Computer struct {
	Side  string `json:"side"` // "s" or "n"
	Level int    `json:"level"`
}

func newComputer(c *game.Computer) *Computer {
	if c == nil {
		return nil
	}
	return &Computer{Side: string(c.Side.Letter()), Level: c.Level}
}

// NewGameView is game state st as the API shows it, with its series' tally and,
// for an online game, its seats, clocks and offers; who is connected is
// the live connections' to say (Online.Connected, Online.Watchers).
func NewGameView(st *play.State) Game {
	info := &st.Info
	v := Game{
		ID: info.ID, South: info.South, North: info.North, Board: gameview.NewBoard(st.Board, st.Sowings),
		SowingsFrom: st.SowingsFrom, SeriesID: info.SeriesID, Created: info.Created, Updated: info.Updated,
		Computer: newComputer(info.Computer),
	}
	// A game ended other than by the rules says so, and takes no move.
	v.Status, v.Result = st.Status, st.Result
	if st.End != "" {
		v.LegalMoves = []string{}
	}
	if st.Series != nil {
		sv := NewSeries(st.Series, st.Tally)
		v.Series = &sv
	}
	if info.Online != nil {
		v.Online = newOnline(st)
	}
	return v
}

// MoveAnswer answers a move: the game after it and how the move sowed.
type MoveAnswer struct {
	Game   Game            `json:"game"`
	Sowing gameview.Sowing `json:"sowing"`
}

// Summary is a game in a listing.
type Summary struct {
	ID       string          `json:"id"`
	South    string          `json:"south"`
	North    string          `json:"north"`
	Holes    int             `json:"holes"`
	Variant  string          `json:"variant"`
	Moves    int             `json:"moves"`
	Result   string          `json:"result"`
	SeriesID string          `json:"seriesId,omitempty"`
	Created  time.Time       `json:"created"`
	Updated  time.Time       `json:"updated"`
	Score    *gameview.Score `json:"score,omitempty"`    // captured seeds, the sweep included
	Computer *Computer       `json:"computer,omitempty"` // the computer player, if any
	// Status is the game's status as in its view (docs/api.md); the
	// listing of online games being played knows only "playing" or "over".
	Status string `json:"status,omitempty"`
	// Online games only:
	Online bool   `json:"online,omitempty"`
	ToMove string `json:"toMove,omitempty"`
	End    string `json:"end,omitempty"`
}

// NewSummary is listed game s as the API shows it, from the listing alone.
func NewSummary(s game.Summary) Summary {
	v := Summary{ID: s.ID, South: s.South, North: s.North, Holes: s.Holes, Variant: s.Variant.String(),
		Moves: s.Moves, Result: s.Result, SeriesID: s.SeriesID, Created: s.Created, Updated: s.Updated}
	if s.Online {
		v.Online, v.ToMove, v.End = true, string(s.ToMove.Letter()), s.End
		switch {
		case s.End != "":
			v.Status = play.EndStatus(s.End)
		case s.Result == "*":
			v.Status = "playing"
		default:
			v.Status = "over"
		}
	}
	return v
}

// FullSummary is listed game s with what only the game itself knows: its
// status, its score and its computer player.
func FullSummary(s game.Summary, g *play.Game) Summary {
	v := NewSummary(s)
	v.Status = g.Status()
	sc := gameview.Score{}
	sc.South, sc.North = g.Board().Score()
	v.Score = &sc
	v.Computer = newComputer(g.Info().Computer)
	return v
}

// Online is the online part of a game as the API shows it.
type Online struct {
	Seats         SideFlags  `json:"seats"`
	Connected     SideFlags  `json:"connected"`
	Watchers      int        `json:"watchers"`
	Clock         *Clock     `json:"clock"`
	Clocks        SideMillis `json:"clocks"`
	Running       string     `json:"running"`
	DrawOffer     string     `json:"drawOffer"`
	TakebackOffer string     `json:"takebackOffer"`
	RematchOffer  string     `json:"rematchOffer"`
	Next          string     `json:"next"`
	End           string     `json:"end"`
	Rev           int64      `json:"rev"`
}

// SideFlags is a yes or no for each side.
type SideFlags struct {
	South bool `json:"s"`
	North bool `json:"n"`
}

// SideMillis is a time in milliseconds for each side.
type SideMillis struct {
	South int64 `json:"s"`
	North int64 `json:"n"`
}

// ClockOf is time control c as a request gives it; nil for no clock.
func ClockOf(c game.Clock) *Clock {
	switch {
	case c.Time == 0:
		return nil
	case c.PerMove:
		return &Clock{Days: int(c.Time / (24 * time.Hour))}
	}
	return &Clock{Minutes: int(c.Time / time.Minute), Increment: int(c.Increment / time.Second)}
}

// newOnline is the online part of game state st as the API shows it, but
// for who is connected.
func newOnline(st *play.State) *Online {
	o := st.Info.Online
	v := &Online{
		Seats:     SideFlags{o.Seats[rules.South] != "", o.Seats[rules.North] != ""},
		Clock:     ClockOf(o.Clock),
		Clocks:    SideMillis{st.Clocks[rules.South].Milliseconds(), st.Clocks[rules.North].Milliseconds()},
		DrawOffer: o.DrawOffer, TakebackOffer: o.TakebackOffer, RematchOffer: o.RematchOffer,
		Next: o.Next, End: o.End, Rev: o.Rev,
	}
	if st.Runs {
		v.Running = string(st.Running.Letter())
	}
	return v
}

// Series is a series (ol alai) as the API shows it: its target, the tally
// and each game's result, oldest first.
type Series struct {
	ID      string         `json:"id"`
	Target  int            `json:"target"`
	Wins    gameview.Score `json:"wins"`
	Draws   int            `json:"draws"`
	Results []string       `json:"results"`
	Over    bool           `json:"over"`
	Winner  string         `json:"winner"` // "s" or "n" once over, else ""
	Games   []Summary      `json:"games,omitempty"`
}

// NewSeries is series sr, whose score is t, as the API shows it.
func NewSeries(sr *game.Series, t play.Tally) Series {
	v := Series{ID: sr.ID, Target: sr.Target, Results: make([]string, 0, len(sr.Games)),
		Wins: gameview.Score{South: t.Wins[rules.South], North: t.Wins[rules.North]}, Draws: t.Draws, Over: t.Over}
	for _, g := range sr.Games {
		v.Results = append(v.Results, g.Result)
	}
	if t.Over {
		v.Winner = string(t.Winner.Letter())
	}
	return v
}

// Line is one analysed move: a hint, or a line of an analysis.
type Line struct {
	Move  string   `json:"move"`
	Score float64  `json:"score"` // future capture margin of the side to move, in seeds
	Exact bool     `json:"exact"`
	Final float64  `json:"final"` // expected final margin from South's view
	PV    []string `json:"pv"`
}

// NewLine is move m in position p, its score and line as a search found
// them.
func NewLine(p rules.Position, m rules.Move, score engine.Score, exact bool, pv []rules.Move) Line {
	v := Line{Move: m.String(), Score: score.Seeds(), Exact: exact, PV: []string{}}
	v.Final = rules.FinalMargin(p, score.Seeds(), 1)
	for _, x := range pv {
		v.PV = append(v.PV, x.String())
	}
	return v
}

// LiveProtocol is the version of the live connection's messages
// (docs/api.md, Live updates): the first message, the game, says it, and
// a page that speaks another reloads itself.
const LiveProtocol = 2

// MaxMoveMessage is the most bytes of a move message: a sowing too long
// for it is left out of it (the move is shown without its laps).
const MaxMoveMessage = 1024

// MoveMessage is a move as the live connection tells it: what the move
// changed of the game, the same whatever the game's length. A client
// applies it to the game it has when it follows it, its Rev the next
// revision and its Ply the next ply; else it asks for the game again.
type MoveMessage struct {
	Type string `json:"type"` // "move"
	ID   string `json:"id"`
	Rev  int64  `json:"rev"` // the online game's revision after the move
	Ply  int    `json:"ply"` // the moves played, this one included
	Move string `json:"move"`
	// Sowing is how the move sowed; nil when too long for the message.
	Sowing     *PackedSowing  `json:"sowing,omitempty"`
	Position   string         `json:"position"` // after the move
	ToMove     string         `json:"toMove"`
	LegalMoves []string       `json:"legalMoves"`
	Status     string         `json:"status"`
	Result     string         `json:"result"`
	Score      gameview.Score `json:"score"`
	Updated    time.Time      `json:"updated"`
	Online     *Online        `json:"online"` // as a game's view has it
}

// PackedSowing is a sowing as a move message carries it: each lap as
// [from, seeds, to], a third of the bytes of a game's sowings.
type PackedSowing struct {
	Laps        [][3]int `json:"laps"`
	CaptureFrom int      `json:"captureFrom"` // -1: no capture
	Captured    int      `json:"captured"`
}

// Unpack is sowing p of move as a game's view has it.
func (p *PackedSowing) Unpack(move string) gameview.Sowing {
	s := gameview.Sowing{Move: move, Laps: make([]gameview.Lap, len(p.Laps)), CaptureFrom: p.CaptureFrom, Captured: p.Captured}
	for i, l := range p.Laps {
		s.Laps[i] = gameview.Lap{From: l[0], Seeds: l[1], To: l[2]}
	}
	return s
}

// NewMoveMessage is the move that left online game state st, which sowed
// as sw, as the live connection tells it; who is connected is the live
// connections' to fill in.
func NewMoveMessage(st *play.State, sw rules.Sowing) MoveMessage {
	b := st.Board
	p := b.Position()
	ps := &PackedSowing{Laps: make([][3]int, len(sw.Laps)), CaptureFrom: sw.CaptureFrom, Captured: sw.Captured}
	for i, l := range sw.Laps {
		ps.Laps[i] = [3]int{l.From, l.Seeds, l.To}
	}
	m := MoveMessage{Type: "move", ID: st.Info.ID, Ply: b.Ply(), Move: sw.Move.String(), Sowing: ps,
		Position: p.String(), ToMove: string(p.ToMove().Letter()), LegalMoves: make([]string, 0, p.Holes()),
		Status: st.Status, Result: st.Result, Updated: st.Info.Updated}
	for _, lm := range b.LegalMoves() {
		m.LegalMoves = append(m.LegalMoves, lm.String())
	}
	if st.End != "" {
		m.LegalMoves = []string{}
	}
	m.Score.South, m.Score.North = b.Score()
	if st.Info.Online != nil {
		m.Online = newOnline(st)
		m.Rev = m.Online.Rev
	}
	return m
}

// Marshal is move message m as sent, at most MaxMoveMessage bytes unless
// even without its sowing it is longer (it is not: its other parts are
// bounded far below it); the sowing is left out when too long for it.
func (m *MoveMessage) Marshal() []byte {
	data, _ := json.Marshal(m) // plain data: it always marshals
	if len(data) > MaxMoveMessage && m.Sowing != nil {
		m.Sowing = nil
		data, _ = json.Marshal(m)
	}
	return data
}

// PresenceMessage says who is connected to a game now, at revision Rev
// of it: a client that has an older one asks for the game again.
type PresenceMessage struct {
	Type      string    `json:"type"` // "presence"
	ID        string    `json:"id"`
	Rev       int64     `json:"rev"`
	Connected SideFlags `json:"connected"`
	Watchers  int       `json:"watchers"`
}

// ErrBehind says that a live message does not follow the game it was to
// be applied to: the client asks for the game again.
var ErrBehind = errors.New("the message does not follow the game: ask for the game again")

// Apply plays move message m on game g, the game as last told, when m
// follows it; else it returns ErrBehind and leaves g as it was. It is
// what every client of the live connection does (the page, the bot, the
// load test keep their own copies of it), in Go.
func (g *Game) Apply(m *MoveMessage) error {
	if g.Online == nil || m.ID != g.ID || m.Rev != g.Online.Rev+1 || m.Ply != len(g.Moves)+1 {
		return ErrBehind
	}
	g.Moves = append(g.Moves, m.Move)
	g.Positions = append(g.Positions, m.Position)
	if m.Sowing != nil {
		g.Sowings = append(g.Sowings, m.Sowing.Unpack(m.Move))
	} else {
		// Sowings are the latest moves' in a row: none now.
		g.Sowings, g.SowingsFrom = nil, len(g.Moves)
	}
	g.Position, g.ToMove, g.LegalMoves = m.Position, m.ToMove, m.LegalMoves
	g.Status, g.Result, g.Score, g.Updated = m.Status, m.Result, m.Score, m.Updated
	o := *m.Online
	g.Online = &o
	return nil
}
