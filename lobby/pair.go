package lobby

import (
	"context"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// pairing is a game to make in the lobby.
type pairing struct {
	holes, seeds int
	variant      rules.Variant
	clock        game.Clock
	rated        bool
	players      [2]seek.Player // by side
	seeks        []string       // the seeks and pool places it takes
	challenge    string         // the challenge it takes, or ""
	events       []Event        // what the lobby is told besides each player's "paired"
}

// pair makes the game of p through package play, with its players' seats
// owned by their accounts, and stores it in one transaction with the
// removal of what it takes; then tells the lobby. It returns the game's
// ID.
func (l *Lobby) pair(ctx context.Context, p *pairing) (string, error) {
	names := [2]string{p.players[rules.South].Name, p.players[rules.North].Name}
	g, err := play.Paired(names, p.holes, p.seeds, rules.Rules{Variant: p.variant}, p.clock, p.rated)
	if err != nil {
		return "", err
	}
	// The store keeps an ID given: the events, written before, name it.
	g.ID = newID()
	events := append([]Event{}, p.events...)
	for _, side := range []rules.Side{rules.South, rules.North} {
		events = append(events, Event{To: p.players[side].ID, Kind: "paired", Game: g.ID, Side: string(side.Letter())})
	}
	pr := &seek.Pairing{Game: g, Owners: [2]string{p.players[rules.South].ID, p.players[rules.North].ID},
		Seeks: p.seeks, Challenge: p.challenge, Notice: l.noticeOf(events)}
	if err := l.st.Pair(ctx, pr); err != nil {
		return "", err
	}
	l.log.Info("lobby pairing", "game", g.ID, "rated", g.Rated)
	l.tell(events)
	return g.ID, nil
}
