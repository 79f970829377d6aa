package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/rules"
)

// fakeServer plays the server's part of the API the bot uses, as
// docs/api.md and the lobby's contract say, with the rules of package
// rules behind its games, and lets a test cut connections and lose
// answers at will. The tests of the bot against the real server are in
// site_test.go; this one tells exactly what the bot sent.
type fakeServer struct {
	t     *testing.T
	token string
	srv   *httptest.Server

	mu         sync.Mutex
	challenges map[string]*Challenge
	answers    map[string]string // challenge ID: "accepted" or "declined: <reason>"
	games      map[string]*fakeGame
	lobbies    map[*websocket.Conn]bool
	changed    chan struct{} // closed and renewed at every change
	nextID     int
	// loseAnswer, when set for a game and ply, drops the connection of
	// the bot's move at that ply after the move is made, once.
	loseAnswer map[string]int
	// dropAfter, when set for a game and ply, closes the game's live
	// sockets after the move that reaches that ply, once.
	dropAfter map[string]int
	// failAnswers answers this many answers to challenges with 503.
	failAnswers int
}

type fakeGame struct {
	id      string
	botSide rules.Side
	game    *rules.Game
	variant rules.Variant
	clock   *Clock
	rev     int64
	conns   map[*websocket.Conn]bool
	// made counts the bot's moves made at each ply, refused the moves
	// refused; both must show no move made twice.
	made    map[int]int
	refused int
	hello   int // hellos the bot sent on the game's sockets
	// forbid refuses the bot's moves as not its seat's (403).
	forbid bool
	// human plays the other side's moves: the first legal one.
	human bool
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{t: t, token: "bot_" + strings.Repeat("x", 43), challenges: map[string]*Challenge{},
		answers: map[string]string{}, games: map[string]*fakeGame{}, lobbies: map[*websocket.Conn]bool{},
		changed: make(chan struct{}), loseAnswer: map[string]int{}, dropAfter: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/me", f.authed(f.me))
	mux.HandleFunc("GET /api/me/games", f.authed(f.myGames))
	mux.HandleFunc("GET /api/lobby/live", f.authed(f.lobbyLive))
	mux.HandleFunc("POST /api/challenges/{id}/{answer}", f.authed(f.answer))
	mux.HandleFunc("GET /api/games/{id}", f.getGame)
	mux.HandleFunc("GET /api/games/{id}/live", f.gameLive)
	mux.HandleFunc("POST /api/games/{id}/moves", f.authed(f.move))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
	return f
}

// authed answers 401 to a request without the bot's token.
func (f *fakeServer) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			writeFake(w, http.StatusUnauthorized, map[string]string{"error": "not signed in"})
			return
		}
		h(w, r)
	}
}

func writeFake(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// change wakes the tests waiting for a change; f.mu is held.
func (f *fakeServer) change() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// waitFor waits until cond, called under f.mu, holds.
func (f *fakeServer) waitFor(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.After(liveWait)
	for {
		f.mu.Lock()
		ok, ch := cond(), f.changed
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			f.t.Fatalf("no %s within %v", what, liveWait)
		}
	}
}

func (f *fakeServer) me(w http.ResponseWriter, r *http.Request) {
	writeFake(w, http.StatusOK, map[string]any{"account": map[string]any{"name": "Robo", "bot": true}})
}

func (f *fakeServer) myGames(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := []myGame{}
	for _, g := range f.games {
		v := g.view()
		list = append(list, myGame{ID: g.id, Side: string(g.botSide.Letter()), Online: true, Status: v.Status, Result: v.Result})
	}
	writeFake(w, http.StatusOK, map[string]any{"games": list})
}

// challenge sends a challenge to the bot, as a player would.
func (f *fakeServer) challenge(ch Challenge) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	ch.ID = fmt.Sprintf("ch%d", f.nextID)
	ch.To = Player{Name: "Robo", Bot: true}
	if ch.From.Name == "" {
		ch.From = Player{Name: "Naserian"}
	}
	f.challenges[ch.ID] = &ch
	msg, _ := json.Marshal(map[string]any{"type": "challenge", "challenge": ch})
	for ws := range f.lobbies {
		go ws.Write(f.t.Context(), websocket.MessageText, msg)
	}
	return ch.ID
}

// answered waits for the bot's answer to challenge id.
func (f *fakeServer) answered(id string) string {
	f.t.Helper()
	f.waitFor("answer to "+id, func() bool { return f.answers[id] != "" })
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.answers[id]
}

func (f *fakeServer) lobbyLive(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	f.mu.Lock()
	incoming := []Challenge{}
	for id, ch := range f.challenges {
		if f.answers[id] == "" {
			incoming = append(incoming, *ch)
		}
	}
	msg, _ := json.Marshal(map[string]any{"type": "lobby", "seeks": []any{}, "pools": []any{},
		"challenges": map[string]any{"incoming": incoming, "outgoing": []any{}}})
	f.lobbies[ws] = true
	f.change()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.lobbies, ws)
		f.mu.Unlock()
	}()
	if ws.Write(r.Context(), websocket.MessageText, msg) != nil {
		return
	}
	for {
		if _, _, err := ws.Read(r.Context()); err != nil {
			return
		}
	}
}

// dropLobbies closes every lobby socket from the server's side.
func (f *fakeServer) dropLobbies() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ws := range f.lobbies {
		ws.Close(websocket.StatusGoingAway, "the server is stopping")
	}
}

func (f *fakeServer) answer(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, answer := r.PathValue("id"), r.PathValue("answer")
	ch := f.challenges[id]
	if f.failAnswers > 0 {
		f.failAnswers--
		f.change()
		writeFake(w, http.StatusServiceUnavailable, map[string]string{"error": "the database is busy"})
		return
	}
	if ch == nil || f.answers[id] != "" {
		writeFake(w, http.StatusNotFound, map[string]string{"error": "no such challenge"})
		return
	}
	switch answer {
	case "decline":
		var body struct {
			Reason string `json:"reason"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeFake(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		f.answers[id] = "declined: " + body.Reason
		writeFake(w, http.StatusOK, map[string]any{})
	case "accept":
		side := rules.North
		if ch.Side == "n" { // the challenger's side
			side = rules.South
		}
		g := f.newGame(ch.Holes, ch.Seeds, ch.Clock, side)
		f.answers[id] = "accepted " + g.id
		writeFake(w, http.StatusCreated, map[string]string{"game": g.id, "side": string(side.Letter())})
	default:
		writeFake(w, http.StatusNotFound, map[string]string{"error": "no such route"})
	}
	f.change()
}

// newGame makes a game the bot plays as botSide against a human who
// plays the first legal move at once; f.mu is held.
func (f *fakeServer) newGame(holes, seeds int, clock *Clock, botSide rules.Side) *fakeGame {
	start, err := rules.NewPosition(holes, seeds)
	if err != nil {
		f.t.Fatal(err)
	}
	rg, err := rules.NewGame(start, rules.DefaultRules())
	if err != nil {
		f.t.Fatal(err)
	}
	f.nextID++
	g := &fakeGame{id: fmt.Sprintf("%016x", 0xa000+f.nextID), botSide: botSide, game: rg, clock: clock, rev: 1,
		conns: map[*websocket.Conn]bool{}, made: map[int]int{}, human: true}
	f.games[g.id] = g
	f.humanMoves(g)
	return g
}

func (g *fakeGame) view() *gameView {
	p := g.game.Position()
	v := &gameView{ID: g.id, Holes: p.Holes(), Variant: g.variant.String(), MaxLaps: g.game.Rules().Laps(),
		Start: g.game.Start().String(), Moves: []string{}, LegalMoves: []string{},
		ToMove: string(p.ToMove().Letter()), Status: "playing", Result: "*", You: string(g.botSide.Letter())}
	for _, m := range g.game.Moves() {
		v.Moves = append(v.Moves, m.String())
	}
	if g.game.Over() {
		v.Status = "over"
		s, n := g.game.Score()
		v.Result = rules.ResultText(s, n)
	} else {
		for _, m := range g.game.LegalMoves() {
			v.LegalMoves = append(v.LegalMoves, m.String())
		}
	}
	v.Online = &onlineView{Clock: g.clock, Rev: g.rev}
	v.Online.Seats.South, v.Online.Seats.North = true, true
	if g.clock != nil {
		v.Online.Clocks.South = int64(g.clock.Minutes) * 60000
		v.Online.Clocks.North = v.Online.Clocks.South
	}
	return v
}

// broadcast sends the game to its live sockets; f.mu is held.
func (f *fakeServer) broadcast(g *fakeGame) {
	msg, _ := json.Marshal(map[string]any{"type": "game", "game": g.view(), "event": "move"})
	for ws := range g.conns {
		// Under the lock, but bounded: a socket that takes no message
		// within a second is dropped, as the server drops slow clients.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if ws.Write(ctx, websocket.MessageText, msg) != nil {
			ws.CloseNow()
		}
		cancel()
	}
}

// play makes move m in game g and tells its sockets; f.mu is held.
func (f *fakeServer) play(g *fakeGame, m rules.Move) error {
	if err := g.game.Play(m); err != nil {
		return err
	}
	g.rev++
	f.broadcast(g)
	if ply, ok := f.dropAfter[g.id]; ok && ply == g.game.Ply() {
		delete(f.dropAfter, g.id)
		for ws := range g.conns {
			ws.Close(websocket.StatusGoingAway, "the server is stopping")
		}
	}
	f.change()
	return nil
}

// humanMoves plays the human's moves while it is the human's turn; f.mu
// is held.
func (f *fakeServer) humanMoves(g *fakeGame) {
	for g.human && !g.game.Over() && g.game.Position().ToMove() != g.botSide {
		if err := f.play(g, g.game.LegalMoves()[0]); err != nil {
			f.t.Error(err)
			return
		}
	}
}

func (f *fakeServer) getGame(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.games[r.PathValue("id")]
	if g == nil {
		writeFake(w, http.StatusNotFound, map[string]string{"error": "no such game"})
		return
	}
	writeFake(w, http.StatusOK, g.view())
}

func (f *fakeServer) gameLive(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	g := f.games[r.PathValue("id")]
	f.mu.Unlock()
	if g == nil {
		writeFake(w, http.StatusNotFound, map[string]string{"error": "no such game"})
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	f.mu.Lock()
	msg, _ := json.Marshal(map[string]any{"type": "game", "game": g.view()})
	g.conns[ws] = true
	f.change()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(g.conns, ws)
		f.mu.Unlock()
	}()
	if ws.Write(r.Context(), websocket.MessageText, msg) != nil {
		return
	}
	for {
		_, data, err := ws.Read(r.Context())
		if err != nil {
			return
		}
		var m struct {
			Type  string `json:"type"`
			Token string `json:"token"`
		}
		if json.Unmarshal(data, &m) == nil && m.Type == "hello" && m.Token == "" {
			f.mu.Lock()
			g.hello++
			f.mu.Unlock()
		}
	}
}

func (f *fakeServer) move(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Move string `json:"move"`
		Ply  *int   `json:"ply"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Ply == nil {
		writeFake(w, http.StatusBadRequest, map[string]string{"error": "want move and ply"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.games[r.PathValue("id")]
	if g == nil {
		writeFake(w, http.StatusNotFound, map[string]string{"error": "no such game"})
		return
	}
	m, err := rules.ParseMove(body.Move)
	switch {
	case g.forbid:
		g.refused++
		writeFake(w, http.StatusForbidden, map[string]string{"error": "this token is another game's"})
		return
	case err != nil:
		writeFake(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	case *body.Ply != g.game.Ply() || g.game.Position().ToMove() != g.botSide || g.game.Over():
		g.refused++
		writeFake(w, http.StatusConflict, map[string]string{"error": "the game has changed since you saw it"})
		return
	}
	ply := g.game.Ply()
	if err := f.play(g, m); err != nil {
		writeFake(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	g.made[ply]++
	answer := map[string]any{"game": g.view()}
	f.humanMoves(g)
	if lose, ok := f.loseAnswer[g.id]; ok && lose == ply {
		// The move is made, but its answer never reaches the bot.
		delete(f.loseAnswer, g.id)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	writeFake(w, http.StatusOK, answer)
}

// check says what is wrong with the bot's moves in game g: a move made
// twice at one ply, or a move of a game over.
func (f *fakeServer) check(id string) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.games[id]
	for ply, n := range g.made {
		if n != 1 {
			f.t.Errorf("game %s: the bot's move at ply %d was made %d times", id, ply, n)
		}
	}
	botMoves := 0
	for i := range g.game.Ply() {
		if g.game.PositionAt(i).ToMove() == g.botSide {
			botMoves++
		}
	}
	if len(g.made) != botMoves {
		f.t.Errorf("game %s: %d moves made by the bot, want %d", id, len(g.made), botMoves)
	}
}
