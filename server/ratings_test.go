package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/players"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// ratedPair stores a rated online game on 8 holes with a 5+2 clock whose
// seats the accounts named south and north hold, each side having made a
// move (South to move), and returns it with the seats' tokens by side.
// With flagged, South's clock ran out an hour ago.
func ratedPair(t *testing.T, st store.Store, south, north string, flagged bool) (*game.Game, [2]string) {
	t.Helper()
	ctx := context.Background()
	tokens := [2]string{"south-" + south + "-" + north + fmt.Sprint(time.Now().UnixNano()), "north-" + fmt.Sprint(time.Now().UnixNano())}
	start, _ := rules.NewPosition(8, 4)
	clock := game.Clock{Time: 5 * time.Minute, Increment: 2 * time.Second}
	o := &game.Online{Invite: fmt.Sprintf("%012d", time.Now().UnixNano()%1e12), Clock: clock,
		Seats: [2]string{play.HashToken(tokens[0]), play.HashToken(tokens[1])}, Left: [2]time.Duration{clock.Time, clock.Time}}
	if flagged {
		o.Left[rules.South], o.TurnStart = time.Second, time.Now().Add(-time.Hour)
	}
	b, _ := rules.NewGame(start, rules.Rules{}.Canonical())
	for range 2 {
		if err := b.Play(b.LegalMoves()[0]); err != nil {
			t.Fatal(err)
		}
	}
	g := &game.Game{South: south, North: north, Start: start, Rules: rules.Rules{}.Canonical(), Result: "*", Rated: true,
		Online: o, Moves: b.Moves(), Category: ratings.Category(8, clock)}
	if err := st.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	for side, name := range []string{south, north} {
		a, err := st.AccountByKey(ctx, strings.ToLower(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ClaimSeat(ctx, o.Seats[side], a.ID); err != nil {
			t.Fatal(err)
		}
	}
	return g, tokens
}

// endRated ends rated game g as play would, at at: as end says, with
// result, and the ratings' step of the end.
func endRated(t *testing.T, st store.Store, g *game.Game, end, result string, at time.Time) {
	t.Helper()
	o := *g.Online
	o.End, o.TurnStart = end, time.Time{}
	e := ratings.End{Category: g.Category, First: g.Start.ToMove(), Result: result, Moved: [2]bool{true, true}, At: at}
	c := game.Change{Ply: len(g.Moves), From: len(g.Moves), Rev: g.Online.Rev, Result: result, Online: &o, At: at, Rate: e.Step()}
	if err := st.Update(context.Background(), g.ID, c); err != nil {
		t.Fatal(err)
	}
}

// getJSON answers a GET as JSON into out, and returns the status.
func (as *accountServer) getJSON(path string, out any) int {
	as.t.Helper()
	a := as.call("GET", path, "", "", "")
	if a.code == 200 && out != nil {
		if err := json.Unmarshal([]byte(a.body), out); err != nil {
			as.t.Fatalf("GET %s: %v: %s", path, err, a.body)
		}
	}
	return a.code
}

// A rated game shows its players with their ratings; when it ends, the
// live message of its end and its view carry the change of both ratings,
// and the players' profiles, histories and game lists show it.
func TestRatedGameAndProfiles(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	for _, name := range []string{"Amina", "Baraka", "Chausiku"} {
		if a := as.call("POST", "/api/account/signup", creds(name, goodPassword), "", ""); a.code != 201 {
			t.Fatalf("sign-up: %d %s", a.code, a.body)
		}
	}
	web := httptest.NewServer(as.srv)
	defer web.Close()
	g, tokens := ratedPair(t, as.st, "Amina", "Baraka", false)

	var v gameView
	if code := as.getJSON("/api/games/"+g.ID, &v); code != 200 {
		t.Fatalf("view: %d", code)
	}
	// New players show a new player's rating, provisional.
	if v.Rated == nil || !*v.Rated || v.Players == nil || v.Players.South.Name != "Amina" || v.Players.North.Name != "Baraka" ||
		v.Players.South.Rating == nil || *v.Players.South.Rating != 1500 || !v.Players.South.Provisional || v.RatingChange != nil {
		t.Fatalf("a rated game before its end: rated %v, players %+v, change %+v", v.Rated, v.Players, v.RatingChange)
	}

	watcher := dialLive(t, web.URL, g.ID)
	watcher.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	if a := as.call("POST", "/api/games/"+g.ID+"/actions", `{"action": "resign", "ply": 2}`, "", "",
		"Authorization", "Bearer "+tokens[rules.South]); a.code != 200 {
		t.Fatalf("resign: %d %s", a.code, a.body)
	}
	end := watcher.wait("the end", func(m liveMessage) bool { return m.Type == "game" && m.Game.Status == "resigned" })
	rc := end.Game.RatingChange
	if rc == nil || rc.South.Before != 1500 || rc.South.Diff >= 0 || rc.North.Diff <= 0 || rc.South.Diff != -rc.North.Diff ||
		rc.South.After != rc.South.Before+rc.South.Diff {
		t.Fatalf("the end's rating change: %+v", rc)
	}
	if code := as.getJSON("/api/games/"+g.ID, &v); code != 200 || v.RatingChange == nil || *v.RatingChange != *rc ||
		*v.Players.South.Rating != 1500 {
		t.Errorf("the ended game's view: %d, change %+v, players %+v", code, v.RatingChange, v.Players)
	}

	// Amina's profile.
	var prof players.Profile
	if code := as.getJSON("/api/players/amina", &prof); code != 200 {
		t.Fatalf("profile: %d", code)
	}
	if prof.Name != "Amina" || prof.Bot || len(prof.Ratings) != 1 || prof.Ratings[0].Category != "8-blitz" ||
		prof.Ratings[0].Games != 1 || prof.Ratings[0].Rating != rc.South.After || !prof.Ratings[0].Provisional ||
		prof.BySide.South != (players.SideRecord{Losses: 1}) || prof.BySide.North != (players.SideRecord{}) {
		t.Errorf("profile %+v", prof)
	}
	var hist struct {
		Points []players.Point
	}
	if code := as.getJSON("/api/players/Amina/ratings?category=8-blitz", &hist); code != 200 || len(hist.Points) != 1 ||
		hist.Points[0].Game != g.ID || hist.Points[0].Rating != rc.South.After {
		t.Errorf("history: %d %+v", code, hist)
	}
	var games struct {
		Games []struct {
			ID, Side, Category, Status string
			Result                     *string
			Rated                      bool
			Opponent                   players.Player
			RatingChange               *players.Change `json:"rating_change"`
		}
		Next *string
	}
	if code := as.getJSON("/api/players/amina/games", &games); code != 200 || len(games.Games) != 1 || games.Next != nil {
		t.Fatalf("games: %d %+v", code, games)
	}
	pg := games.Games[0]
	if pg.ID != g.ID || pg.Side != "s" || pg.Result == nil || *pg.Result != "loss" || !pg.Rated || pg.Category != "8-blitz" ||
		pg.Opponent.Name != "Baraka" || pg.Opponent.Rating == nil || *pg.Opponent.Rating != 1500 || pg.RatingChange == nil ||
		*pg.RatingChange != rc.South || pg.Status != "resigned" {
		t.Errorf("Amina's game %+v", pg)
	}
	for _, q := range []string{"result=win", "side=n", "category=6-blitz", "opponent=chausiku"} {
		games.Games = nil
		if code := as.getJSON("/api/players/amina/games?"+q, &games); code != 200 || len(games.Games) != 0 {
			t.Errorf("games?%s: %d %+v", q, code, games.Games)
		}
	}
	for _, q := range []string{"result=loss", "side=s", "category=8-blitz", "opponent=BARAKA", "limit=100"} {
		games.Games = nil
		if code := as.getJSON("/api/players/amina/games?"+q, &games); code != 200 || len(games.Games) != 1 {
			t.Errorf("games?%s: %d %+v", q, code, games.Games)
		}
	}

	// Bad requests.
	long := strings.Repeat("x", 5000)
	for path, want := range map[string]int{
		"/api/players/nobody":                          404,
		"/api/players/" + url.PathEscape("a b"):        404,
		"/api/players/" + long:                         404,
		"/api/players/nobody/games":                    404,
		"/api/players/amina/ratings":                   400,
		"/api/players/amina/ratings?category=8-hyper":  400,
		"/api/players/amina/ratings?category=99-blitz": 400,
		"/api/players/amina/games?result=won":          400,
		"/api/players/amina/games?side=x":              400,
		"/api/players/amina/games?limit=0":             400,
		"/api/players/amina/games?limit=101":           400,
		"/api/players/amina/games?limit=x":             400,
		"/api/players/amina/games?category=" + long:    400,
		"/api/players/amina/games?before=garbage":      400,
		"/api/players/amina/games?before=" + encodeCursor(store.GameCursor{Created: time.Now(), ID: "x"}): 400,
		"/api/players/amina/games?before=" + long:                                                         400,
		"/api/players/amina/games?opponent=nobody":                                                        404,
		"/api/leaderboard":                            400,
		"/api/leaderboard?category=blitz":             400,
		"/api/leaderboard?category=8-blitz&limit=101": 400,
		"/api/leaderboard?category=8-blitz&limit=-1":  400,
		"/api/leaderboard?category=8-blitz":           200,
		"/api/players/amina/games?before=" + encodeCursor(store.GameCursor{Created: time.Now(), ID: g.ID}): 200,
	} {
		if code := as.getJSON(path, nil); code != want {
			t.Errorf("GET %.80s: %d, want %d", path, code, want)
		}
	}
}

// Games a page at a time: next leads through every game once.
func TestPlayerGamesPages(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	for _, name := range []string{"Amina", "Baraka"} {
		as.call("POST", "/api/account/signup", creds(name, goodPassword), "", "")
	}
	want := map[string]bool{}
	for range 7 {
		g, _ := ratedPair(t, as.st, "Amina", "Baraka", false)
		want[g.ID] = true
	}
	seen := map[string]bool{}
	path := "/api/players/amina/games?limit=3"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		var page struct {
			Games []struct{ ID string }
			Next  *string
		}
		if code := as.getJSON(path, &page); code != 200 {
			t.Fatalf("GET %s: %d", path, code)
		}
		for _, g := range page.Games {
			if seen[g.ID] || !want[g.ID] {
				t.Errorf("game %s listed twice or not Amina's", g.ID)
			}
			seen[g.ID] = true
		}
		if page.Next == nil {
			break
		}
		path = "/api/players/amina/games?limit=3&before=" + url.QueryEscape(*page.Next)
	}
	if len(seen) != len(want) {
		t.Errorf("%d games listed, want %d", len(seen), len(want))
	}
	// A page that holds the last game has no next.
	var page struct {
		Games []struct{ ID string }
		Next  *string
	}
	if code := as.getJSON("/api/players/amina/games?limit=7", &page); code != 200 || len(page.Games) != 7 || page.Next != nil {
		t.Errorf("a page of all 7 games: %d, %d games, next %v", code, len(page.Games), page.Next)
	}
}

// A rated game whose clock ran out while no server ran ends on time when
// one starts, rated once; the leaderboard shows established, active
// players, never a deleted one; the advantage is fitted from the games.
func TestRatedEndAtStartAndLeaderboard(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	sessions := map[string]string{}
	for _, name := range []string{"Amina", "Baraka"} {
		sessions[name] = as.call("POST", "/api/account/signup", creds(name, goodPassword), "", "").session().Value
	}
	ctx := context.Background()
	g, _ := ratedPair(t, as.st, "Amina", "Baraka", true)
	sctx, stop := context.WithCancel(ctx)
	if err := as.srv.Start(sctx); err != nil {
		t.Fatal(err)
	}
	defer func() { stop(); as.srv.Close() }()
	deadline := time.Now().Add(liveWait)
	for {
		gr, err := as.st.GameRatings(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if gr.Seats[rules.South].Change != nil {
			if gr.Seats[rules.South].Change.Score != 0 || gr.Seats[rules.North].Change.Score != 1 {
				t.Errorf("South ran out of time, yet scored %v", gr.Seats[rules.South].Change.Score)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flagged game is not rated within %s", liveWait)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Enough games to make both established, one a day over the last
	// month (the ratings count only a few a day between two players):
	// Baraka wins them all as South, draws as North.
	for i := range 30 {
		south, north, result := "Baraka", "Amina", "1-0"
		if i%2 == 1 {
			south, north, result = "Amina", "Baraka", "1/2-1/2"
		}
		g, _ := ratedPair(t, as.st, south, north, false)
		endRated(t, as.st, g, play.EndResign, result, time.Now().Add(time.Duration(i-30)*24*time.Hour))
	}
	var board struct {
		Category string
		Players  []players.Place
	}
	if code := as.getJSON("/api/leaderboard?category=8-blitz", &board); code != 200 || board.Category != "8-blitz" ||
		len(board.Players) != 2 {
		t.Fatalf("leaderboard: %d %+v", code, board)
	}
	if b := board.Players[0]; b.Rank != 1 || b.Name != "Baraka" || b.Games != 31 || b.RD > 110 || b.Rating <= 1500 ||
		board.Players[1].Name != "Amina" || board.Players[1].Rank != 2 {
		t.Errorf("leaderboard %+v", board.Players)
	}
	if code := as.getJSON("/api/leaderboard?category=8-blitz&limit=1", &board); code != 200 || len(board.Players) != 1 {
		t.Errorf("leaderboard of 1: %d %+v", code, board)
	}
	if a := as.call("POST", "/api/me/delete", `{"confirm": "Baraka"}`, sessions["Baraka"], ""); a.code != 200 {
		t.Fatalf("delete: %d %s", a.code, a.body)
	}
	if code := as.getJSON("/api/leaderboard?category=8-blitz", &board); code != 200 || len(board.Players) != 1 ||
		board.Players[0].Name != "Amina" {
		t.Errorf("leaderboard after Baraka's deletion: %+v", board.Players)
	}
	// Baraka's games show him as a deleted player.
	var games struct {
		Games []struct{ Opponent players.Player }
	}
	if code := as.getJSON("/api/players/amina/games?limit=1", &games); code != 200 || len(games.Games) != 1 ||
		games.Games[0].Opponent.Name != store.DeletedPlayer {
		t.Errorf("Amina's last game after Baraka's deletion: %+v", games)
	}
	if code := as.getJSON("/api/players/baraka", nil); code != 404 {
		t.Errorf("a deleted player's profile: %d", code)
	}

	if err := as.srv.players.RefreshAdvantages(ctx); err != nil {
		t.Fatal(err)
	}
	adv, err := as.st.Advantages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The first movers scored 15 + 7.5 of 31 (every win was a first
	// mover's): the fit leans their way, the prior holds it in bounds.
	if a := adv["8-blitz"]; a.Games != 31 || a.Advantage <= 0 || a.Advantage > 150 {
		t.Errorf("advantage %+v", a)
	}
}

// On two instances sharing PostgreSQL: both players resign one rated game
// at the same moment, one through each instance; one resignation ends it,
// the other is refused, and the game changes each rating once. A game
// whose flag fell while no instance ran is ended, and rated once, by the
// instances that start.
func TestInstancesRateOnce(t *testing.T) { forEachBus(t, testInstancesRateOnce) }

func testInstancesRateOnce(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const rounds = 8
	// Amina plays each round against another player: the ratings count
	// only a few games a day between two players.
	for _, name := range []string{"amina", "baraka", "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"} {
		if err := st.CreateAccount(ctx, &store.Account{Name: name, Key: name}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	flagged, _ := ratedPair(t, st, "amina", "baraka", true)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	for round := range rounds {
		g, tokens := ratedPair(t, st, "amina", fmt.Sprintf("p%d", round), false)
		start := make(chan struct{})
		var codes [2]int
		var wg sync.WaitGroup
		for side, ts := range []*testServer{ta, tb} {
			wg.Go(func() {
				<-start
				codes[side], _ = ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[side], `{"action": "resign", "ply": 2}`, nil)
			})
		}
		close(start)
		wg.Wait()
		if codes != [2]int{200, 409} && codes != [2]int{409, 200} {
			t.Fatalf("round %d: answers %v, want one 200 and one 409", round, codes)
		}
		var v gameView
		if code, raw := tb.do("GET", "/api/games/"+g.ID, "", &v); code != 200 || v.RatingChange == nil ||
			v.RatingChange.South.Diff*v.RatingChange.North.Diff >= 0 {
			t.Fatalf("round %d: %d %s", round, code, raw)
		}
	}
	deadline := time.Now().Add(liveWait)
	for {
		gr, err := st.GameRatings(ctx, flagged.ID)
		if err != nil {
			t.Fatal(err)
		}
		if gr.Seats[rules.South].Change != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flagged game is not rated within %s", liveWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for name, want := range map[string]int{"amina": rounds + 1, "baraka": 1, "p0": 1, "p7": 1} {
		acc, err := st.AccountByKey(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		list, err := st.PlayerRatings(ctx, acc.ID)
		if err != nil || len(list) != 1 || list[0].Games != want {
			t.Errorf("%s: %+v, %v; want %d games", name, list, err, want)
		}
		h, err := st.RatingHistory(ctx, acc.ID, "8-blitz", 100)
		if err != nil || len(h) != want {
			t.Errorf("%s's history: %d changes, %v", name, len(h), err)
		}
	}
}

// A cursor reads back as the place it was made of; any other text is
// refused or reads as a place a game could have.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(store.GameCursor{Created: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), ID: "0123456789abcdef"}))
	f.Add("garbage")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := decodeCursor(text)
		if err != nil {
			return
		}
		if !store.ValidID(c.ID) || c.Created.Year() < 2000 || c.Created.Year() > 3000 {
			t.Fatalf("decodeCursor(%q) = %+v", text, c)
		}
		if again, err := decodeCursor(encodeCursor(c)); err != nil || again != c {
			t.Fatalf("%+v encodes as a cursor that reads as %+v, %v", c, again, err)
		}
	})
}

// An instance stops in the middle of a rated game; the game's clock runs
// out, and the other instance, told of the last move, ends the game on
// time and rates it.
func TestRatedEndAfterAnInstanceStops(t *testing.T) { forEachBus(t, testRatedEndAfterAnInstanceStops) }

func testRatedEndAfterAnInstanceStops(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{"amina", "baraka"} {
		if err := st.CreateAccount(ctx, &store.Account{Name: name, Key: name}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Instance A, stopped by hand below.
	stA, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	srvA := NewWithOptions(stA, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Bus: openTestBus(t, busURL)})
	actx, stopA := context.WithCancel(ctx)
	if err := srvA.Start(actx); err != nil {
		t.Fatal(err)
	}
	waitHearing(t, srvA)
	b := startInstanceOn(t, url, busURL, nil)

	g, tokens := ratedPair(t, st, "amina", "baraka", false)
	// South has 3 seconds once its clock starts, after the next two moves.
	o := *g.Online
	o.Left[rules.South] = 3 * time.Second
	if err := st.Update(ctx, g.ID, game.Change{Ply: 2, From: 2, Rev: o.Rev, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	ta := &testServer{t: t, srv: srvA}
	for _, side := range []rules.Side{rules.South, rules.North} {
		var v gameView
		if code, raw := ta.do("GET", "/api/games/"+g.ID, "", &v); code != 200 || len(v.LegalMoves) == 0 {
			t.Fatalf("view: %d %s", code, raw)
		}
		if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokens[side],
			fmt.Sprintf(`{"move": %q, "ply": %d}`, v.LegalMoves[0], len(v.Moves)), nil); code != 200 {
			t.Fatalf("move %d: %d %s", len(v.Moves), code, raw)
		}
	}
	// A stops before South's flag falls.
	stopA()
	srvA.Close()
	stA.Close()

	deadline := time.Now().Add(liveWait)
	for {
		gr, err := st.GameRatings(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ch := gr.Seats[rules.South].Change; ch != nil {
			if ch.Score != 0 || gr.Seats[rules.North].Change.Score != 1 {
				t.Errorf("South's flag fell, yet South scored %v", ch.Score)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the game is not ended and rated by the other instance within %s", liveWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var v gameView
	tb := &testServer{t: t, srv: b.srv}
	if code, raw := tb.do("GET", "/api/games/"+g.ID, "", &v); code != 200 || v.Status != "timeout" || v.RatingChange == nil ||
		v.RatingChange.South.Diff >= 0 {
		t.Errorf("the game on B: %d %s", code, raw)
	}
}
