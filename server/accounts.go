package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/play"
)

// SessionCookie is the cookie that holds a signed-in browser's session id;
// DeviceCookie the id of a browser that signed in to an account before,
// whose correct password passes the limit on the account's name.
const (
	SessionCookie = "endodoi_session"
	DeviceCookie  = "endodoi_device"
)

// AccountOptions tune the accounts.
type AccountOptions struct {
	// Passwords are argon2id's parameters (default account.DefaultParams);
	// Hashes is how many passwords are hashed at once (default 2), each
	// with Passwords.MemoryKiB of memory; the others wait up to 5 s, then
	// are answered 503.
	Passwords account.Params
	Hashes    int
	// SignInRate bounds the sign-ins and sign-ups of one client (default
	// 1 every 6 s, burst 10); NameRate the password sign-ins on one name,
	// from all clients together (default account.Options's: 1 a minute,
	// burst 10).
	SignInRate, NameRate Rate
}

func (o AccountOptions) withDefaults() AccountOptions {
	if o.Passwords == (account.Params{}) {
		o.Passwords = account.DefaultParams
	}
	if o.Hashes <= 0 {
		o.Hashes = 2
	}
	if o.SignInRate.PerSecond <= 0 || o.SignInRate.Burst <= 0 {
		o.SignInRate = Rate{1.0 / 6, 10}
	}
	return o
}

// accounts serves the account routes.
type accounts struct {
	svc     *account.Service
	clients *limits.Limiter // sign-ins, sign-ups and passkey ceremonies, per client
}

func (s *Server) accountRoutes(o AccountOptions) {
	h := account.NewHasher(o.Passwords, o.Hashes, 5*time.Second)
	s.accounts = &accounts{clients: limits.NewLimiter(limits.Rate(o.SignInRate)),
		svc: account.NewWithOptions(s.store, h, account.Options{Log: s.log,
			NameRate: account.Rate{PerSecond: o.NameRate.PerSecond, Burst: o.NameRate.Burst}})}
	s.mux.HandleFunc("POST /api/account/signup", s.limited(s.accounts.clients, s.signUp))
	s.mux.HandleFunc("POST /api/account/signin", s.limited(s.accounts.clients, s.signIn))
	s.mux.HandleFunc("POST /api/account/signout", s.signOut)
	s.mux.HandleFunc("POST /api/account/signout-everywhere", s.signedIn(s.signOutEverywhere))
	s.mux.HandleFunc("GET /api/me", s.whoAmI)
	s.mux.HandleFunc("POST /api/me/delete", s.signedIn(s.deleteAccount))
	s.mux.HandleFunc("GET /api/me/games", s.signedInOrBot(s.myGames))
	s.passkeyRoutes()
}

// accountStatus is the status of each error of package account.
var accountStatus = map[error]int{
	account.ErrBadName:          http.StatusBadRequest,
	account.ErrBadPassword:      http.StatusBadRequest,
	account.ErrNameTaken:        http.StatusConflict,
	account.ErrSignIn:           http.StatusUnauthorized,
	account.ErrNoSession:        http.StatusUnauthorized,
	account.ErrCeremony:         http.StatusBadRequest,
	account.ErrNoPasskeys:       http.StatusBadRequest,
	account.ErrPasskeyAnswer:    http.StatusBadRequest,
	account.ErrPasskeySignIn:    http.StatusUnauthorized,
	account.ErrPasskeyCloned:    http.StatusUnauthorized,
	account.ErrCredentialExists: http.StatusConflict,
}

// accountProblem maps an error of package account to its answer.
func accountProblem(err error) (problem, bool) {
	for e, status := range accountStatus {
		if errors.Is(err, e) {
			return problem{status, err.Error(), 0}, true
		}
	}
	if le, ok := errors.AsType[*account.LimitError](err); ok {
		return problem{http.StatusTooManyRequests, err.Error(), int(le.Wait/time.Second) + 1}, true
	}
	if errors.Is(err, account.ErrBusy) {
		return problem{http.StatusServiceUnavailable, err.Error(), 2}, true
	}
	return problem{}, false
}

// accountView is an account as the API shows it.
type accountView struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Created  time.Time `json:"created"`
	Password bool      `json:"password"`
	Passkeys int       `json:"passkeys"`
	Bot      bool      `json:"bot,omitempty"` // a bot's account (identity.go)
}

type credentialsBody struct {
	Name     string `json:"name"`
	Password string `json:"password"`
}

// secure reports whether r reached the site over HTTPS, so that its
// cookies are sent back over HTTPS only.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || s.trustProxy && r.Header.Get("X-Forwarded-Proto") == "https"
}

// setSession gives the browser the cookie of a new session.
func (s *Server) setSession(w http.ResponseWriter, r *http.Request, signed *account.Signed) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: signed.Session, Path: "/", Expires: signed.Expires,
		MaxAge: int(time.Until(signed.Expires) / time.Second), HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

// setDevice gives the browser its device cookie, sent back to the
// account routes only.
func (s *Server) setDevice(w http.ResponseWriter, r *http.Request, id string) {
	http.SetCookie(w, &http.Cookie{Name: DeviceCookie, Value: id, Path: "/api/account/", MaxAge: int(account.DeviceLife / time.Second),
		HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteStrictMode})
}

func deviceID(r *http.Request) string {
	if c, err := r.Cookie(DeviceCookie); err == nil {
		return c.Value
	}
	return ""
}

func (s *Server) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.secure(r), SameSite: http.SameSiteLaxMode})
}

func sessionID(r *http.Request) string {
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// currentAccount returns the account r is signed in to, or
// account.ErrNoSession.
func (s *Server) currentAccount(r *http.Request) (*account.Account, error) {
	return s.accounts.svc.Who(r.Context(), sessionID(r))
}

// signedIn runs h for a request of a signed-in browser, and answers 401
// to the others.
func (s *Server) signedIn(h func(w http.ResponseWriter, r *http.Request, a *account.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := s.currentAccount(r)
		if err != nil {
			if errors.Is(err, account.ErrNoSession) && sessionID(r) != "" {
				s.clearSession(w, r)
			}
			s.fail(w, r, err)
			return
		}
		h(w, r, a)
	}
}

func (s *Server) viewAccount(r *http.Request, a *account.Account) (accountView, error) {
	sum, err := s.accounts.svc.Summarise(r.Context(), a)
	return accountView{ID: a.ID, Name: a.Name, Created: a.Created, Bot: a.Kind == account.Bot,
		Password: sum.Password, Passkeys: sum.Passkeys}, err
}

// signedInAnswer answers a sign-up or sign-in: the session's cookie and
// the account.
func (s *Server) signedInAnswer(w http.ResponseWriter, r *http.Request, status int, signed *account.Signed) {
	v, err := s.viewAccount(r, signed.Account)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// The session this browser held before, if any, ends: one browser,
	// one session.
	if old := sessionID(r); old != "" && old != signed.Session {
		if _, err := s.accounts.svc.SignOut(r.Context(), old); err != nil {
			s.log.Warn("ending a replaced session", "err", err)
		} else {
			s.revoked(r.Context(), account.Revocation{Session: account.HashSessionID(old)})
		}
	}
	s.setSession(w, r, signed)
	if signed.Device != "" {
		s.setDevice(w, r, signed.Device)
	}
	writeJSON(w, status, map[string]any{"account": v})
}

func (s *Server) signUp(w http.ResponseWriter, r *http.Request) {
	var body credentialsBody
	if err := decode(w, r, &body, false); err != nil {
		s.fail(w, r, err)
		return
	}
	signed, err := s.accounts.svc.SignUp(r.Context(), body.Name, body.Password)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.signedInAnswer(w, r, http.StatusCreated, signed)
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	var body credentialsBody
	if err := decode(w, r, &body, false); err != nil {
		s.fail(w, r, err)
		return
	}
	signed, err := s.accounts.svc.SignIn(r.Context(), account.PasswordSignIn{Name: body.Name, Password: body.Password, Device: deviceID(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.signedInAnswer(w, r, http.StatusOK, signed)
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if id := sessionID(r); id != "" {
		if _, err := s.accounts.svc.SignOut(r.Context(), id); err != nil {
			s.fail(w, r, err)
			return
		}
		s.revoked(r.Context(), account.Revocation{Session: account.HashSessionID(id)})
	}
	s.clearSession(w, r)
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) signOutEverywhere(w http.ResponseWriter, r *http.Request, a *account.Account) {
	ended, err := s.accounts.svc.SignOutEverywhere(r.Context(), a.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.revoked(r.Context(), account.Revocation{Account: a.ID})
	s.clearSession(w, r)
	writeJSON(w, http.StatusOK, map[string]any{"ended": len(ended.Sessions)})
}

// whoAmI answers the signed-in account, or null: not being signed in is
// no error here.
func (s *Server) whoAmI(w http.ResponseWriter, r *http.Request) {
	a, err := s.asker(r) // a bot asks with its token (identity.go)
	if errors.Is(err, account.ErrNoSession) {
		if sessionID(r) != "" {
			s.clearSession(w, r)
		}
		writeJSON(w, http.StatusOK, map[string]any{"account": nil})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.viewAccount(r, a)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"account": v})
}

// deleteAccount deletes the signed-in account; the body names it, so
// that a stray request deletes nothing.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request, a *account.Account) {
	var body struct {
		Confirm string `json:"confirm"`
	}
	if err := decode(w, r, &body, false); err != nil {
		s.fail(w, r, err)
		return
	}
	if _, key, err := account.ParseUsername(body.Confirm); err != nil || key != a.Key {
		s.fail(w, r, errorf(http.StatusBadRequest, "to delete your account, give its name as \"confirm\""))
		return
	}
	if _, err := s.accounts.svc.Delete(r.Context(), a.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	// What it had open in the lobby goes at once, on every instance.
	if err := s.lobby.Forget(r.Context(), a.ID); err != nil {
		s.log.Warn("withdrawing a deleted account from the lobby", "err", err)
	}
	s.revoked(r.Context(), account.Revocation{Account: a.ID})
	s.clearSession(w, r)
	writeJSON(w, http.StatusOK, map[string]any{})
}

// claimSeat makes the seat that token holds the signed-in account's, when
// r is signed in. The seat is taken already, and stays its player's by its
// token: a failure here is only logged.
func (s *Server) claimSeat(r *http.Request, token string) {
	if sessionID(r) == "" || token == "" {
		return
	}
	a, err := s.currentAccount(r)
	if err == nil {
		err = s.store.ClaimSeat(r.Context(), play.HashToken(token), a.ID)
	}
	if err != nil && !errors.Is(err, account.ErrNoSession) {
		s.log.Warn("recording the account of a seat", "err", err)
	}
}

// myGames lists the online games in which the signed-in account holds a
// seat, the most recently changed first, with its side in each.
func (s *Server) myGames(w http.ResponseWriter, r *http.Request, a *account.Account) {
	limit, err := queryInt(r, "limit", 50, 1, MaxListed)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	seats, err := s.store.AccountGames(r.Context(), a.ID, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ids := make([]string, len(seats))
	for i, sg := range seats {
		ids[i] = sg.GameID
	}
	list, err := s.store.GamesByID(r.Context(), ids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	views, err := s.summaries(r.Context(), list)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	type seatGameView struct {
		api.Summary
		Side string `json:"side"` // the account's
	}
	out := make([]seatGameView, 0, len(views))
	for i, v := range views {
		// GamesByID keeps the order asked, less the games gone.
		side := ""
		for _, sg := range seats[i:] {
			if sg.GameID == v.ID {
				side = string(sg.Side.Letter())
				break
			}
		}
		out = append(out, seatGameView{v, side})
	}
	writeJSON(w, http.StatusOK, map[string]any{"games": out})
}

func isAccountError(err error) bool {
	_, ok := accountProblem(err)
	return ok
}
