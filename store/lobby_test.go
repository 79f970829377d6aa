package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// lobbyAccount stores an account named name.
func lobbyAccount(t *testing.T, s Store, name string) *Account {
	t.Helper()
	a := &Account{Name: name, Key: name}
	if err := s.CreateAccount(context.Background(), a, nil, nil); err != nil {
		t.Fatal(err)
	}
	return a
}

// pairedGame is a new online game with both seats taken, between a and b.
func pairedGame(a, b *Account) *game.Game {
	start, _ := rules.NewPosition(4, 2)
	return &game.Game{South: a.Name, North: b.Name, Start: start, Result: "*", Online: &game.Online{Invite: newID(),
		Seats: [2]string{"seat-" + newID(), "seat-" + newID()}, Clock: game.Clock{Time: time.Minute}}}
}

// Seeks: at most maxOpen open a account, one place a pool, kept with their
// owner's name and kind; touched and expired by the time their owner was
// last seen, correspondence ones never; removed by their owner only.
func TestLobbySeeks(t *testing.T) { forEachStore(t, testLobbySeeks) }

func testLobbySeeks(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	amina := lobbyAccount(t, s, "amina")
	bot := &Account{Name: "kibot", Key: "kibot"}
	if err := s.CreateBot(ctx, bot, "hash-1"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.BotAccount(ctx, "hash-1"); err != nil || got.ID != bot.ID || got.Kind != AccountBot {
		t.Fatalf("BotAccount: %+v, %v", got, err)
	}
	if _, err := s.BotAccount(ctx, "hash-2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown bot token: %v", err)
	}
	if got, err := s.AccountByKey(ctx, "amina"); err != nil || got.Kind != "" {
		t.Errorf("a person's account: %+v, %v", got, err)
	}
	add := func(owner *Account, pool string, clock game.Clock) (*seek.Seek, error) {
		sk := &seek.Seek{ID: newID(), Owner: seek.Player{ID: owner.ID}, Pool: pool, Holes: 8, Seeds: 4, Clock: clock, Rated: true,
			MinRating: 1200, Created: now()}
		return sk, s.AddSeek(ctx, sk, 2, "")
	}
	blitz, corr := game.Clock{Time: 3 * time.Minute, Increment: 2 * time.Second}, game.Clock{Time: 72 * time.Hour, PerMove: true}
	s1, err := add(amina, "", blitz)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := add(amina, "", corr); err != nil {
		t.Fatal(err)
	}
	if _, err := add(amina, "", blitz); !errors.Is(err, ErrLimit) || !errors.Is(err, ErrConflict) {
		t.Errorf("a third seek over a limit of 2: %v, want ErrLimit", err)
	}
	// Pool places do not count as seeks; one place a pool.
	if _, err := add(amina, "8-3+2", blitz); err != nil {
		t.Fatal(err)
	}
	if _, err := add(amina, "8-3+2", blitz); !errors.Is(err, ErrExists) {
		t.Errorf("a second place in one pool: %v, want ErrExists", err)
	}
	b1, err := add(bot, "", blitz)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Seeks(ctx)
	if err != nil || len(all) != 4 {
		t.Fatalf("Seeks: %d, %v", len(all), err)
	}
	got, err := s.Seek(ctx, s1.ID)
	if err != nil || got.Owner.Name != "amina" || got.Owner.Bot || got.Clock != blitz || !got.Rated || got.MinRating != 1200 ||
		!got.Created.Equal(s1.Created) || got.Holes != 8 {
		t.Errorf("Seek: %+v, %v; want %+v", got, err, s1)
	}
	if got, _ := s.Seek(ctx, b1.ID); got == nil || !got.Owner.Bot || got.Owner.Name != "kibot" {
		t.Errorf("a bot's seek: %+v", got)
	}
	if err := s.DeleteSeek(ctx, s1.ID, bot.ID, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("another's seek removed: %v", err)
	}
	// Amina stays in the lobby, the bot leaves: its real-time seek goes,
	// her correspondence seek never.
	later := now().Add(time.Minute)
	if err := s.TouchLobby(ctx, []string{amina.ID}, later); err != nil {
		t.Fatal(err)
	}
	gone, err := s.ExpireSeeks(ctx, later)
	if err != nil || len(gone) != 1 || gone[0].ID != b1.ID {
		t.Fatalf("expired %+v, %v; want the bot's seek", gone, err)
	}
	gone, err = s.ExpireSeeks(ctx, later.Add(time.Hour))
	if err != nil || len(gone) != 2 {
		t.Fatalf("expired %d, %v; want Amina's real-time seek and place", len(gone), err)
	}
	left, err := s.Seeks(ctx)
	if err != nil || len(left) != 1 || !left[0].Clock.PerMove {
		t.Fatalf("left %+v, %v; want the correspondence seek", left, err)
	}
	if err := s.DeleteSeek(ctx, left[0].ID, amina.ID, ""); err != nil {
		t.Fatal(err)
	}
	// Reopened, the store has what it had.
	if all, _ := open().Seeks(ctx); len(all) != 0 {
		t.Errorf("after removal: %+v", all)
	}
}

// Challenges: counted for each target and sender, refused between players
// who block each other, listed each way, expired.
func TestLobbyChallengesAndBlocks(t *testing.T) { forEachStore(t, testLobbyChallenges) }

func testLobbyChallenges(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	a, b, c := lobbyAccount(t, s, "amina"), lobbyAccount(t, s, "baraka"), lobbyAccount(t, s, "cheku")
	at := now()
	made := 0
	challenge := func(from, to *Account, life time.Duration) (*seek.Challenge, error) {
		made++ // one a millisecond, in order
		created := at.Add(time.Duration(made) * time.Millisecond)
		ch := &seek.Challenge{From: seek.Player{ID: from.ID}, To: seek.Player{ID: to.ID}, Holes: 6, Seeds: 4,
			Clock: game.Clock{Time: 5 * time.Minute}, Side: "random", Created: created, Expires: created.Add(life)}
		return ch, s.AddChallenge(ctx, ch, seek.ChallengeLimits{Incoming: 2, Outgoing: 1, ToOne: 1}, "")
	}
	ab, err := challenge(a, b, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := challenge(a, c, time.Hour); !errors.Is(err, ErrLimit) {
		t.Errorf("a second outgoing challenge over a limit of 1: %v", err)
	}
	if _, err := challenge(c, b, time.Second); err != nil {
		t.Fatal(err)
	}
	in, out, err := s.LobbyChallenges(ctx, b.ID)
	if err != nil || len(in) != 2 || len(out) != 0 || in[0].ID != ab.ID || in[0].From.Name != "amina" || in[0].To.Name != "baraka" {
		t.Fatalf("Baraka's challenges: %+v %+v %v", in, out, err)
	}
	// Baraka blocks Cheku: Cheku's challenge to him goes, and is told.
	var told []seek.Challenge
	notice := func(list []seek.Challenge) string { told = list; return "" }
	blocked, err := s.Block(ctx, b.ID, c.ID, 1, notice)
	if err != nil || len(blocked) != 1 || blocked[0].From.ID != c.ID || blocked[0].To.ID != b.ID || len(told) != 1 {
		t.Fatalf("block: %+v, told %+v, %v", blocked, told, err)
	}
	if _, err := s.Block(ctx, b.ID, a.ID, 1, notice); !errors.Is(err, ErrLimit) {
		t.Errorf("a second block over a limit of 1: %v", err)
	}
	if _, err := s.Block(ctx, b.ID, c.ID, 1, notice); err != nil {
		t.Errorf("a block again: %v", err)
	}
	if with, err := s.BlockedWith(ctx, c.ID); err != nil || len(with) != 1 || with[0] != b.ID {
		t.Errorf("BlockedWith: %v, %v", with, err)
	}
	for _, pair := range [][2]*Account{{b, c}, {c, b}} {
		if blocked, err := s.Blocked(ctx, pair[0].ID, pair[1].ID); err != nil || !blocked {
			t.Errorf("Blocked(%s, %s): %v, %v", pair[0].Name, pair[1].Name, blocked, err)
		}
	}
	if _, err := challenge(b, c, time.Hour); !errors.Is(err, ErrBlocked) {
		t.Errorf("a challenge to a player one blocks: %v, want ErrBlocked", err)
	}
	if list, err := s.Blocks(ctx, b.ID); err != nil || len(list) != 1 || list[0].Name != "cheku" {
		t.Errorf("Blocks: %+v, %v", list, err)
	}
	if _, err := challenge(c, a, time.Second); err != nil {
		t.Fatal(err)
	}
	gone, err := s.ExpireChallenges(ctx, at.Add(time.Minute))
	if err != nil || len(gone) != 1 || gone[0].From.ID != c.ID {
		t.Fatalf("expired %+v, %v", gone, err)
	}
	if err := s.Unblock(ctx, b.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Unblock(ctx, b.ID, c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("unblocking twice: %v", err)
	}
	if err := s.DeleteChallenge(ctx, ab.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteChallenge(ctx, ab.ID, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("a challenge removed twice: %v", err)
	}
	g := pairedGame(a, b)
	if err := s.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	r := &seek.Report{GameID: g.ID, By: seek.Player{ID: a.ID}, Reason: "abuse", Text: "rude"}
	if err := s.AddReport(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.AddReport(ctx, &seek.Report{GameID: g.ID, By: seek.Player{ID: a.ID}, Reason: "other"}); !errors.Is(err, ErrExists) {
		t.Errorf("a second report: %v", err)
	}
	if err := s.AddReport(ctx, &seek.Report{GameID: "0123456789abcdef", By: seek.Player{ID: a.ID}, Reason: "other"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a report of no game: %v", err)
	}
	reps, err := open().Reports(ctx, 10)
	if err != nil || len(reps) != 1 || reps[0].By.Name != "amina" || reps[0].Text != "rude" || reps[0].GameID != g.ID {
		t.Errorf("Reports: %+v, %v", reps, err)
	}
}

// Many players accept one seek at once, on one store or (PostgreSQL) on
// two opened together: one game is made, with both seats owned, and the
// others are ErrConflict.
func TestLobbyPairOnce(t *testing.T) { forEachStore(t, testLobbyPairOnce) }

func testLobbyPairOnce(t *testing.T, open func() Store) {
	ctx := context.Background()
	stores := []Store{open(), open()}
	seeker := lobbyAccount(t, stores[0], "seeker")
	sk := &seek.Seek{ID: newID(), Owner: seek.Player{ID: seeker.ID}, Holes: 4, Seeds: 2, Clock: game.Clock{Time: time.Minute}, Created: now()}
	if err := stores[0].AddSeek(ctx, sk, 3, ""); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var takers []*Account
	for i := range n {
		takers = append(takers, lobbyAccount(t, stores[0], fmt.Sprintf("taker%d", i)))
	}
	games := make([]*game.Game, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			g := pairedGame(seeker, takers[i])
			games[i] = g
			errs[i] = stores[i%2].Pair(ctx, &seek.Pairing{Game: g, Owners: [2]string{seeker.ID, takers[i].ID}, Seeks: []string{sk.ID}})
		})
	}
	close(start)
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("pairings %d and %d both made a game", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, ErrConflict):
			t.Errorf("pairing %d: %v, want ErrConflict", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no pairing made a game")
	}
	ids, err := stores[1].GameIDs(ctx)
	if err != nil || len(ids) != 1 || ids[0] != games[won].ID {
		t.Fatalf("games %v, %v; want the one of pairing %d", ids, err, won)
	}
	g := games[won]
	owners, err := stores[1].SeatOwners(ctx, []string{g.Online.Seats[0], g.Online.Seats[1], "nobody's"})
	if err != nil || len(owners) != 2 || owners[g.Online.Seats[0]] != seeker.ID || owners[g.Online.Seats[1]] != takers[won].ID {
		t.Errorf("seat owners %v, %v", owners, err)
	}
	if all, _ := stores[1].Seeks(ctx); len(all) != 0 {
		t.Errorf("the seek is still there: %+v", all)
	}
	// Players who block each other are not paired.
	a, b := takers[0], takers[1]
	if _, err := stores[0].Block(ctx, b.ID, a.ID, 10, nil); err != nil {
		t.Fatal(err)
	}
	if err := stores[1].Pair(ctx, &seek.Pairing{Game: pairedGame(a, b), Owners: [2]string{a.ID, b.ID}}); !errors.Is(err, ErrBlocked) {
		t.Errorf("a pairing of blocked players: %v", err)
	}
	if err := stores[1].Pair(ctx, &seek.Pairing{Game: pairedGame(a, a), Owners: [2]string{a.ID, a.ID}}); !errors.Is(err, ErrConflict) {
		t.Errorf("a pairing of a player with itself: %v", err)
	}
}

// What an account has open in the lobby is withdrawn at once, and told;
// a player's incoming challenges are declined at once; the limits count
// only what a player may see and answer; the lobby lists the bots and
// the people present; the accounts no longer active that have something
// open are found.
func TestLobbyWithdraw(t *testing.T) { forEachStore(t, testLobbyWithdraw) }

func testLobbyWithdraw(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	a, b, c, d := lobbyAccount(t, s, "amina"), lobbyAccount(t, s, "baraka"), lobbyAccount(t, s, "cheku"), lobbyAccount(t, s, "dalila")
	bot := &Account{Name: "kibot", Key: "kibot"}
	if err := s.CreateBot(ctx, bot, "hash-1"); err != nil {
		t.Fatal(err)
	}
	at := now()
	limits := seek.ChallengeLimits{Incoming: 2, Outgoing: 5, ToOne: 1}
	challenge := func(from, to *Account) (*seek.Challenge, error) {
		ch := &seek.Challenge{ID: newID(), From: seek.Player{ID: from.ID}, To: seek.Player{ID: to.ID, Name: to.Name}, Holes: 6,
			Seeds: 4, Clock: game.Clock{Time: 5 * time.Minute}, Side: "random", Created: at, Expires: at.Add(time.Hour)}
		return ch, s.AddChallenge(ctx, ch, limits, "")
	}
	for _, pair := range [][2]*Account{{a, b}, {c, a}, {c, b}, {d, c}} {
		if _, err := challenge(pair[0], pair[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := challenge(a, b); !errors.Is(err, ErrLimit) {
		t.Errorf("a second challenge to one player over a limit of 1: %v", err)
	}
	if _, err := challenge(d, b); !errors.Is(err, ErrLimit) {
		t.Errorf("a third challenge to a player with two waiting: %v", err)
	}
	for i, pool := range []string{"", "", "8-3+2"} {
		clock := game.Clock{Time: 3 * time.Minute}
		if i == 1 {
			clock = game.Clock{Time: 72 * time.Hour, PerMove: true}
		}
		if err := s.AddSeek(ctx, &seek.Seek{ID: newID(), Owner: seek.Player{ID: a.ID}, Pool: pool, Holes: 8, Seeds: 4,
			Clock: clock, Created: at}, 3, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Block(ctx, a.ID, d.ID, 10, nil); err != nil {
		t.Fatal(err)
	}
	// Present: Amina and Cheku; Dalila long ago.
	if err := s.TouchLobby(ctx, []string{a.ID, c.ID, bot.ID}, at); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchLobby(ctx, []string{d.ID}, at.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	present, err := s.LobbyPlayers(ctx, at.Add(-time.Minute), 10)
	if err != nil || fmt.Sprint(present) != fmt.Sprintf("[{{%s kibot true} true} {{%s amina false} true} {{%s cheku false} true}]", bot.ID, a.ID, c.ID) {
		t.Errorf("LobbyPlayers: %v, %v", present, err)
	}
	if err := s.ForgetPresence(ctx, at.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if present, err := s.LobbyPlayers(ctx, at.Add(-2*time.Hour), 10); err != nil || len(present) != 3 {
		t.Errorf("LobbyPlayers after forgetting who left an hour ago: %v, %v", present, err)
	}

	// Disabled from another program: Amina's rows stay, are found, and
	// Baraka's count no longer holds Cheku's challenge... of hers.
	if err := s.DisableAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if list, err := s.InactiveInLobby(ctx); err != nil || fmt.Sprint(list) != "["+a.ID+"]" {
		t.Errorf("InactiveInLobby: %v, %v", list, err)
	}
	if _, err := challenge(d, b); err != nil {
		t.Errorf("a challenge beside a disabled account's: %v", err)
	}
	var told seek.Withdrawn
	w, err := s.Withdraw(ctx, a.ID, true, func(w seek.Withdrawn) string { told = w; return "" })
	if err != nil || len(w.Seeks) != 3 || len(w.Challenges) != 2 || len(told.Seeks) != 3 {
		t.Fatalf("Withdraw: %+v, %v", w, err)
	}
	for _, ch := range w.Challenges {
		if ch.From.ID != a.ID && ch.To.ID != a.ID {
			t.Errorf("withdrew %+v", ch)
		}
	}
	if all, _ := s.Seeks(ctx); len(all) != 0 {
		t.Errorf("seeks left: %+v", all)
	}
	if list, _ := s.InactiveInLobby(ctx); len(list) != 0 {
		t.Errorf("InactiveInLobby after the withdrawal: %v", list)
	}
	if with, _ := s.BlockedWith(ctx, d.ID); len(with) != 0 {
		t.Errorf("Dalila's blocks after Amina's withdrawal: %v", with)
	}
	if w, err := s.Withdraw(ctx, a.ID, true, nil); err != nil || len(w.Seeks)+len(w.Challenges) != 0 {
		t.Errorf("a second withdrawal: %+v, %v", w, err)
	}
	// Baraka declines all: Cheku's and Dalila's.
	declined, err := s.DeleteChallengesTo(ctx, b.ID, func(list []seek.Challenge) string { return "" })
	if err != nil || len(declined) != 2 {
		t.Fatalf("DeleteChallengesTo: %+v, %v", declined, err)
	}
	if in, _, err := s.LobbyChallenges(ctx, b.ID); err != nil || len(in) != 0 {
		t.Errorf("Baraka's challenges after declining all: %+v, %v", in, err)
	}
	if in, _, _ := s.LobbyChallenges(ctx, c.ID); len(in) != 1 {
		t.Errorf("Cheku's: %+v", in)
	}
	if p, err := s.LobbyPlayer(ctx, "cheku"); err != nil || p.ID != c.ID || p.Name != "cheku" || p.Bot {
		t.Errorf("LobbyPlayer: %+v, %v", p, err)
	}
	for _, key := range []string{"amina", "nobody"} {
		if _, err := s.LobbyPlayer(ctx, key); !errors.Is(err, ErrNotFound) {
			t.Errorf("LobbyPlayer(%s): %v", key, err)
		}
	}
}
