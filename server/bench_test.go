package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// BenchmarkMoveRoundTrip measures a move as the page makes it: an HTTP
// request over loopback, the game replayed, the move checked and committed
// to an SQLite file (synchronous), and the answer with the sowing. Games
// between two people, so no engine time is included.
func BenchmarkMoveRoundTrip(b *testing.B) { benchMoveRoundTrip(b, Options{}) }

func benchMoveRoundTrip(b *testing.B, o Options) {
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "games.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	hs := httptest.NewServer(NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), o))
	defer hs.Close()
	post := func(path, body string, out any) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			raw, _ := io.ReadAll(resp.Body)
			b.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
		}
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			b.Fatal(err)
		}
	}
	var g gameView
	for b.Loop() {
		if g.ID == "" || g.Status != "playing" {
			b.StopTimer()
			post("/api/games", `{"holes": 8}`, &g)
			b.StartTimer()
		}
		var mv moveView
		post("/api/games/"+g.ID+"/moves", `{"move": "`+g.LegalMoves[0]+`", "ply": `+strconv.Itoa(len(g.Moves))+`}`, &mv)
		g = mv.Game
	}
}

// BenchmarkNearPositions measures what each change of an online game in
// play costs every instance for the analysis refusal: the position and
// its children and grandchildren hashed and counted (livePositions.note
// and set), on the default board in the middle of a game and on the
// largest board.
func BenchmarkNearPositions(b *testing.B) {
	for _, c := range []struct{ name, pos string }{
		{"8 holes", "3,1,8,5,5,1,6,5/2,2,4,1,2,0,4,5 s 10 2"},
		{"16 holes", "4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4 s 0 0"},
	} {
		p := rules.MustParsePosition(c.pos)
		r := rules.DefaultRules()
		key := positionKey(p, r)
		b.Run(c.name, func(b *testing.B) {
			var lp livePositions
			for b.Loop() {
				lp.set("g", key, 0, 1)
				lp.set("g", "", 0, 2)
			}
			b.ReportMetric(float64(len(nearHashes(p, r))), "positions")
		})
	}
}

// BenchmarkPositionCheck measures the refusal's check of a position
// asked about, with 1,000 games in play.
func BenchmarkPositionCheck(b *testing.B) {
	var lp livePositions
	start := rules.MustParsePosition("4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0")
	r := rules.DefaultRules()
	p, ply := start, 0
	for i := range 1000 {
		for ; ply < livePly || !p.HasLegalMove(r); ply++ {
			if !p.HasLegalMove(r) {
				p, ply = start, 0
			}
			p, _ = p.Play(p.LegalMoves(r)[0], r)
		}
		lp.set(strconv.Itoa(i), positionKey(p, r), 0, 1)
		moves := p.LegalMoves(r)
		p, _ = p.Play(moves[i%len(moves)], r)
		ply++
	}
	for b.Loop() {
		if lp.check(start, r) != nil {
			b.Fatal("the start refused")
		}
	}
}
