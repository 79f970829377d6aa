package server

// Passkeys (WebAuthn): the routes of package account's ceremonies. Each
// ceremony is two requests, begin and finish; the browser holds the
// ceremony's id between them in a cookie of its own.

import (
	"io"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/account"
)

// CeremonyCookie holds the id of a browser's passkey ceremony under way.
const CeremonyCookie = "endodoi_ceremony"

func (s *Server) passkeyRoutes() {
	s.mux.HandleFunc("POST /api/account/passkey/register/begin", s.limited(s.accounts.clients, s.passkeyRegisterBegin))
	s.mux.HandleFunc("POST /api/account/passkey/register/finish", s.passkeyRegisterFinish)
	s.mux.HandleFunc("POST /api/account/passkey/signin/begin", s.limited(s.accounts.clients, s.passkeySignInBegin))
	s.mux.HandleFunc("POST /api/account/passkey/signin/finish", s.passkeySignInFinish)
}

// passkeyRequest is what a ceremony's step needs of r: the page's origin,
// the browser's cookies.
func (s *Server) passkeyRequest(r *http.Request) account.PasskeyRequest {
	req := account.PasskeyRequest{Origin: account.Origin{Secure: s.secure(r), Host: r.Host}, Session: sessionID(r), Device: deviceID(r)}
	if c, err := r.Cookie(CeremonyCookie); err == nil {
		req.Ceremony = c.Value
	}
	return req
}

// ceremonyCookie gives the browser the cookie of a ceremony begun, or,
// with b nil, takes it back.
func (s *Server) ceremonyCookie(w http.ResponseWriter, r *http.Request, b *account.Begun) {
	c := &http.Cookie{Name: CeremonyCookie, Path: "/api/account/passkey/", MaxAge: -1, HttpOnly: true,
		Secure: s.secure(r), SameSite: http.SameSiteStrictMode}
	if b != nil {
		c.Value, c.MaxAge = b.ID, int(time.Until(b.Expires)/time.Second)
	}
	http.SetCookie(w, c)
}

// ceremonyAnswer is the step that finishes a ceremony: its cookie taken
// back (the ceremony is used up even when the answer is bad), and the
// browser's answer read, bounded.
func (s *Server) ceremonyAnswer(w http.ResponseWriter, r *http.Request) (account.PasskeyRequest, error) {
	s.ceremonyCookie(w, r, nil)
	req := s.passkeyRequest(r)
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		return req, errorf(http.StatusRequestEntityTooLarge, "the passkey's answer is over 64 KiB")
	}
	req.Answer = data
	return req, nil
}

func (s *Server) passkeyRegisterBegin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if err := decode(w, r, &body, true); err != nil {
		s.fail(w, r, err)
		return
	}
	req := s.passkeyRequest(r)
	req.Name = body.Name
	s.begun(w, r)(s.accounts.svc.BeginRegistration(r.Context(), req))
}

func (s *Server) passkeySignInBegin(w http.ResponseWriter, r *http.Request) {
	s.begun(w, r)(s.accounts.svc.BeginSignIn(r.Context(), s.passkeyRequest(r)))
}

// begun answers a ceremony begun: the options, and its cookie.
func (s *Server) begun(w http.ResponseWriter, r *http.Request) func(*account.Begun, error) {
	return func(b *account.Begun, err error) {
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.ceremonyCookie(w, r, b)
		writeJSON(w, http.StatusOK, b.Options)
	}
}

func (s *Server) passkeyRegisterFinish(w http.ResponseWriter, r *http.Request) {
	req, err := s.ceremonyAnswer(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reg, err := s.accounts.svc.FinishRegistration(r.Context(), req)
	switch {
	case err != nil:
		s.fail(w, r, err)
	case reg.Signed != nil:
		s.signedInAnswer(w, r, http.StatusCreated, reg.Signed)
	default:
		v, err := s.viewAccount(r, reg.Account)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{"account": v})
	}
}

func (s *Server) passkeySignInFinish(w http.ResponseWriter, r *http.Request) {
	req, err := s.ceremonyAnswer(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	signed, err := s.accounts.svc.FinishSignIn(r.Context(), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.signedInAnswer(w, r, http.StatusOK, signed)
}
