package server

// Who is asking: a signed-in browser (its session cookie) or a bot (its
// token, Authorization: Bearer bot_...), and the seats an account acts on
// without a seat's token.

import (
	"context"
	"errors"
	"net/http"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// asker returns the account r comes from: a bot's, when its Authorization
// header carries a bot token, else the signed-in browser's; or
// account.ErrNoSession.
func (s *Server) asker(r *http.Request) (*account.Account, error) {
	if tok := bearer(r); account.IsBotToken(tok) {
		return s.accounts.svc.Bot(r.Context(), tok)
	}
	return s.currentAccount(r)
}

// mayAsk reports whether r carries something that may name an account,
// so that the requests of nobody in particular cost no read.
func mayAsk(r *http.Request) bool {
	return sessionID(r) != "" || account.IsBotToken(bearer(r))
}

// signedInOrBot runs h for a request of a signed-in browser or a bot, and
// answers 401 to the others.
func (s *Server) signedInOrBot(h func(w http.ResponseWriter, r *http.Request, a *account.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := s.asker(r)
		if err != nil {
			if errors.Is(err, account.ErrNoSession) && sessionID(r) != "" && !account.IsBotToken(bearer(r)) {
				s.clearSession(w, r)
			}
			s.fail(w, r, err)
			return
		}
		h(w, r, a)
	}
}

// seatOf says which seat of game g request r acts as: the seat its seat
// token holds, exactly as before accounts; without a seat token, the seat
// the asking account owns.
func (s *Server) seatOf(r *http.Request, g *play.Game) (play.Seat, error) {
	tok := bearer(r)
	if g.Online() == nil || !account.IsBotToken(tok) && (tok != "" || sessionID(r) == "") {
		return s.table.SeatOf(r.Context(), g, tok)
	}
	a, err := s.asker(r)
	if errors.Is(err, account.ErrNoSession) {
		return s.table.SeatOf(r.Context(), g, "")
	}
	if err != nil {
		return play.Seat{}, err
	}
	return s.table.SeatOfAccount(r.Context(), g, a.ID)
}

// liveSeat is seatOf for a message on a live connection: the token of its
// latest hello, else the seat of the connection's account.
func (s *Server) liveSeat(ctx context.Context, g *play.Game, token string, c *liveConn) (play.Seat, error) {
	if token != "" || c.account == "" || g.Online() == nil {
		return s.table.SeatOf(ctx, g, token)
	}
	return s.table.SeatOfAccount(ctx, g, c.account)
}

// askerID returns the ID of the account a request comes from, or "".
func (s *Server) askerID(r *http.Request) string {
	if !mayAsk(r) {
		return ""
	}
	a, err := s.asker(r)
	if err != nil {
		return ""
	}
	return a.ID
}

// askerView is a game's view with the side of the asker's seat, when the
// asker's account owns one.
type askerView struct {
	gameView
	You string `json:"you,omitempty"`
}

// answerAsker answers with the view of game g, saying which seat is the
// asking account's.
func (s *Server) answerAsker(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	v, err := s.view(r.Context(), g)
	if err != nil {
		return err
	}
	out := askerView{gameView: v}
	if o := g.Online(); o != nil && mayAsk(r) {
		if a, err := s.asker(r); err == nil {
			owners, err := s.store.SeatOwners(r.Context(), []string{o.Seats[rules.South], o.Seats[rules.North]})
			if err != nil {
				return err
			}
			for _, side := range []rules.Side{rules.South, rules.North} {
				if h := o.Seats[side]; h != "" && owners[h] == a.ID {
					out.You = string(side.Letter())
					break
				}
			}
		} else if !errors.Is(err, account.ErrNoSession) {
			return err
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
