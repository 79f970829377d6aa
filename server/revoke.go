package server

// A revoked sign-in stops acting everywhere at once. When a session ends
// (signed out), every session of an account ends (signed out everywhere),
// or an account is disabled or deleted, the live connections it opened,
// a game's and the lobby's, on every instance, check their session (or
// bot token) again and close if it no longer holds: the instance where it
// happened at once, before it answers, and the others when its notice
// reaches them (account.Revocation). A connection does not check on every
// message: it is told. The account's seeks and pool places are withdrawn
// with its sessions. An account disabled or deleted by the operator's
// command, outside any server, is announced by the command on PostgreSQL;
// a server alone on its SQLite database checks its connections' sign-ins
// every signInCheck instead. Meanwhile a disabled or deleted account acts
// on no seat: its seats' owners are read with its status (SeatOwners).

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/store"
)

// Times of the checks of sign-ins.
const (
	// signInCheck is how often a server without other instances (SQLite)
	// checks the sign-ins of its live connections, for the accounts that
	// the operator's command changed.
	signInCheck = 5 * time.Second
	// revokeTimeout bounds the checks and withdrawals of a revocation.
	revokeTimeout = 10 * time.Second
)

// signedConn is a live connection opened by an account, with what proved
// it: the cookie's session or a bot's token.
type signedConn struct {
	account string
	session string // the session id, or ""
	hash    string // its hash (account.HashSessionID)
	bot     string // the bot's token, or ""
	// revoked is set once a check closed the connection: it acts no more.
	revoked atomic.Bool
	// drop closes the connection, saying why.
	drop func(ending)
}

// credential names what proved the connection, for checking each once.
func (sc *signedConn) credential() string {
	if sc.bot != "" {
		return "bot " + sc.bot
	}
	return "session " + sc.session
}

// signedConns keeps this instance's live connections opened by accounts.
type signedConns struct {
	mu    sync.Mutex
	gen   uint64 // revocations begun so far
	conns map[*signedConn]struct{}
}

// generation returns the number of revocations begun so far: a connection
// whose sign-in was read before a revocation began checks it again when
// it is added (add).
func (sc *signedConns) generation() uint64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.gen
}

// add keeps c; it reports whether a revocation began since gen.
func (sc *signedConns) add(c *signedConn, gen uint64) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.conns == nil {
		sc.conns = map[*signedConn]struct{}{}
	}
	sc.conns[c] = struct{}{}
	return sc.gen != gen
}

func (sc *signedConns) remove(c *signedConn) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	delete(sc.conns, c)
}

// matching begins a revocation and returns the connections it names
// (all of them for the zero Revocation).
func (sc *signedConns) matching(rv account.Revocation) []*signedConn {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.gen++
	var out []*signedConn
	for c := range sc.conns {
		switch {
		case rv.Session != "" && c.hash != rv.Session:
		case rv.Session == "" && rv.Account != "" && c.account != rv.Account:
		default:
			out = append(out, c)
		}
	}
	return out
}

// liveSigner returns who a live connection's request speaks for, with
// what proves it; nil for nobody.
func (s *Server) liveSigner(r *http.Request) (*signedConn, error) {
	if !mayAsk(r) {
		return nil, nil
	}
	a, err := s.asker(r)
	if err != nil {
		return nil, err
	}
	c := &signedConn{account: a.ID}
	if tok := bearer(r); account.IsBotToken(tok) {
		c.bot = tok
	} else {
		c.session = sessionID(r)
		c.hash = account.HashSessionID(c.session)
	}
	return c, nil
}

// watchSignIn keeps live connection c, opened by an account, until done
// is called: a revocation finds it there. gen is the generation read
// before c's sign-in was: if a revocation began since, c checks it again
// now.
func (s *Server) watchSignIn(ctx context.Context, c *signedConn, gen uint64) (done func()) {
	if c == nil {
		return func() {}
	}
	if s.signed.add(c, gen) {
		cctx, cancel := context.WithTimeout(ctx, revokeTimeout)
		s.recheck(cctx, []*signedConn{c})
		cancel()
	}
	return func() { s.signed.remove(c) }
}

// revoked is the hook of the account flows: call it once a session has
// ended (rv.Session, its hash), or every session of an account has, or
// the account has been disabled or deleted (rv.Account). The live
// connections it opened close here at once, and on the other instances
// when they hear of it; with every session of an account, its seeks and
// pool places are withdrawn.
func (s *Server) revoked(ctx context.Context, rv account.Revocation) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), revokeTimeout)
	defer cancel()
	s.recheck(ctx, s.signed.matching(rv))
	if rv.Session == "" && rv.Account != "" {
		s.withdrawLobby(ctx, rv.Account)
	}
	if s.bus != nil {
		if err := s.bus.Notify(ctx, rv.Notice()); err != nil {
			s.log.Warn("telling the other instances of a revoked sign-in", "err", err)
		}
	}
}

// revokedElsewhere acts on another instance's (or the operator's)
// revocation: the connections here that it names check their sign-ins
// again, and an account that can act no more (disabled or deleted) has
// its seeks and pool places withdrawn, which the operator's command
// cannot do.
func (s *Server) revokedElsewhere(rv account.Revocation) {
	ctx, cancel := context.WithTimeout(s.ctx, revokeTimeout)
	defer cancel()
	s.recheck(ctx, s.signed.matching(rv))
	if rv.Session == "" && rv.Account != "" && !s.accountActive(ctx, rv.Account) {
		s.withdrawLobby(ctx, rv.Account)
	}
}

// recheckAll checks again the sign-ins of every live connection here,
// and withdraws the seeks and pool places of the accounts that can act
// no more: every signInCheck without other instances, and after notices
// may have been missed.
func (s *Server) recheckAll(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, revokeTimeout)
	defer cancel()
	for _, id := range s.recheck(ctx, s.signed.matching(account.Revocation{})) {
		if !s.accountActive(ctx, id) {
			s.withdrawLobby(ctx, id)
		}
	}
}

// recheck checks the sign-in of each connection of conns, each session or
// token once, and closes those whose sign-in no longer holds (or could not
// be checked); it returns the accounts whose sign-ins ended.
func (s *Server) recheck(ctx context.Context, conns []*signedConn) (ended []string) {
	verdicts := map[string]ending{}
	seen := map[string]bool{}
	for _, c := range conns {
		cred := c.credential()
		e, ok := verdicts[cred]
		if !ok {
			e = s.checkSignIn(ctx, c)
			verdicts[cred] = e
		}
		if e == endSlow {
			continue // it holds
		}
		c.revoked.Store(true)
		c.drop(e)
		if e == endSignedOut && !seen[c.account] {
			seen[c.account] = true
			ended = append(ended, c.account)
		}
	}
	return ended
}

// checkSignIn says whether c's sign-in still holds (endSlow, for no
// ending), ended (endSignedOut), or could not be checked (endUnchecked).
func (s *Server) checkSignIn(ctx context.Context, c *signedConn) ending {
	var a *store.Account
	var err error
	if c.bot != "" {
		a, err = s.accounts.svc.Bot(ctx, c.bot)
	} else {
		a, err = s.accounts.svc.Who(ctx, c.session)
	}
	switch {
	case errors.Is(err, account.ErrNoSession):
		return endSignedOut
	case err != nil:
		s.log.Warn("checking the sign-in of a live connection", "err", err)
		return endUnchecked
	case a.ID != c.account:
		return endSignedOut
	}
	return endSlow
}

// accountActive reports whether account id may still act: neither
// disabled nor deleted. An account that cannot be read counts as active:
// its connections have been checked already.
func (s *Server) accountActive(ctx context.Context, id string) bool {
	a, err := s.store.Account(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	return err != nil || a.Status == store.AccountActive
}

// withdrawLobby withdraws what account id has open in the lobby, on every
// instance (lobby.Lobby.Withdraw).
func (s *Server) withdrawLobby(ctx context.Context, id string) {
	if err := s.lobby.Withdraw(ctx, id); err != nil {
		s.log.Warn("withdrawing a signed-out account from the lobby", "err", err)
	}
}
