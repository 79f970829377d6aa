package lobby

import (
	"context"
	"encoding/json"
)

// Listener is what one connection to the lobby hears (docs/api.md, the
// lobby's live connection): each event told to the lobby's connections
// as a message for it, or nothing. Its zero value hears what a visitor
// not signed in hears. The caller serialises its use.
type Listener struct {
	// Account is the connection's account, "" for a visitor.
	Account string
	// Hears reports whether the connection hears account id's own
	// messages: id is Account, and its sign-in still holds.
	Hears func(id string) bool
	// hidden are the accounts whose seeks and presence the connection
	// does not see (blocks, either way).
	hidden map[string]bool
}

// The lobby's messages to its connections.
type (
	seekMessage struct {
		Type string   `json:"type"`
		Seek SeekView `json:"seek"`
	}
	idMessage struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	pairedMessage struct {
		Type string `json:"type"`
		Game string `json:"game"`
		Side string `json:"side"`
	}
	challengeMessage struct {
		Type      string         `json:"type"`
		Challenge *ChallengeView `json:"challenge"`
	}
	goneMessage struct {
		Type   string `json:"type"`
		ID     string `json:"id"`
		Why    string `json:"why"`
		Reason string `json:"reason,omitempty"`
	}
	playersMessage struct {
		Type    string    `json:"type"`
		Players []Present `json:"players"`
	}
)

// Message encodes v, plain data that always encodes.
func Message(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Hear returns the message of event e for the connection, nil for none;
// players are the players listed, as last told (nil before). An event of
// the pools is the caller's: each connection is sent the pools as its
// account sees them (PoolsFor).
func (c *Listener) Hear(e Event, players []Present) []byte {
	hears := func(id string) bool { return c.Hears != nil && c.Hears(id) }
	if e.To != "" && !hears(e.To) {
		return nil
	}
	switch e.Kind {
	case "seek":
		if e.Seek == nil || c.hidden[e.Owner] {
			return nil
		}
		v := *e.Seek
		v.Mine = hears(e.Owner)
		return Message(seekMessage{Type: "seek", Seek: v})
	case "unseek":
		return Message(idMessage{Type: "unseek", ID: e.ID})
	case "paired":
		return Message(pairedMessage{Type: "paired", Game: e.Game, Side: e.Side})
	case "challenge":
		return Message(challengeMessage{Type: "challenge", Challenge: e.Challenge})
	case "challenge-gone":
		return Message(goneMessage{Type: "challenge-gone", ID: e.ID, Why: e.Why, Reason: e.Reason})
	case "hide", "show":
		if c.hidden == nil {
			c.hidden = map[string]bool{}
		}
		c.hidden[e.Account] = e.Kind == "hide"
		if players != nil {
			return Message(playersMessage{Type: "players", Players: Visible(players, c.Account, c.hidden)})
		}
	case "players":
		return Message(playersMessage{Type: "players", Players: Visible(e.Players, c.Account, c.hidden)})
	}
	return nil
}

// Welcome returns the first message of a connection of account me (""
// for a visitor): the whole lobby as me sees it, and the accounts whose
// seeks and presence it does not see, for Listener.Hide.
func (l *Lobby) Welcome(ctx context.Context, me string) ([]byte, map[string]bool, error) {
	st, err := l.State(ctx, me)
	if err != nil {
		return nil, nil, err
	}
	hidden := map[string]bool{}
	for _, id := range st.Hidden {
		hidden[id] = true
	}
	msg := Message(struct {
		Type string `json:"type"`
		*State
	}{"lobby", st})
	return msg, hidden, nil
}

// Hide makes hidden the accounts whose seeks and presence the connection
// does not see, as Welcome returned them.
func (c *Listener) Hide(hidden map[string]bool) { c.hidden = hidden }
