package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// coreOf returns the core of a store, for statements a test needs.
func coreOf(t *testing.T, s Store) *core {
	t.Helper()
	switch v := s.(type) {
	case *SQLite:
		return &v.core
	case *Postgres:
		return &v.core
	}
	t.Fatalf("no core in %T", s)
	return nil
}

// newAccount stores an account named name.
func newAccount(t *testing.T, s Store, name string) *Account {
	t.Helper()
	a := &Account{Name: name, Key: name}
	if err := s.CreateAccount(context.Background(), a, nil, nil); err != nil {
		t.Fatal(err)
	}
	return a
}

// blitz is a 5+2 clock: 8-blitz on 8 holes.
var blitz = game.Clock{Time: 5 * time.Minute, Increment: 2 * time.Second}

// newPairing stores an online game on 8 holes, South to move first
// unless northFirst, asked to be rated or not, its seats held by south
// and north (nil: a seat held by a token alone).
func newPairing(t *testing.T, s Store, south, north *Account, rated, northFirst bool) *game.Game {
	t.Helper()
	ctx := context.Background()
	start, _ := rules.NewPosition(8, 4)
	if northFirst {
		start = start.WithToMove(rules.North)
	}
	seats := [2]string{"seat-s-" + newID(), "seat-n-" + newID()}
	g := newGame(t, s, &game.Game{South: "s", North: "n", Start: start, Rated: rated, Category: "8-blitz", Online: &game.Online{Invite: newID(),
		Seats: seats, Clock: blitz, Left: [2]time.Duration{blitz.Time, blitz.Time}}})
	for side, a := range []*Account{south, north} {
		if a != nil {
			if err := s.ClaimSeat(ctx, seats[side], a.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

// endGame ends game g as end says with result, at its revision rev, with
// the ratings' step of the end as package play hands it to the store:
// both sides have moved.
func endGame(s Store, g *game.Game, rev int64, end, result string, at time.Time) error {
	o := *g.Online
	o.End, o.TurnStart = end, time.Time{}
	e := ratings.End{Category: g.Category, First: g.Start.ToMove(), Result: result, Aborted: end == "aborted",
		Moved: [2]bool{true, true}, At: at}
	return s.Update(context.Background(), g.ID, game.Change{Ply: len(g.Moves), From: len(g.Moves), Rev: rev, Result: result,
		Online: &o, At: at, Rate: e.Step()})
}

func ratingOf(t *testing.T, s Store, a *Account, category string) (PlayerRating, bool) {
	t.Helper()
	list, err := s.PlayerRatings(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range list {
		if pr.Category == category {
			return pr, true
		}
	}
	return PlayerRating{}, false
}

// A rated game's end changes both ratings once, as rating.Params.Rate
// says with the category's advantage, and records the change; a replayed
// end, and later changes of the ended game, change nothing.
func TestRatedGameEnd(t *testing.T) { forEachStore(t, testRatedGameEnd) }

func testRatedGameEnd(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	amina, baraka := newAccount(t, s, "amina"), newAccount(t, s, "baraka")
	const cat = "8-blitz"
	at := now()
	if err := s.SetAdvantage(ctx, cat, Advantage{Advantage: 40, StdErr: 10, Games: 100, Updated: at}); err != nil {
		t.Fatal(err)
	}
	// North moves first; South resigns.
	g := newPairing(t, s, amina, baraka, true, true)
	if got, _ := s.Game(ctx, g.ID); !got.Rated {
		t.Fatal("a game made rated reads back casual")
	}
	end := at.Add(time.Minute)
	if err := endGame(s, g, 1, "resign", "0-1", end); err != nil {
		t.Fatal(err)
	}
	p := ratings.Params()
	first, second := p.Initial(), p.Initial()
	first.At, second.At = end, end
	wantN, wantS, err := p.Rate(first, second, 1, 40, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		who  *Account
		want game.Rating
	}{{amina, wantS}, {baraka, wantN}} {
		got, ok := ratingOf(t, s, c.who, cat)
		if !ok || got.Games != 1 || math.Abs(got.Rating.Rating-c.want.Rating) > 1e-9 ||
			math.Abs(got.Deviation-c.want.Deviation) > 1e-9 || !got.At.Equal(end) {
			t.Errorf("%s: %+v, want %+v after 1 game", c.who.Name, got, c.want)
		}
	}
	gr, err := s.GameRatings(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !gr.Rated || gr.Category != cat {
		t.Errorf("game ratings %+v: want rated in %s", gr, cat)
	}
	for side, who := range []*Account{amina, baraka} {
		seat := gr.Seats[side]
		if seat.Account == nil || seat.Account.ID != who.ID || seat.Change == nil || seat.Rating == nil {
			t.Fatalf("%s's seat: %+v", who.Name, seat)
		}
		ch := seat.Change
		if ch.Before.Rating != 1500 || ch.Advantage != 40 || ch.MovedFirst != (side == int(rules.North)) ||
			ch.Score != float64(side) || ch.After.Rating != seat.Rating.Rating {
			t.Errorf("%s's change %+v", who.Name, ch)
		}
	}

	// The same end again finds the game changed; later changes of the
	// ended game (a rematch offer) rate nothing again.
	if err := endGame(s, g, 1, "resign", "0-1", end); !errors.Is(err, ErrConflict) {
		t.Errorf("the end replayed: %v, want ErrConflict", err)
	}
	g2, o := onlineOf(t, s, g.ID)
	o.RematchOffer = "s"
	if err := s.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: o.Rev, Result: "0-1", Online: &o}); err != nil {
		t.Fatal(err)
	}
	_ = g2
	// And the step itself, run again on the ended game, does nothing.
	step := ratings.End{Category: cat, First: rules.North, Result: "0-1", Moved: [2]bool{true, true}, At: end}.Step()
	if err := coreOf(t, s).eng.write(ctx, "rating again", false, func(t *tx) error {
		return step(&ratingTx{t: t, id: g.ID})
	}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []*Account{amina, baraka} {
		if got, _ := ratingOf(t, s, who, cat); got.Games != 1 {
			t.Errorf("%s: %d games after the end was replayed, want 1", who.Name, got.Games)
		}
		if h, err := s.RatingHistory(ctx, who.ID, cat, 10); err != nil || len(h) != 1 || h[0].GameID != g.ID {
			t.Errorf("%s's history %+v, %v", who.Name, h, err)
		}
	}

	// Every way to end a game rates it but an abort; the ratings go on
	// from where they were.
	for i, tc := range []struct {
		end, result string
		rated       bool
	}{
		{"agreed", "1/2-1/2", true},
		{"timeout", "1-0", true},
		{"expired", "0-1", true},
		{"", "1-0", true}, // by the rules, on a move
		{"aborted", "*", false},
	} {
		before, _ := ratingOf(t, s, amina, cat)
		g := newPairing(t, s, amina, baraka, true, false)
		if err := endGame(s, g, 1, tc.end, tc.result, now()); err != nil {
			t.Fatal(err)
		}
		after, _ := ratingOf(t, s, amina, cat)
		if got := after.Games - before.Games; got != map[bool]int{true: 1}[tc.rated] {
			t.Errorf("case %d (%s %s): %d games rated, want rated %t", i, tc.end, tc.result, got, tc.rated)
		}
	}
	// A correspondence game is another category.
	gc := newPairing(t, s, amina, baraka, true, false)
	o = *gc.Online
	o.Clock = game.Clock{Time: 72 * time.Hour, PerMove: true}
	if err := s.Update(ctx, gc.ID, game.Change{Rev: 1, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	// (The category is the game's from its making: 8-blitz still.)
	if gr, _ := s.GameRatings(ctx, gc.ID); gr.Category != cat {
		t.Errorf("category %q after a change of clock, want %s", gr.Category, cat)
	}
}

// A game is rated only between two accounts, neither deleted nor the
// same, and only if asked; otherwise it ends casual, whatever was asked.
func TestCasualGames(t *testing.T) { forEachStore(t, testCasualGames) }

func testCasualGames(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	amina, baraka, chausiku := newAccount(t, s, "amina"), newAccount(t, s, "baraka"), newAccount(t, s, "chausiku")
	deleted := newPairing(t, s, amina, chausiku, true, false)
	if err := s.AnonymiseAccount(ctx, chausiku.ID); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*game.Game{
		"casual":         newPairing(t, s, amina, baraka, false, false),
		"a guest's seat": newPairing(t, s, amina, nil, true, false),
		"oneself":        newPairing(t, s, amina, amina, true, false),
		"deleted":        deleted,
	} {
		if err := endGame(s, g, 1, "resign", "1-0", now()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, _ := s.Game(ctx, g.ID); got.Rated {
			t.Errorf("%s: the game stays rated", name)
		}
		if gr, err := s.GameRatings(ctx, g.ID); err != nil || gr.Rated || gr.Seats[0].Change != nil {
			t.Errorf("%s: %+v, %v", name, gr, err)
		}
	}
	if list, err := s.PlayerRatings(ctx, amina.ID); err != nil || len(list) != 0 {
		t.Errorf("ratings after casual games only: %+v, %v", list, err)
	}
}

// Of ends racing for one game, on two programs sharing the database, one
// ends it and rates it once; games ending together with a player in
// common each count, none lost to another.
func TestRatedEndsRace(t *testing.T) { forEachStore(t, testRatedEndsRace) }

func testRatedEndsRace(t *testing.T, open func() Store) {
	ctx := context.Background()
	s1, s2 := open(), open()
	const cat = "8-blitz"
	hub := newAccount(t, s1, "hub")
	const n = 6
	others := make([]*Account, n)
	games := make([]*game.Game, n)
	for i := range others {
		others[i] = newAccount(t, s1, fmt.Sprintf("player%d", i))
		games[i] = newPairing(t, s1, hub, others[i], true, false)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i, g := range games {
		for j, end := range []struct{ end, result string }{{"resign", "1-0"}, {"resign", "0-1"}, {"agreed", "1/2-1/2"}, {"timeout", "0-1"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := []Store{s1, s2}[(i+j)%2]
				err := endGame(s, g, 1, end.end, end.result, now())
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, ErrConflict):
					t.Errorf("game %d, end %d: %v", i, j, err)
				}
			}()
		}
	}
	wg.Wait()
	if wins.Load() != n {
		t.Errorf("%d ends succeeded, want one a game (%d)", wins.Load(), n)
	}
	got, ok := ratingOf(t, s2, hub, cat)
	if !ok || got.Games != n {
		t.Errorf("the player in every game: %+v, want %d games", got, n)
	}
	h, err := s2.RatingHistory(ctx, hub.ID, cat, 100)
	if err != nil || len(h) != n {
		t.Fatalf("history %d, %v; want %d changes", len(h), err, n)
	}
	// Each change starts where another left off, from a new player's
	// rating on: the changes, in the order they committed, make one
	// chain, none lost to another.
	// (A draw between equals changes no rating: such a change is taken
	// first where another starts from the same rating.)
	from := map[float64][]game.RatingChange{}
	for _, ch := range h {
		from[ch.Before.Rating] = append(from[ch.Before.Rating], ch)
	}
	r, chained := ratings.Params().InitialRating, 0
	for len(from[r]) > 0 {
		list := from[r]
		i := slices.IndexFunc(list, func(ch game.RatingChange) bool { return ch.After.Rating == r })
		i = max(i, 0)
		ch := list[i]
		from[r] = slices.Delete(list, i, i+1)
		r, chained = ch.After.Rating, chained+1
	}
	if chained != n || r != got.Rating.Rating {
		t.Errorf("%d of %d changes chain from a new player's rating, to %.3f; the rating is %.3f", chained, n, r, got.Rating.Rating)
	}
	for i, o := range others {
		if got, _ := ratingOf(t, s1, o, cat); got.Games != 1 {
			t.Errorf("player %d: %d games, want 1", i, got.Games)
		}
	}
}

// The profile's reads: a player's games by result, side, category and
// opponent, page by page; results by side; leaderboards of the active and
// established; the fit's games and the advantages stored.
func TestRatingReads(t *testing.T) { forEachStore(t, testRatingReads) }

func testRatingReads(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	amina, baraka, chausiku := newAccount(t, s, "amina"), newAccount(t, s, "baraka"), newAccount(t, s, "chausiku")
	const cat = "8-blitz"
	// amina wins as South against baraka, loses as North to chausiku,
	// draws as South with chausiku; one casual win as North; one game
	// going on.
	var ids []string
	for _, p := range []struct {
		s, n   *Account
		rated  bool
		result string
	}{
		{amina, baraka, true, "1-0"},
		{chausiku, amina, true, "1-0"},
		{amina, chausiku, true, "1/2-1/2"},
		{baraka, amina, false, "0-1"},
		{amina, baraka, true, "*"},
	} {
		g := newPairing(t, s, p.s, p.n, p.rated, false)
		ids = append(ids, g.ID)
		if p.result != "*" {
			if err := endGame(s, g, 1, "resign", p.result, now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := s.PlayerGames(ctx, amina.ID, PlayerGamesFilter{Limit: 10})
	if err != nil || len(all) != 5 {
		t.Fatalf("all games: %d, %v", len(all), err)
	}
	if all[4].ID != ids[0] || all[4].Side != rules.South || all[4].Opponent == nil || all[4].Opponent.ID != baraka.ID ||
		!all[4].Rated || all[4].Change == nil || all[4].Change.After.Rating <= 1500 || all[4].OpponentRating == nil ||
		all[4].OpponentRating.Rating != 1500 || all[4].Category != cat {
		t.Errorf("the first game: %+v (change %+v)", all[4], all[4].Change)
	}
	for _, tc := range []struct {
		f    PlayerGamesFilter
		want []int // indexes of ids
	}{
		{PlayerGamesFilter{Result: "win"}, []int{3, 0}},
		{PlayerGamesFilter{Result: "loss"}, []int{1}},
		{PlayerGamesFilter{Result: "draw"}, []int{2}},
		{PlayerGamesFilter{Side: "n"}, []int{3, 1}},
		{PlayerGamesFilter{Side: "s", Result: "win"}, []int{0}},
		{PlayerGamesFilter{OpponentID: chausiku.ID}, []int{2, 1}},
		{PlayerGamesFilter{Category: "6-blitz"}, nil},
		{PlayerGamesFilter{Category: cat, Result: "draw"}, []int{2}},
	} {
		tc.f.Limit = 10
		got, err := s.PlayerGames(ctx, amina.ID, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs, want []string
		for _, g := range got {
			gotIDs = append(gotIDs, g.ID)
		}
		for _, i := range tc.want {
			want = append(want, ids[i])
		}
		if fmt.Sprint(gotIDs) != fmt.Sprint(want) {
			t.Errorf("%+v: %v, want %v", tc.f, gotIDs, want)
		}
	}
	// Page by page, two at a time, the same games in the same order.
	var paged []string
	f := PlayerGamesFilter{Limit: 2}
	for range 10 {
		page, err := s.PlayerGames(ctx, amina.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page {
			paged = append(paged, g.ID)
		}
		if len(page) < 2 {
			break
		}
		f.Before = GameCursor{Created: page[1].Created, ID: page[1].ID}
	}
	var whole []string
	for _, g := range all {
		whole = append(whole, g.ID)
	}
	if fmt.Sprint(paged) != fmt.Sprint(whole) {
		t.Errorf("paged %v, whole %v", paged, whole)
	}
	rec, err := s.SideRecords(ctx, amina.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec != [2]Record{{Wins: 1, Draws: 1}, {Wins: 1, Losses: 1}} {
		t.Errorf("by side %+v", rec)
	}

	// The leaderboard shows the established and active only.
	board := func(at time.Time) []string {
		t.Helper()
		list, err := s.Leaderboard(ctx, cat, at, at.Add(-30*24*time.Hour), 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range list {
			names = append(names, e.Name)
		}
		return names
	}
	if got := board(now()); len(got) != 0 {
		t.Errorf("leaderboard of provisional players: %v", got)
	}
	// Established ratings, as many games would make them.
	c := coreOf(t, s)
	at := now()
	for _, r := range []struct {
		who    *Account
		rating float64
		rd     float64
	}{{amina, 1700, 60}, {baraka, 1800, 108}, {chausiku, 1600, 120}} {
		pr := game.Rating{Rating: r.rating, Deviation: r.rd, Volatility: 0.06, At: at}
		if err := c.eng.write(ctx, "test", false, func(t *tx) error {
			_, err := t.exec(`UPDATE ratings SET rating = ?, rd = ?, updated = ?, provisional_from = ?
				WHERE account_id = ? AND category = ?`, pr.Rating, pr.Deviation, at, ratings.Params().ProvisionalFrom(pr), r.who.ID, cat)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got := board(at); fmt.Sprint(got) != "[baraka amina]" {
		t.Errorf("leaderboard %v, want baraka and amina (chausiku is provisional)", got)
	}
	// Some weeks on, baraka's RD has grown past the bound; 40 days on,
	// nobody has played in the last 30.
	if got := board(at.Add(20 * 24 * time.Hour)); fmt.Sprint(got) != "[amina]" {
		t.Errorf("leaderboard 20 days on %v, want amina alone", got)
	}
	if got := board(at.Add(40 * 24 * time.Hour)); len(got) != 0 {
		t.Errorf("leaderboard 40 days on %v, want none", got)
	}
	if err := s.AnonymiseAccount(ctx, amina.ID); err != nil {
		t.Fatal(err)
	}
	if got := board(at); fmt.Sprint(got) != "[baraka]" {
		t.Errorf("leaderboard after amina's deletion %v", got)
	}

	// The fit's games: the first mover's side first.
	sg, err := s.AdvantageGames(ctx, cat, 100)
	if err != nil || len(sg) != 3 {
		t.Fatalf("advantage games %+v, %v", sg, err)
	}
	var scores float64
	for _, g := range sg {
		scores += g.Score
		if g.First.Deviation <= 0 || g.Second.Deviation <= 0 {
			t.Errorf("game %+v", g)
		}
	}
	if scores != 2.5 {
		t.Errorf("the first movers scored %v, want 2.5", scores)
	}
	if cats, err := s.RatedCategories(ctx); err != nil || fmt.Sprint(cats) != "["+cat+"]" {
		t.Errorf("categories %v, %v", cats, err)
	}
	if err := s.SetAdvantage(ctx, cat, Advantage{Advantage: 12.5, StdErr: 3, Games: 3, Updated: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAdvantage(ctx, cat, Advantage{Advantage: 13.5, StdErr: 3, Games: 4, Updated: at}); err != nil {
		t.Fatal(err)
	}
	if adv, err := s.Advantages(ctx); err != nil || adv[cat].Advantage != 13.5 || adv[cat].Games != 4 || !adv[cat].Updated.Equal(at) {
		t.Errorf("advantages %+v, %v", adv, err)
	}
	if m, err := s.RatingsOf(ctx, cat, []string{baraka.ID, chausiku.ID, "nobody"}); err != nil || len(m) != 2 || m[baraka.ID].Rating != 1800 {
		t.Errorf("ratings of %+v, %v", m, err)
	}
}

// A copy of a store holds its ratings, their history and the advantages
// as they are, from SQLite to PostgreSQL and back.
func TestCopyRatings(t *testing.T) {
	ctx := context.Background()
	src := open(t, t.TempDir()+"/src.db")
	defer src.Close()
	amina, baraka := newAccount(t, src, "amina"), newAccount(t, src, "baraka")
	for i, result := range []string{"1-0", "1/2-1/2", "0-1"} {
		g := newPairing(t, src, amina, baraka, true, i == 1)
		if err := endGame(src, g, 1, "resign", result, now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.SetAdvantage(ctx, "8-blitz", Advantage{Advantage: 21.5, StdErr: 9, Games: 3, Updated: now()}); err != nil {
		t.Fatal(err)
	}
	pg := openPostgres(t, newPostgresDB(t))
	back := open(t, t.TempDir()+"/back.db")
	defer back.Close()
	for _, hop := range []struct{ dst, src Store }{{pg, src}, {back, pg}} {
		rep, err := Copy(ctx, hop.dst, hop.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ratings != 2 || rep.RatingChanges != 6 {
			t.Errorf("copied %d ratings and %d changes, want 2 and 6", rep.Ratings, rep.RatingChanges)
		}
	}
	want, err := src.ratingRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.ratingRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffRatings(want, got); d != "" || len(got.History) != 6 {
		t.Errorf("after two copies: %s (%d changes)", d, len(got.History))
	}
	if h, err := back.RatingHistory(ctx, amina.ID, "8-blitz", 10); err != nil || len(h) != 3 {
		t.Errorf("history in the copy: %d, %v", len(h), err)
	}
}

// Model: whatever games end, in whatever order and category, each stored
// rating is what rating.Params.RateWeighted gives from the ratings before
// each game, with the category's advantage and the weight of the pair's
// games that day (ratings.Weight), and the history holds each change
// once.
func TestRatingsFollowTheModel(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir()+"/games.db")
	defer s.Close()
	p := ratings.Params()
	iteration := 0
	rapid.Check(t, func(rt *rapid.T) {
		iteration++
		players := make([]*Account, 3)
		for i := range players {
			players[i] = newAccount(t, s, fmt.Sprintf("m%dp%d", iteration, i))
		}
		adv := rapid.Float64Range(-60, 60).Draw(rt, "advantage")
		if err := s.SetAdvantage(ctx, "8-blitz", Advantage{Advantage: adv, Updated: now()}); err != nil {
			rt.Fatal(err)
		}
		model := map[string]game.Rating{}
		games := map[string]int{}
		pairs := map[[2]string]int{}
		n := rapid.IntRange(1, 8).Draw(rt, "games")
		for range n {
			si := rapid.IntRange(0, len(players)-1).Draw(rt, "south")
			ni := (si + rapid.IntRange(1, len(players)-1).Draw(rt, "north")) % len(players)
			south, north := players[si], players[ni]
			northFirst := rapid.Bool().Draw(rt, "north first")
			result := rapid.SampledFrom([]string{"1-0", "0-1", "1/2-1/2"}).Draw(rt, "result")
			g := newPairing(t, s, south, north, true, northFirst)
			at := now()
			if err := endGame(s, g, 1, "resign", result, at); err != nil {
				rt.Fatal(err)
			}
			// The model.
			cur := func(a *Account) game.Rating {
				if r, ok := model[a.ID]; ok {
					return r
				}
				r := p.Initial()
				r.At = at
				return r
			}
			rs, rn := cur(south), cur(north)
			when := at
			for _, r := range []game.Rating{rs, rn} {
				if r.At.After(when) {
					when = r.At
				}
			}
			// The pair's games so far today weigh this one.
			pair := [2]string{min(south.ID, north.ID), max(south.ID, north.ID)}
			weight := ratings.Weight(pairs[pair] + 1)
			if weight == 0 {
				continue
			}
			pairs[pair]++
			score := map[string]float64{"1-0": 1, "0-1": 0, "1/2-1/2": 0.5}[result]
			var err error
			if northFirst {
				rn, rs, err = p.RateWeighted(rn, rs, 1-score, adv, weight, when)
			} else {
				rs, rn, err = p.RateWeighted(rs, rn, score, adv, weight, when)
			}
			if err != nil {
				rt.Fatal(err)
			}
			model[south.ID], model[north.ID] = rs, rn
			games[south.ID]++
			games[north.ID]++
		}
		for _, a := range players {
			got, ok := ratingOf(t, s, a, "8-blitz")
			want, played := model[a.ID]
			if ok != played {
				rt.Fatalf("%s: rated %t, played %t", a.Name, ok, played)
			}
			if !played {
				continue
			}
			if got.Games != games[a.ID] || math.Abs(got.Rating.Rating-want.Rating) > 1e-9 ||
				math.Abs(got.Deviation-want.Deviation) > 1e-9 || math.Abs(got.Volatility-want.Volatility) > 1e-12 ||
				!got.At.Equal(want.At) {
				rt.Fatalf("%s: stored %+v after %d games, the model %+v after %d", a.Name, got, got.Games, want, games[a.ID])
			}
			if h, err := s.RatingHistory(ctx, a.ID, "8-blitz", 100); err != nil || len(h) != games[a.ID] {
				rt.Fatalf("%s: %d changes, %v; want %d", a.Name, len(h), err, games[a.ID])
			}
		}
	})
}
