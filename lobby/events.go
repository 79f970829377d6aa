package lobby

// Event is something the lobby tells its players' connections, on every
// instance: one message to the connections of account To, or to all of
// them when To is "". Kind names it:
//
//   - "seek": Seek was posted. Its owner's connections see it as theirs;
//     the connections of a player who blocks its owner, or whom its owner
//     blocks, do not see it.
//   - "unseek": seek ID has gone.
//   - "pools": the places in the pools have changed; each connection is
//     sent the pools as its account sees them (PoolsFor).
//   - "paired": game Game was made for To, who plays Side ("s" or "n").
//   - "challenge": Challenge was sent; told to its two players.
//   - "challenge-gone": challenge ID has gone, Why: "accepted",
//     "declined" (with the decline's Reason), "cancelled", "expired" or
//     "withdrawn" (its sender or target left the lobby: signed out
//     everywhere, disabled, deleted, or blocked the other).
//   - "hide" and "show": To's connections stop seeing, or see again,
//     what account Account posts (a block made or lifted).
//   - "players": the players the lobby lists have changed to Players;
//     each connection is sent those its account may see (Visible). Each
//     instance reads them itself: this event is never in a notice.
type Event struct {
	To        string         `json:"to,omitempty"`
	Kind      string         `json:"k"`
	ID        string         `json:"id,omitempty"`
	Seek      *SeekView      `json:"s,omitempty"`
	Challenge *ChallengeView `json:"c,omitempty"`
	Game      string         `json:"g,omitempty"`
	Side      string         `json:"sd,omitempty"`
	Why       string         `json:"w,omitempty"`
	Reason    string         `json:"r,omitempty"`
	Account   string         `json:"a,omitempty"`
	// Owner is the account of Seek's owner.
	Owner   string    `json:"o,omitempty"`
	Players []Present `json:"-"`
}

// The reasons a challenge goes (Event.Why).
const (
	GoneAccepted  = "accepted"
	GoneDeclined  = "declined"
	GoneCancelled = "cancelled"
	GoneExpired   = "expired"
	GoneWithdrawn = "withdrawn"
)

func unseek(id string) Event { return Event{Kind: "unseek", ID: id} }

var poolsChanged = Event{Kind: "pools"}

// challengeGone is what the lobby tells both players of a challenge that
// has gone, and why; reason is a decline's.
func challengeGone(from, to, id, why, reason string) []Event {
	e := Event{Kind: "challenge-gone", ID: id, Why: why, Reason: reason}
	a, b := e, e
	a.To, b.To = from, to
	return []Event{a, b}
}
