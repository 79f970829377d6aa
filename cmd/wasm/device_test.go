//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// step is one request of a scripted game: {id} in its path or body stands
// for the game the script made.
type step struct {
	method, path, body string
}

// deviceScripts are the games played both on the server and on this
// device, request by request: moves, the computer's moves, takebacks,
// resignations, and illegal, stale and malformed requests.
var deviceScripts = map[string][]step{
	"against the computer": {
		{"POST", "/api/games", `{"holes": 6, "computer": {"side": "n", "level": 4}, "south": "Amina"}`},
		{"GET", "/api/games/{id}", ""},
		{"POST", "/api/games/{id}/moves", `{"move": "c", "ply": 0}`},
		{"POST", "/api/games/{id}/moves", `{"move": "c", "ply": 0}`}, // stale
		{"POST", "/api/games/{id}/moves", `{"move": "A", "ply": 1}`}, // the computer's turn
		{"POST", "/api/games/{id}/computer", `{"ply": 0}`},           // stale
		{"POST", "/api/games/{id}/computer", `{"ply": 1}`},           //
		{"POST", "/api/games/{id}/moves", `{"move": "c", "ply": 2}`}, // an empty hole
		{"POST", "/api/games/{id}/moves", `{"move": "z", "ply": 2}`}, // no such hole
		{"POST", "/api/games/{id}/moves", `{"move": "a", "Ply": 2}`}, // a misspelt field
		{"POST", "/api/games/{id}/moves", `{"move": "a"`},            // malformed
		{"POST", "/api/games/{id}/takeback", `{}`},                   // ply required
		{"POST", "/api/games/{id}/takeback", `{"ply": 2}`},           //
		{"POST", "/api/games/{id}/takeback", `{"ply": 0}`},           // nothing to take back
		{"POST", "/api/games/{id}/moves", `{"move": "e"}`},           //
		{"POST", "/api/games/{id}/computer", `{}`},                   //
		{"POST", "/api/games/{id}/actions", `{"action": "draw-offer", "ply": 2}`},
		{"POST", "/api/games/{id}/actions", `{"action": "resign"}`},
		{"POST", "/api/games/{id}/actions", `{"action": "resign", "ply": 2}`},
		{"POST", "/api/games/{id}/actions", `{"action": "resign", "ply": 2}`}, // over
		{"POST", "/api/games/{id}/moves", `{"move": "a", "ply": 2}`},
		{"POST", "/api/games/{id}/takeback", `{"ply": 2}`},
		{"GET", "/api/games/{id}/hint", ""},
		{"GET", "/api/games/{id}", ""},
	},
	"two people on one device": {
		{"POST", "/api/games", `{"holes": 4, "seeds": 3, "first": "n", "north": " Zoe\u0308 ", "variant": "cross", "maxLaps": 50}`},
		{"POST", "/api/games/{id}/moves", `{"move": "a", "ply": 0}`}, // not South's turn
		{"POST", "/api/games/{id}/moves", `{"move": "B", "ply": 0}`},
		{"POST", "/api/games/{id}/moves", `{"move": "b"}`},
		{"POST", "/api/games/{id}/moves", `{"move": "D", "ply": 2}`},
		{"POST", "/api/games/{id}/computer", `{"ply": 3}`}, // no computer
		{"POST", "/api/games/{id}/takeback", `{"ply": 3}`},
		{"POST", "/api/games/{id}/takeback", `{"ply": 2}`},
		{"POST", "/api/games/{id}/actions", `{"action": "rematch", "ply": 1}`},
		{"POST", "/api/games/{id}/actions", `{"action": "resign", "ply": 1}`},
		{"GET", "/api/games/{id}", ""},
	},
	"a game played out": {
		{"POST", "/api/games", `{"holes": 3, "seeds": 1, "computer": {"side": "s", "level": 5}}`},
		{"POST", "/api/games/{id}/computer", `{"ply": 0}`},
		{"POST", "/api/games/{id}/computer", `{"ply": 1}`}, // not its turn
		{"GET", "/api/games/{id}", ""},
	},
	"games refused": {
		{"POST", "/api/games", `{"holes": 99}`},
		{"POST", "/api/games", `{"holes": 6, "position": "1,1/1,1 s 0 0"}`},
		{"POST", "/api/games", `{"south": "\u3164"}`},
		{"POST", "/api/games", `{"computer": {"side": "x", "level": 3}}`},
		{"POST", "/api/games", `{"computer": {"side": "n", "level": 11}}`},
		{"POST", "/api/games", `{"maxLaps": 10001}`},
		{"POST", "/api/games", `{"clock": {"minutes": 5}}`},
		{"POST", "/api/games", `{"Holes": 6}`},
		{"POST", "/api/games", `[]`},
		{"POST", "/api/games", `{"position": "9,9/9,9 n 0 0", "first": "s"}`},
	},
}

// TestDeviceAnswersAsTheServer: the page's engine answers every request
// about a game on one device as the server does, status and body, but for
// the games' IDs and times: both are play.
func TestDeviceAnswersAsTheServer(t *testing.T) {
	for name, script := range deviceScripts {
		t.Run(name, func(t *testing.T) {
			st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			srv := server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
			h := newHandler(clock.Real)
			var serverID, deviceID string
			for i, s := range script {
				code, body := serverAnswer(t, srv, s.method, strings.ReplaceAll(s.path, "{id}", serverID), s.body)
				req := apiRequest{Method: s.method, Path: strings.ReplaceAll(s.path, "{id}", deviceID), Body: s.body}
				dev := h.games.answer(context.Background(), req)
				devBody, _ := json.Marshal(dev.Body)
				if s.path == "/api/games" && code < 300 {
					serverID, deviceID = idOf(body), idOf(devBody)
					if !strings.HasPrefix(deviceID, localPrefix) {
						t.Fatalf("the device's game is %q, without %q", deviceID, localPrefix)
					}
				}
				want, got := normalized(t, body), normalized(t, devBody)
				if code != dev.Status || !reflect.DeepEqual(want, got) {
					t.Errorf("step %d, %s %s %s:\nserver %d %s\ndevice %d %s", i+1, s.method, s.path, s.body, code, want, dev.Status, got)
				}
			}
		})
	}
}

func serverAnswer(t *testing.T, srv *server.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "localhost"
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func idOf(body []byte) string {
	var v struct{ ID string }
	json.Unmarshal(body, &v)
	return v.ID
}

// normalized is a body with its games' IDs and times left out, and a
// hint's line and score, which a search within a time gives, left as
// their kinds.
func normalized(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("an answer that is not JSON: %s", body)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"id", "created", "updated"} {
				delete(x, k)
			}
			if _, hint := x["pv"]; hint {
				x["pv"], x["score"], x["final"], x["exact"], x["move"] = "a line", "a score", "a margin", "exact?", "a move"
			}
			if e, ok := x["error"].(string); ok {
				// A message naming a game names its ID.
				x["error"] = strings.NewReplacer("local-", "").Replace(e)
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return string(out)
}

// TestDeviceKeepsGames: the games the page kept, in the form it has always
// kept them, play on; each change comes back for the page to keep; a game
// goes to the server as a record with its Offline tag, and leaves the
// device's list once the server holds it.
func TestDeviceKeepsGames(t *testing.T) {
	ctx := context.Background()
	h := newHandler(clock.Real)
	kept := `[{"id": "local-00112233aabbccdd", "key": "k1", "start": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "variant": "standard",
		"maxLaps": 1000, "south": "Amina", "north": "", "computer": {"side": "n", "level": 3}, "moves": ["c", "A"],
		"resigned": "", "created": "2026-11-30T10:00:00.000Z", "updated": "2026-11-30T10:05:00.000Z", "sent": ""},
		{"id": "local-99aa", "key": "k2", "start": "4,4,4,4/4,4,4,4 s 0 0", "variant": "cross", "maxLaps": 20,
		"south": "", "north": "", "computer": null, "moves": ["a"], "resigned": "n", "created": "2026-11-29T10:00:00.000Z",
		"updated": "2026-11-29T10:01:00.000Z", "sent": "0123456789abcdef"}]`
	var games []deviceGame
	if err := json.Unmarshal([]byte(kept), &games); err != nil {
		t.Fatal(err)
	}
	if v, err := h.answer(ctx, mustJSON(t, request{Op: "keep", Games: games})); err != nil || v.(keptView).Kept != 2 {
		t.Fatalf("keep: %+v, %v", v, err)
	}
	bad := games[0]
	bad.ID, bad.Moves = "local-bad", []string{"c", "c"}
	if v := h.games.keep([]deviceGame{bad}); v.Kept != 0 || v.Refused["local-bad"] == "" {
		t.Errorf("a kept game whose moves do not play: %+v", v)
	}
	ans := h.games.answer(ctx, apiRequest{Method: "GET", Path: "/api/games/local-99aa"})
	if body, _ := json.Marshal(ans.Body); ans.Status != 200 || !strings.Contains(string(body), `"status":"resigned","result":"1-0"`) {
		t.Errorf("a game resigned by North: %d %s", ans.Status, body)
	}
	ans = h.games.answer(ctx, apiRequest{Method: "POST", Path: "/api/games/local-00112233aabbccdd/computer", Body: `{"ply": 2}`})
	if ans.Status != 400 && ans.Status != 409 || len(ans.Saved) != 0 {
		t.Errorf("the computer's move out of turn: %d, saved %d", ans.Status, len(ans.Saved))
	}
	ans = h.games.answer(ctx, apiRequest{Method: "POST", Path: "/api/games/local-00112233aabbccdd/moves", Body: `{"move": "a", "ply": 2}`})
	if ans.Status != 200 || len(ans.Saved) != 1 {
		t.Fatalf("a move: %d, saved %d", ans.Status, len(ans.Saved))
	}
	d := ans.Saved[0]
	if d.ID != "local-00112233aabbccdd" || d.Key != "k1" || !slices.Equal(d.Moves, []string{"c", "A", "a"}) || d.South != "Amina" ||
		d.Computer == nil || d.Computer.Level != 3 || !d.Created.Equal(games[0].Created) || !d.Updated.After(games[0].Updated) {
		t.Errorf("kept after the move: %+v", d)
	}
	list := h.games.answer(ctx, apiRequest{Method: "GET", Path: "/api/games?limit=10"})
	if body, _ := json.Marshal(list.Body); strings.Contains(string(body), "local-99aa") || !strings.Contains(string(body), "local-00112233aabbccdd") {
		t.Errorf("the device's list shows the games the server does not hold: %s", body)
	}
	out, err := h.games.outbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !out[0].Playing || !strings.Contains(out[0].Record, `[Offline "k1"]`) || !strings.Contains(out[0].Record, `[North "endodoi (level 3)"]`) {
		t.Fatalf("outbox: %+v", out)
	}
	if _, err := record.Parse(out[0].Record); err != nil {
		t.Errorf("the record sent does not parse: %v\n%s", err, out[0].Record)
	}
	sent, err := h.games.markSent(ctx, "local-00112233aabbccdd", "fedcba9876543210")
	if err != nil || len(sent.Saved) != 1 || sent.Saved[0].Sent != "fedcba9876543210" {
		t.Fatalf("marked sent: %+v, %v", sent, err)
	}
	if out, _ := h.games.outbox(ctx); len(out) != 0 {
		t.Errorf("outbox after sending: %+v", out)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDeviceGamesImportToTheServer: the records this device sends (games
// against the computer, between two people, resigned) are taken by the
// server's import, once, as the games they were.
func TestDeviceGamesImportToTheServer(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := newHandler(clock.Real)
	play := func(create string, resign bool) string {
		ans := h.games.answer(ctx, apiRequest{Method: "POST", Path: "/api/games", Body: create})
		if ans.Status != 201 {
			t.Fatalf("create %s: %d %+v", create, ans.Status, ans.Body)
		}
		id := ans.Body.(api.Game).ID
		for ply := 0; ply < 400; ply++ {
			g := h.games.answer(ctx, apiRequest{Method: "GET", Path: "/api/games/" + id}).Body.(api.Game)
			if g.Status != "playing" {
				break
			}
			if resign && ply == 1 {
				h.games.answer(ctx, apiRequest{Method: "POST", Path: "/api/games/" + id + "/actions", Body: `{"action": "resign", "ply": 1}`})
				break
			}
			path, body := "/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply)
			if g.Computer != nil && g.Computer.Side == g.ToMove {
				path, body = "/computer", fmt.Sprintf(`{"ply": %d}`, ply)
			}
			if a := h.games.answer(ctx, apiRequest{Method: "POST", Path: "/api/games/" + id + path, Body: body}); a.Status != 200 {
				t.Fatalf("%s %s: %d %+v", path, body, a.Status, a.Body)
			}
		}
		return id
	}
	ids := []string{
		play(`{"holes": 6, "computer": {"side": "n", "level": 3}, "south": "Amina"}`, false),
		play(`{"holes": 6, "south": "Amina", "north": "Baraka"}`, false),
		play(`{"holes": 4, "seeds": 3, "variant": "cross"}`, true),
	}
	out, err := h.games.outbox(ctx)
	if err != nil || len(out) != len(ids) {
		t.Fatalf("outbox: %d games, %v", len(out), err)
	}
	for round := range 2 {
		for _, g := range out {
			body, _ := json.Marshal(map[string]string{"record": g.Record})
			code, raw := serverAnswer(t, srv, "POST", "/api/games/import", string(body))
			want := 201
			if round == 1 {
				want = 200 // the same record again: the game it made
			}
			if code != want {
				t.Errorf("round %d: import of %s: %d %s\n%s", round+1, g.ID, code, raw, g.Record)
				continue
			}
			local := h.games.answer(ctx, apiRequest{Method: "GET", Path: "/api/games/" + g.ID}).Body.(api.Game)
			var there api.Game
			json.Unmarshal(raw, &there)
			if !slices.Equal(local.Moves, there.Moves) || local.Result != there.Result || local.Status != there.Status ||
				local.South != there.South && local.Computer == nil {
				t.Errorf("round %d: %s imported as %v %s %s, played as %v %s %s", round+1, g.ID, there.Moves, there.Result, there.Status,
					local.Moves, local.Result, local.Status)
			}
		}
	}
}
