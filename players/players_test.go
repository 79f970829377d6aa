package players

import (
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
)

// A seat's account is shown by its name and rating, a deleted one as a
// deleted player, and a seat no account holds by the game's name alone.
func TestSeatPlayer(t *testing.T) {
	if deleted != account.Deleted {
		t.Fatalf("a deleted seat's status %q, the accounts' %q", deleted, account.Deleted)
	}
	now := time.Now()
	if p := SeatPlayer(game.GameSeat{}, "Naserian", now); p.Name != "Naserian" || p.Rating != nil {
		t.Errorf("a guest's seat: %+v", p)
	}
	p := SeatPlayer(game.GameSeat{Account: &game.SeatAccount{ID: "a", Name: "Amina"}}, "Amina", now)
	if p.Name != "Amina" || p.Rating == nil || !p.Provisional {
		t.Errorf("a new player's seat: %+v", p)
	}
	gone := SeatPlayer(game.GameSeat{Account: &game.SeatAccount{ID: "b", Status: account.Deleted}}, "Baraka", now)
	if gone.Name != game.DeletedPlayer {
		t.Errorf("a deleted account's seat: %+v", gone)
	}
	// A game between guests shows no players; one with an account does.
	var st play.State
	st.Info.South, st.Info.North = "Naserian", "Sironka"
	if v := OfGame(&st, now); v.Rated != nil || v.Players != nil || v.RatingChange != nil {
		t.Errorf("a game between guests: %+v", v)
	}
	st.Ratings = &game.GameRatings{}
	st.Ratings.Seats[0].Account = &game.SeatAccount{ID: "a", Name: "Amina"}
	if v := OfGame(&st, now); v.Rated == nil || *v.Rated || v.Players == nil || v.Players.South.Name != "Amina" || v.Players.North.Name != "Sironka" {
		t.Errorf("a casual game with an account: %+v", v)
	}
}
