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

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/api"
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

// BenchmarkOnlineMoveLive measures a move of an online game as two
// players make it: sent on the mover's live connection, checked, stored
// (SQLite, synchronous) and told to both connections as a move message,
// read by both. The server and its two clients run in this process, so
// the allocations are theirs together; a new game starts, untimed, when
// one ends.
func BenchmarkOnlineMoveLive(b *testing.B) {
	ts := newTestServer(b)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	ctx := b.Context()
	type told struct {
		Type       string   `json:"type"`
		Ply        int      `json:"ply"`
		ToMove     string   `json:"toMove"`
		LegalMoves []string `json:"legalMoves"`
		Status     string   `json:"status"`
		Game       *struct {
			ToMove     string   `json:"toMove"`
			LegalMoves []string `json:"legalMoves"`
			Moves      []string `json:"moves"`
			Status     string   `json:"status"`
		} `json:"game"`
	}
	var conns [2]*websocket.Conn // by side
	var last told
	readMove := func(ws *websocket.Conn, ply int) told {
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var m told
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
			if m.Type == "move" && m.Ply == ply {
				return m
			}
			if m.Type == "game" && m.Game != nil && len(m.Game.Moves) == ply {
				// The last move, told with the game's end as the whole game.
				return told{Ply: ply, ToMove: m.Game.ToMove, LegalMoves: m.Game.LegalMoves, Status: m.Game.Status}
			}
			if m.Type == "error" {
				b.Fatalf("%s", data)
			}
		}
	}
	start := func() {
		for _, ws := range conns {
			if ws != nil {
				ws.CloseNow()
			}
		}
		g, tokens := ts.onlinePair(`{"online": true, "holes": 8, "seeds": 4}`)
		for side, token := range tokens {
			ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(web.URL, "http")+"/api/games/"+g.ID+"/live?v="+strconv.Itoa(api.LiveProtocol), nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type": "hello", "token": "`+token+`"}`)); err != nil {
				b.Fatal(err)
			}
			conns[side] = ws
		}
		last = told{Ply: 0, ToMove: g.ToMove, LegalMoves: g.LegalMoves, Status: g.Status}
	}
	b.ReportAllocs()
	for b.Loop() {
		if conns[0] == nil || last.Status != "playing" || len(last.LegalMoves) == 0 {
			b.StopTimer()
			start()
			b.StartTimer()
		}
		side := rules.South
		if last.ToMove == "n" {
			side = rules.North
		}
		move := last.LegalMoves[len(last.LegalMoves)/2]
		msg := `{"type": "move", "move": "` + move + `", "ply": ` + strconv.Itoa(last.Ply) + `}`
		if err := conns[side].Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			b.Fatal(err)
		}
		readMove(conns[side.Opponent()], last.Ply+1)
		last = readMove(conns[side], last.Ply+1)
	}
	for _, ws := range conns {
		ws.CloseNow()
	}
}
