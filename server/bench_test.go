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
