package lobby

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
)

// Blocks and reports: a player blocks another so that the two are never
// paired, neither challenges the other nor takes the other's seek, and
// neither sees the other's seeks or is listed to the other.

// Blocks returns the players me blocks.
func (l *Lobby) Blocks(ctx context.Context, me seek.Player) ([]Player, error) {
	list, err := l.st.Blocks(ctx, me.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Player, 0, len(list))
	for _, p := range list {
		out = append(out, Player{Name: p.Name, Bot: p.Bot, Provisional: true})
	}
	return out, nil
}

// Block makes player me block the player named name, within MaxBlocks:
// the challenges between the two are withdrawn, and each stops seeing
// the other's seeks. It returns the players me blocks then.
func (l *Lobby) Block(ctx context.Context, me seek.Player, name string) ([]Player, error) {
	other, err := l.playerNamed(ctx, name)
	if err != nil {
		return nil, err
	}
	if other.ID == me.ID {
		return nil, errorf(ErrBadRequest, "you cannot block yourself")
	}
	// The two stop seeing each other first: a seek posted meanwhile is
	// told to neither.
	events, err := l.seeing(ctx, me.ID, other.ID, false)
	if err != nil {
		return nil, err
	}
	l.tell(events)
	l.notify(events)
	var gone []Event
	if _, err := l.st.Block(ctx, me.ID, other.ID, MaxBlocks, func(list []seek.Challenge) string {
		gone = nil
		for _, ch := range list {
			gone = append(gone, challengeGone(ch.From.ID, ch.To.ID, ch.ID, GoneWithdrawn, "")...)
		}
		return l.noticeOf(gone)
	}); err != nil {
		if again, _ := l.st.Blocked(ctx, me.ID, other.ID); !again {
			// Not blocked after all: they see each other again.
			if events, err := l.seeing(ctx, me.ID, other.ID, true); err == nil {
				l.tell(events)
				l.notify(events)
			}
		}
		return nil, refused(err, "")
	}
	l.tell(gone)
	return l.Blocks(ctx, me)
}

// Unblock lifts player me's block of the player named name; the two see
// each other's seeks again unless the other blocks me. It returns the
// players me blocks then.
func (l *Lobby) Unblock(ctx context.Context, me seek.Player, name string) ([]Player, error) {
	other, err := l.playerNamed(ctx, name)
	if err == nil {
		err = l.st.Unblock(ctx, me.ID, other.ID)
		if errors.Is(err, game.ErrNotFound) {
			err = errorf(ErrNotFound, "you do not block %q", clip(name))
		}
	}
	if err != nil {
		return nil, err
	}
	if still, err := l.st.Blocked(ctx, me.ID, other.ID); err == nil && !still {
		if events, err := l.seeing(ctx, me.ID, other.ID, true); err == nil {
			l.tell(events)
			l.notify(events)
		}
	}
	return l.Blocks(ctx, me)
}

// seeing are the events by which accounts a and b stop seeing each other
// (see false: each is hidden from the other, and the other's open seeks
// go from its connections) or see each other again (each is shown the
// other's open seeks).
func (l *Lobby) seeing(ctx context.Context, a, b string, see bool) ([]Event, error) {
	all, err := l.st.Seeks(ctx)
	if err != nil {
		return nil, err
	}
	kind := "hide"
	if see {
		kind = "show"
	}
	events := []Event{{To: a, Kind: kind, Account: b}, {To: b, Kind: kind, Account: a}}
	var shown []seek.Seek
	for _, sk := range all {
		if sk.Pool == "" && (sk.Owner.ID == a || sk.Owner.ID == b) {
			shown = append(shown, sk)
		}
	}
	views := l.seekViews(ctx, shown, "")
	for i, sk := range shown {
		to := a
		if sk.Owner.ID == a {
			to = b
		}
		if see {
			events = append(events, Event{To: to, Kind: "seek", Seek: &views[i], Owner: sk.Owner.ID})
		} else {
			events = append(events, Event{To: to, Kind: "unseek", ID: sk.ID})
		}
	}
	return events, nil
}

// ReportRequest is a report of a game: why ("cheating", "abuse" or
// "other"), and a text of at most MaxReportText characters.
type ReportRequest struct {
	Reason string `json:"reason"`
	Text   string `json:"text"`
}

// Report stores player me's report of game id, and returns its ID; a
// second report of one game by one account is refused.
func (l *Lobby) Report(ctx context.Context, me seek.Player, id string, req ReportRequest) (string, error) {
	switch {
	case req.Reason != "cheating" && req.Reason != "abuse" && req.Reason != "other":
		return "", errorf(ErrBadRequest, "reason %q: want cheating, abuse or other", clip(req.Reason))
	case !utf8.ValidString(req.Text) || utf8.RuneCountInString(req.Text) > MaxReportText:
		return "", errorf(ErrBadRequest, "text: at most %d characters of text", MaxReportText)
	}
	r := &seek.Report{GameID: id, By: me, Reason: req.Reason, Text: req.Text}
	err := l.st.AddReport(ctx, r)
	switch {
	case errors.Is(err, game.ErrExists):
		return "", errorf(ErrConflict, "you have reported this game already")
	case errors.Is(err, game.ErrNotFound):
		return "", errorf(ErrNotFound, "no game %s", clip(id))
	case err != nil:
		return "", err
	}
	l.log.Info("a game reported", "game", id, "reason", req.Reason)
	return r.ID, nil
}
