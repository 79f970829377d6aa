package server

// A recorded sequence of requests: local, computer and online games, their
// offers, takebacks, rematches and series, and the errors of each, over
// HTTP and the live connection. Every answer is compared with the one
// recorded in testdata/sequence.golden, so that a change of the server's
// inside that changes what the API answers shows up here.
//
//	go test -run TestRecordedSequence ./server/ -update
//
// records the answers anew.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

var update = flag.Bool("update", false, "record the answers of TestRecordedSequence in testdata")

// step is one request of the sequence: path and body may name values of
// earlier answers as {name}; save names values of this answer, by their
// path in its JSON ("game.id").
type step struct {
	method, path, token, body string
	save                      map[string]string
}

// liveStep is one message over a game's live connection, and the kind of
// message that answers it: an error, or the game after event.
type liveStep struct {
	send  string
	event string // "" for an error, "-" for no answer
}

// normalizer replaces what differs from one run to the next (ids, tokens,
// invite codes, times, running clocks) with names given in order of
// appearance.
type normalizer struct {
	names map[string]string
	count map[string]int
	order []string
}

func (n *normalizer) name(kind, v string) {
	if v == "" || n.names[v] != "" {
		return
	}
	n.count[kind]++
	n.names[v] = fmt.Sprintf("<%s%d>", kind, n.count[kind])
	n.order = append(n.order, v)
}

var inviteCode = regexp.MustCompile(`/#/join/([a-z2-7]{12})`)

// learn names the ids, tokens and invite codes of an answer.
func (n *normalizer) learn(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n.learn(e, k)
		}
	case []any:
		for _, e := range x {
			n.learn(e, key)
		}
	case string:
		switch key {
		case "id", "seriesId", "next", "game":
			if len(x) == 16 {
				n.name("id", x)
			}
		case "token":
			n.name("token", x)
		case "invite":
			if m := inviteCode.FindStringSubmatch(x); m != nil {
				n.name("invite", m[1])
			}
		}
	}
}

// clean replaces times and clock readings, which vary by the
// millisecond, in place.
func clean(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = clean(e, k)
		}
		if key == "clocks" {
			for _, side := range []string{"s", "n"} {
				if ms, ok := x[side].(float64); ok && ms != 0 && ms != 60000 && ms != 300000 {
					x[side] = "<ms>"
				}
			}
		}
	case []any:
		for i, e := range x {
			x[i] = clean(e, key)
		}
	case string:
		if key == "created" || key == "updated" {
			return "<time>"
		}
		if key == "date" {
			return "<date>"
		}
	}
	return v
}

// recordDate is a game record's date tag: the day the test runs.
var recordDate = regexp.MustCompile(`\[Date "\d{4}-\d{2}-\d{2}"\]`)

// normalize returns an answer's body with its varying parts named.
func (n *normalizer) normalize(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		text := recordDate.ReplaceAllString(string(body), `[Date "<date>"]`)
		for _, k := range n.order {
			text = strings.ReplaceAll(text, k, n.names[k])
		}
		return text
	}
	n.learn(v, "")
	text, _ := json.Marshal(v)
	s := string(text)
	for _, k := range n.order {
		s = strings.ReplaceAll(s, k, n.names[k])
	}
	json.Unmarshal([]byte(s), &v)
	v = clean(v, "")
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// pick returns the string at path (dot-separated) in an answer.
func pick(t *testing.T, body []byte, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("saving %s: %v in %s", path, err, body)
	}
	for p := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("saving %s: no %s in %s", path, p, body)
		}
		v = m[p]
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("saving %s: %v is no string", path, v)
	}
	if m := inviteCode.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

func TestRecordedSequence(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	n := &normalizer{names: map[string]string{}, count: map[string]int{}}
	vars := map[string]string{}
	expand := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	var out bytes.Buffer
	for i, st := range sequence {
		path, body := expand(st.path), expand(st.body)
		req := httptest.NewRequest(st.method, path, strings.NewReader(body))
		if st.method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		if st.token != "" {
			req.Header.Set("Authorization", "Bearer "+expand(st.token))
		}
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		raw := rec.Body.Bytes()
		for name, p := range st.save {
			vars[name] = pick(t, raw, p)
		}
		fmt.Fprintf(&out, "### %d %s %s %s\n", i+1, st.method, st.path, st.body)
		fmt.Fprintf(&out, "%d", rec.Code)
		if loc := rec.Header().Get("Location"); loc != "" {
			n.normalize(fmt.Appendf(nil, `{"id":%q}`, strings.TrimPrefix(loc, "/api/games/")))
			fmt.Fprintf(&out, " Location: %s", n.normalize([]byte(loc)))
		}
		if ct := rec.Header().Get("Content-Type"); ct != "" {
			fmt.Fprintf(&out, " %s", ct)
		}
		fmt.Fprintf(&out, "\n%s\n\n", n.normalize(raw))
	}
	// The live connection: a seat's moves and actions, and their errors.
	var c created
	ts.do("POST", "/api/games", `{"online": true, "holes": 4, "seeds": 2, "side": "s"}`, &c)
	var j created
	ts.do("POST", "/api/join/"+c.Invite[len("/#/join/"):], `{}`, &j)
	vars["south"], vars["north"] = c.Seat.Token, j.Seat.Token
	n.normalize(fmt.Appendf(nil, `{"id":%q,"token":%q,"seat":{"token":%q}}`, c.Game.ID, c.Seat.Token, j.Seat.Token))
	live := dialLive(t, web.URL, c.Game.ID)
	first := live.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	fmt.Fprintf(&out, "### live: first message\n%s\n\n", n.normalizeLive(first))
	for _, ls := range liveSequence {
		msg := expand(ls.send)
		if err := live.ws.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if ls.event == "-" {
			fmt.Fprintf(&out, "### live: %s\n(no answer)\n\n", ls.send)
			continue
		}
		m := live.wait(ls.send, func(m liveMessage) bool {
			if ls.event == "" {
				return m.Type == "error"
			}
			return m.Type == "game" && m.Event == ls.event
		})
		fmt.Fprintf(&out, "### live: %s\n%s\n\n", ls.send, n.normalizeLive(m))
	}
	golden := filepath.Join("testdata", "sequence.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (record it with -update)", err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("answers differ from %s at line %d:\n got: %s\nwant: %s", golden, i+1, g, w)
			}
		}
	}
}

// normalizeLive is normalize for a live message, whose presence counts
// depend on when the connections' arrivals were told.
// normalizeLive is message m as it came over the wire, who is connected
// left out: when the connections say so varies.
func (n *normalizer) normalizeLive(m liveMessage) string {
	var v map[string]any
	if err := json.Unmarshal(m.wire, &v); err != nil {
		return fmt.Sprintf("(not JSON: %q)", m.wire)
	}
	online, _ := v["online"].(map[string]any)
	if g, ok := v["game"].(map[string]any); ok {
		online, _ = g["online"].(map[string]any)
	}
	if online != nil {
		online["connected"], online["watchers"] = map[string]bool{"s": false, "n": false}, 0
	}
	data, _ := json.Marshal(v)
	return n.normalize(data)
}

var liveSequence = []liveStep{
	{send: `{"type": "move", "move": "a", "ply": 0}`},
	{send: `{"type": "hello", "token": "not-a-token"}`},
	{send: `{"type": "move", "move": "a", "ply": 0}`},
	{send: `{"type": "hello", "token": "{south}"}`, event: "-"},
	{send: `{"type": "move", "move": "a"}`},
	{send: `{"type": "move", "move": "a", "ply": 3}`},
	{send: `{"type": "move", "move": "A", "ply": 0}`},
	{send: `{"type": "move", "move": "q", "ply": 0}`},
	{send: `{"type": "move", "move": "a", "ply": 0}`, event: "move"},
	{send: `{"type": "move", "move": "b", "ply": 1}`},
	{send: `{"type": "action", "action": "draw-offer", "ply": 1}`, event: "draw-offer"},
	{send: `{"type": "action", "action": "draw-offer", "ply": 1}`},
	{send: `{"type": "action", "action": "dance", "ply": 1}`},
	{send: `{"type": "action", "action": "resign"}`},
	{send: `{"type": "wave"}`},
	{send: `{"type": "move", "move":`},
	{send: `{"type": "action", "action": "resign", "ply": 1}`, event: "resign"},
	{send: `{"type": "move", "move": "b", "ply": 1}`},
}

var sequence = []step{
	// A game on one device.
	{method: "POST", path: "/api/games", body: `{"holes": 6, "south": "Naserian", "north": "Sironka"}`, save: map[string]string{"local": "id"}},
	{method: "GET", path: "/api/games/{local}"},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "A", "ply": 0}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "c", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "z", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": `},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "A", "Ply": 1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "B", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "A", "ply": -1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "A"}`},
	{method: "POST", path: "/api/games/{local}/computer", body: `{"ply": 2}`},
	{method: "POST", path: "/api/games/{local}/takeback", body: `{}`},
	{method: "POST", path: "/api/games/{local}/takeback", body: `{"ply": 1}`},
	{method: "POST", path: "/api/games/{local}/takeback", body: `{"ply": 2}`},
	{method: "POST", path: "/api/games/{local}/actions", body: `{"action": "draw-offer", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/actions", body: `{"action": "resign"}`},
	{method: "POST", path: "/api/games/{local}/actions", body: `{"action": "resign", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/moves", body: `{"move": "c", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/actions", body: `{"action": "resign", "ply": 1}`},
	{method: "POST", path: "/api/games/{local}/takeback", body: `{"ply": 1}`},
	{method: "GET", path: "/api/games/{local}/record"},
	{method: "GET", path: "/api/games/{local}/record?format=json"},
	{method: "GET", path: "/api/games/0123456789abcdef"},
	{method: "POST", path: "/api/games/nonsense/moves", body: `{"move": "c", "ply": 0}`},
	// A game that ends by the rules.
	{method: "POST", path: "/api/games", body: `{"position": "0,0,1,0/1,0,0,0 s 7 7"}`, save: map[string]string{"short": "id"}},
	{method: "POST", path: "/api/games/{short}/moves", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{short}/moves", body: `{"move": "A", "ply": 1}`},
	{method: "POST", path: "/api/games/{short}/actions", body: `{"action": "resign", "ply": 1}`},
	{method: "GET", path: "/api/games/{short}/hint"},
	// Against the computer.
	{method: "POST", path: "/api/games", body: `{"position": "2,1,0,2/0,3,0,0 n 0 0", "computer": {"side": "n", "level": 1}}`, save: map[string]string{"comp": "id"}},
	{method: "POST", path: "/api/games/{comp}/moves", body: `{"move": "B", "ply": 0}`},
	{method: "POST", path: "/api/games/{comp}/computer", body: `{"ply": 3}`},
	{method: "POST", path: "/api/games/{comp}/computer", body: `{"ply": 0}`},
	{method: "POST", path: "/api/games/{comp}/computer", body: `{"ply": 1}`},
	{method: "POST", path: "/api/games/{comp}/moves", body: `{"move": "b", "ply": 1}`},
	{method: "POST", path: "/api/games/{comp}/takeback", body: `{"ply": 2}`},
	{method: "POST", path: "/api/games/{comp}/takeback", body: `{"ply": 1}`},
	{method: "POST", path: "/api/games/{comp}/actions", body: `{"action": "resign", "ply": 0}`},
	{method: "GET", path: "/api/games/{comp}/record"},
	{method: "POST", path: "/api/games", body: `{"computer": {"side": "x", "level": 1}}`},
	{method: "POST", path: "/api/games", body: `{"computer": {"side": "n", "level": 11}}`},
	// A series on one device.
	{method: "POST", path: "/api/games", body: `{"position": "0,0,1,0/1,0,0,0 s 7 7", "series": 2}`},
	{method: "POST", path: "/api/games", body: `{"holes": 4, "seeds": 1, "series": 2}`, save: map[string]string{"s1": "id", "series": "seriesId"}},
	{method: "POST", path: "/api/series/{series}/next", body: ``},
	{method: "POST", path: "/api/games/{s1}/actions", body: `{"action": "resign", "ply": 0}`},
	{method: "POST", path: "/api/games/{s1}/takeback", body: `{"ply": 0}`},
	{method: "POST", path: "/api/series/{series}/next", body: `{"x": 1}`},
	{method: "POST", path: "/api/series/{series}/next", body: ``, save: map[string]string{"s2": "id"}},
	{method: "POST", path: "/api/games/{s2}/actions", body: `{"action": "resign", "ply": 0}`},
	{method: "POST", path: "/api/series/{series}/next", body: ``},
	{method: "GET", path: "/api/series/{series}"},
	{method: "GET", path: "/api/series/0123456789abcdef"},
	// An online game: two seats, moves, offers, a takeback, a
	// resignation, a rematch.
	{method: "POST", path: "/api/games", body: `{"online": true, "holes": 6, "side": "s", "name": "Naserian", "clock": {"minutes": 5, "increment": 2}}`,
		save: map[string]string{"on": "game.id", "s": "seat.token", "code": "invite"}},
	{method: "POST", path: "/api/games", body: `{"online": true, "computer": {"side": "n", "level": 1}}`},
	{method: "POST", path: "/api/games", body: `{"online": true, "clock": {"minutes": 500}}`},
	{method: "POST", path: "/api/games", body: `{"side": "s"}`},
	{method: "GET", path: "/api/join/{code}"},
	{method: "GET", path: "/api/join/aaaaaaaaaaaa"},
	{method: "POST", path: "/api/games/{on}/moves", token: "{s}", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{on}/moves", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "bogus", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/join/{code}", body: `{"name": "Sironka"}`, save: map[string]string{"n": "seat.token"}},
	{method: "POST", path: "/api/join/{code}", body: `{"name": "Late"}`},
	{method: "GET", path: "/api/join/{code}"},
	{method: "POST", path: "/api/games/{on}/moves", token: "{n}", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{s}", body: `{"move": "c"}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{s}", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{n}", body: `{"move": "A", "ply": 0}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{s}", body: `{"move": "a", "ply": 1}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{n}", body: `{"move": "B", "ply": 1}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{n}", body: `{"move": "A", "ply": 1}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "draw-offer", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "draw-offer", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "draw-offer", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "draw-decline", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "draw-accept", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "abort", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "takeback-request", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "takeback-accept", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "takeback-accept", "ply": 2}`},
	{method: "GET", path: "/api/games/{on}"},
	{method: "POST", path: "/api/games/{on}/moves", token: "{n}", body: `{"move": "C", "ply": 1}`},
	{method: "POST", path: "/api/games/{on}/takeback", token: "{s}", body: `{"ply": 2}`},
	{method: "POST", path: "/api/games/{on}/takeback", body: `{"ply": 2}`},
	{method: "POST", path: "/api/games/{on}/computer", token: "{s}", body: `{"ply": 2}`},
	{method: "GET", path: "/api/games/{on}/hint"},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "dance", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "resign"}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "rematch", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "resign", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/moves", token: "{s}", body: `{"move": "a", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "draw-offer", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "rematch", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "rematch", "ply": 2}`},
	{method: "POST", path: "/api/games/{on}/actions", token: "{s}", body: `{"action": "rematch", "ply": 2}`, save: map[string]string{"re": "online.next"}},
	{method: "POST", path: "/api/games/{on}/actions", token: "{n}", body: `{"action": "rematch", "ply": 2}`},
	{method: "GET", path: "/api/games/{on}/record"},
	{method: "GET", path: "/api/games/{re}"},
	{method: "POST", path: "/api/games/{re}/moves", token: "{n}", body: `{"move": "A", "ply": 0}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{s}", body: `{"action": "abort", "ply": 1}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{s}", body: `{"action": "takeback-request", "ply": 1}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{n}", body: `{"action": "takeback-request", "ply": 1}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{s}", body: `{"action": "takeback-decline", "ply": 1}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{s}", body: `{"action": "abort", "ply": 1}`},
	{method: "POST", path: "/api/games/{re}/actions", token: "{n}", body: `{"action": "rematch", "ply": 1}`},
	// A seat of one game is no seat of another.
	{method: "POST", path: "/api/games", body: `{"online": true, "side": "n", "clock": {"days": 3}}`, save: map[string]string{"other": "game.id"}},
	{method: "POST", path: "/api/games/{other}/moves", token: "{s}", body: `{"move": "c", "ply": 0}`},
	{method: "POST", path: "/api/games/{other}/actions", token: "{s}", body: `{"action": "resign", "ply": 0}`},
	// An online series.
	{method: "POST", path: "/api/games", body: `{"online": true, "holes": 4, "seeds": 2, "side": "s", "series": 2}`,
		save: map[string]string{"os": "game.id", "oss": "game.seriesId", "os_s": "seat.token", "oscode": "invite"}},
	{method: "POST", path: "/api/join/{oscode}", body: ``, save: map[string]string{"os_n": "seat.token"}},
	{method: "POST", path: "/api/games/{os}/actions", token: "{os_s}", body: `{"action": "rematch", "ply": 0}`},
	{method: "POST", path: "/api/games/{os}/actions", token: "{os_n}", body: `{"action": "resign", "ply": 0}`},
	{method: "POST", path: "/api/series/{oss}/next", body: ``},
	{method: "POST", path: "/api/games/{os}/actions", token: "{os_s}", body: `{"action": "rematch", "ply": 0}`, save: map[string]string{"os2": "online.next"}},
	{method: "GET", path: "/api/games/{os2}"},
	{method: "GET", path: "/api/series/{oss}"},
	{method: "GET", path: "/api/games?ids={os},{os2},{on}"},
	{method: "GET", path: "/api/games?ids=zz"},
	{method: "GET", path: "/api/online"},
}
