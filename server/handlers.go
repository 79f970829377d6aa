package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

func (s *Server) createGame(w http.ResponseWriter, r *http.Request) {
	var req api.NewGame
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	sg, err := req.Game()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Online {
		s.createOnline(w, r, &req, sg)
		return
	}
	s.create(w, r, sg, nil, req.Series)
}

// create stores a new game, and with series > 0 the series to that many
// wins that it starts, and answers with it. b is the game sg's moves lead
// to, already replayed, or nil for a game with no moves yet.
func (s *Server) create(w http.ResponseWriter, r *http.Request, sg *game.Game, b *rules.Game, series int) {
	g, created, err := s.table.Create(r.Context(), sg, b, series)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusCreated
	if !created {
		status = http.StatusOK
	}
	v, err := s.view(r.Context(), g)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/games/"+g.ID())
	writeJSON(w, status, v)
}

func (s *Server) listGames(w http.ResponseWriter, r *http.Request) {
	if ids := r.URL.Query().Get("ids"); ids != "" {
		s.listByID(w, r, strings.Split(ids, ","))
		return
	}
	limit, err := queryInt(r, "limit", 50, 1, MaxListed)
	if err == nil {
		var offset int
		if offset, err = queryInt(r, "offset", 0, 0, 1<<30); err == nil {
			var list []game.Summary
			if list, err = s.store.Games(r.Context(), limit, offset); err == nil {
				var views []api.Summary
				if views, err = s.summaries(r.Context(), list); err == nil {
					writeJSON(w, http.StatusOK, map[string]any{"games": views})
					return
				}
			}
		}
	}
	s.fail(w, r, err)
}

// importGame stores a game from a record, in the text or the JSON form.
// The same record imported again answers with the game it made.
func (s *Server) importGame(w http.ResponseWriter, r *http.Request) {
	rec, g, err := readRecord(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sg := &game.Game{Start: rec.Start, Rules: rec.Rules, Moves: rec.Moves, ImportKey: importKey(rec)}
	if at, ok := playedAt(rec.Date, time.Now()); ok {
		// Dated when it was played, not when it reached the server.
		sg.Created, sg.Updated = at, at
	}
	if winner, ok := rec.Resigned(); ok {
		// Stored as a game resigned on this server is: the winner's result
		// while the moves leave the game going.
		sg.Result = rules.WinFor(winner).Token()
	}
	// A record's names are optional: an empty one is no name.
	if rec.South != "" {
		sg.South, err = api.DisplayName(rec.South, "South")
	}
	if err == nil && rec.North != "" {
		sg.North, err = api.DisplayName(rec.North, "North")
	}
	if err != nil {
		s.fail(w, r, errorf(http.StatusUnprocessableEntity, "%v", err))
		return
	}
	s.create(w, r, sg, g, 0)
}

// firstDate is the earliest date an import keeps: a record dated before
// it is dated when it is imported.
var firstDate = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// playedAt reads a record's Date tag: a date and time in RFC 3339 (as the
// page writes for a game played offline), or a day, 2006-01-02 or
// 2006.01.02, taken at its noon in UTC (the same day in nearly every time
// zone). It reports false for a value that is none of these, a time after
// now, or one before firstDate: the tag is free text.
func playedAt(date string, now time.Time) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, date)
	for _, layout := range []string{"2006-01-02", "2006.01.02"} {
		if err == nil {
			break
		}
		if t, err = time.Parse(layout, date); err == nil {
			t = t.Add(12 * time.Hour)
		}
	}
	if err != nil || t.After(now) || t.Before(firstDate) {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// importKey identifies a record whatever its form and layout: the digest
// of its text form as this program writes it; or, for a game played on a
// device while the server could not be reached, of its Offline tag, the
// device's own key for the game, whatever else its record says (a later
// version of the page may write it otherwise).
func importKey(rec *record.Record) string {
	text := rec.String()
	for _, tag := range rec.Extra {
		if tag.Name == "Offline" && tag.Value != "" {
			text = "offline " + tag.Value
		}
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// gameHandler answers a request about one game, which it is given loaded;
// an error it returns is answered by fail.
type gameHandler func(w http.ResponseWriter, r *http.Request, g *play.Game) error

// game makes a handler for the game named in the path. With lock, the
// requests on that game run one at a time, from loading to answering.
func (s *Server) game(lock bool, h gameHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !store.ValidID(id) {
			s.fail(w, r, errorf(http.StatusNotFound, "no game %q", clip(id)))
			return
		}
		run := func(g *play.Game) error { return h(w, r, g) }
		var err error
		if lock {
			err = s.table.With(r.Context(), id, run)
		} else {
			var g *play.Game
			if g, err = s.table.Load(r.Context(), id); err == nil {
				err = run(g)
			}
		}
		if err != nil {
			s.fail(w, r, err)
		}
	}
}

func (s *Server) getGame(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	return s.answerAsker(w, r, g)
}

// playMove answers POST /api/games/{id}/moves: a move of a game on one
// device, or of a seat of an online game.
func (s *Server) playMove(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	seat, err := s.seatOf(r, g)
	if err != nil {
		return err
	}
	var req api.Move
	if err := decode(w, r, &req, false); err != nil {
		return err
	}
	ch, err := s.table.Move(r.Context(), g, seat, req.Move, req.Ply)
	if err != nil {
		return err
	}
	s.answerMove(w, ch)
	return nil
}

// bearer returns the token of a request's Authorization header: the seat
// of an online game it holds is checked before anything else about a
// request to change the game (docs/api.md), so that whoever holds no seat
// learns nothing from the answer but that.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// actions answers POST /api/games/{id}/actions: resign, for a game played
// on one device, which needs no seat (like its moves, the game belongs to
// whoever has it open); for an online game, an action of a seat.
func (s *Server) actions(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	seat, err := s.seatOf(r, g)
	if err != nil {
		return err
	}
	var req api.Action
	if err := decode(w, r, &req, false); err != nil {
		return err
	}
	ch, err := s.table.Act(r.Context(), g, seat, req.Action, req.Ply)
	if err != nil {
		return err
	}
	s.answerChange(w, ch)
	return nil
}

// listByID answers with the summaries of the games named, for a page's
// list of the online games it holds seats in.
func (s *Server) listByID(w http.ResponseWriter, r *http.Request, ids []string) {
	if len(ids) > MaxListed {
		s.fail(w, r, errorf(http.StatusBadRequest, "%d games asked for; at most %d", len(ids), MaxListed))
		return
	}
	for _, id := range ids {
		if !store.ValidID(id) {
			s.fail(w, r, errorf(http.StatusBadRequest, "ids: %q is not a game ID", clip(id)))
			return
		}
	}
	list, err := s.store.GamesByID(r.Context(), ids)
	if err == nil {
		var views []api.Summary
		if views, err = s.summaries(r.Context(), list); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"games": views})
			return
		}
	}
	s.fail(w, r, err)
}

// listOnline answers with the online games in progress, for watching.
func (s *Server) listOnline(w http.ResponseWriter, r *http.Request) {
	limit, err := queryInt(r, "limit", 50, 1, MaxListed)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	list, err := s.store.OnlineGames(r.Context(), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// Each game with its time control, and, for a signed-in asker, the side
	// of the seat their account holds in it.
	type liveSummary struct {
		api.Summary
		Watchers int        `json:"watchers"`
		Clock    *api.Clock `json:"clock"`
		You      string     `json:"you,omitempty"`
	}
	views := make([]liveSummary, 0, len(list))
	var seats []string
	for _, sm := range list {
		g, err := s.table.Load(r.Context(), sm.ID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v := liveSummary{Summary: api.NewSummary(sm)}
		_, v.Watchers = s.live.presence(sm.ID)
		var o game.Online
		if g.Online() != nil {
			o = *g.Online()
		}
		v.Clock = api.ClockOf(o.Clock)
		views = append(views, v)
		seats = append(seats, o.Seats[rules.South], o.Seats[rules.North])
	}
	if id := s.askerID(r); id != "" && len(seats) > 0 {
		owners, err := s.store.SeatOwners(r.Context(), seats)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for i := range views {
			for j, side := range []rules.Side{rules.South, rules.North} {
				if h := seats[2*i+j]; h != "" && owners[h] == id {
					views[i].You = string(side.Letter())
				}
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"games": views})
}

// computerMove plays the computer's move in a game against it.
func (s *Server) computerMove(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	if _, err := s.seatOf(r, g); err != nil {
		return err
	}
	var req api.Ply
	if err := decode(w, r, &req, true); err != nil {
		return err
	}
	ch, err := s.table.ComputerMove(r.Context(), g, req.Ply, s.analysis.Choose)
	if err != nil {
		return err
	}
	s.answerMove(w, ch)
	return nil
}

// takeback takes back the last move, and against the computer the
// computer's reply too, so that it is the person's move again.
func (s *Server) takeback(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	if _, err := s.seatOf(r, g); err != nil {
		return err
	}
	var req api.Ply
	if err := decode(w, r, &req, false); err != nil {
		return err
	}
	ch, err := s.table.Takeback(r.Context(), g, req.Ply)
	if err != nil {
		return err
	}
	s.answerChange(w, ch)
	return nil
}

func (s *Server) exportRecord(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	rec := g.Record()
	name := `attachment; filename="endodoi-` + g.ID()
	switch f := r.URL.Query().Get("format"); f {
	case "", "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Disposition", name+`.txt"`)
		_, err := rec.WriteTo(w)
		return err
	case "json":
		data, err := rec.MarshalJSON()
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Disposition", name+`.json"`)
		_, err = w.Write(append(data, '\n'))
		return err
	default:
		return errorf(http.StatusBadRequest, "format %q: want text or json", f)
	}
}
