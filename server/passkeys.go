package server

// Passkeys (WebAuthn): registering one, for a new account or the signed-in
// one, and signing in with one. Each ceremony is two requests: begin,
// whose challenge the store keeps for a few minutes under the hash of a
// random id that the browser holds in a cookie of its own, and finish,
// which takes the challenge back once.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/store"
)

// CeremonyCookie holds the id of a browser's passkey ceremony under way.
const CeremonyCookie = "endodoi_ceremony"

// ceremonyLife is how long a ceremony's challenge is kept.
const ceremonyLife = 5 * time.Minute

// ceremony is what the store keeps of a ceremony between its requests.
type ceremony struct {
	Kind      string               `json:"kind"` // "register" or "signin"
	Session   webauthn.SessionData `json:"session"`
	AccountID string               `json:"account"`        // the account a passkey is registered to
	Name      string               `json:"name,omitempty"` // a new account's name
	New       bool                 `json:"new,omitempty"`  // registering for a new account
	RPID      string               `json:"rpId"`           // the relying party the ceremony began with
	Origin    string               `json:"origin"`         // the site's origin the ceremony began at
}

// passkeyUser is an account as package webauthn sees it.
type passkeyUser struct {
	id, name string
	creds    []webauthn.Credential
}

func (u *passkeyUser) WebAuthnID() []byte                         { return []byte(u.id) }
func (u *passkeyUser) WebAuthnName() string                       { return u.name }
func (u *passkeyUser) WebAuthnDisplayName() string                { return u.name }
func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func (s *Server) passkeyRoutes() {
	s.mux.HandleFunc("POST /api/account/passkey/register/begin", s.limited(s.accounts.clients, s.passkeyRegisterBegin))
	s.mux.HandleFunc("POST /api/account/passkey/register/finish", s.passkeyRegisterFinish)
	s.mux.HandleFunc("POST /api/account/passkey/signin/begin", s.limited(s.accounts.clients, s.passkeySignInBegin))
	s.mux.HandleFunc("POST /api/account/passkey/signin/finish", s.passkeySignInFinish)
}

// relyingParty returns the WebAuthn relying party for r: the host r was
// addressed to, one of the server's names (HostCheck: the --host names,
// the address listened on, localhost), and the origin the browser's page
// has, on that host.
func (s *Server) relyingParty(r *http.Request) (*webauthn.WebAuthn, string, string, error) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	rpID := strings.ToLower(strings.Trim(host, "[]"))
	scheme := "http"
	if s.secure(r) {
		scheme = "https"
	}
	origin := scheme + "://" + r.Host
	w, err := webauthn.New(&webauthn.Config{RPID: rpID, RPDisplayName: "En Dodoi", RPOrigins: []string{origin}})
	if err != nil {
		return nil, "", "", errorf(http.StatusBadRequest, "passkeys cannot be used on %s: %v", clip(r.Host), err)
	}
	return w, rpID, origin, nil
}

// keepCeremony stores c and gives the browser its cookie.
func (s *Server) keepCeremony(w http.ResponseWriter, r *http.Request, c *ceremony) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("keeping a passkey ceremony: %w", err)
	}
	id, hash := account.NewSessionID()
	if err := s.store.PutChallenge(r.Context(), hash, string(data), time.Now().Add(ceremonyLife)); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: CeremonyCookie, Value: id, Path: "/api/account/passkey/", MaxAge: int(ceremonyLife / time.Second),
		HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteStrictMode})
	return nil
}

// takeCeremony returns the browser's ceremony of kind, once, and the
// relying party it began with.
func (s *Server) takeCeremony(w http.ResponseWriter, r *http.Request, kind string) (*ceremony, *webauthn.WebAuthn, error) {
	http.SetCookie(w, &http.Cookie{Name: CeremonyCookie, Path: "/api/account/passkey/", MaxAge: -1, HttpOnly: true,
		Secure: s.secure(r), SameSite: http.SameSiteStrictMode})
	expired := errorf(http.StatusBadRequest, "no passkey ceremony under way, or it took too long; start again")
	ck, err := r.Cookie(CeremonyCookie)
	if err != nil || len(ck.Value) != 43 {
		return nil, nil, expired
	}
	data, err := s.store.TakeChallenge(r.Context(), account.HashSessionID(ck.Value), time.Now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, expired
	}
	if err != nil {
		return nil, nil, err
	}
	var c ceremony
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return nil, nil, fmt.Errorf("reading a passkey ceremony: %w", err)
	}
	if c.Kind != kind {
		return nil, nil, expired
	}
	wa, rpID, origin, err := s.relyingParty(r)
	if err != nil {
		return nil, nil, err
	}
	if rpID != c.RPID || origin != c.Origin {
		return nil, nil, expired
	}
	return &c, wa, nil
}

// passkeyBody reads the browser's credential, bounded.
// ceremonyAnswer takes the ceremony of kind under way for r's browser
// (used up even when the answer is bad) and reads the browser's answer.
func (s *Server) ceremonyAnswer(w http.ResponseWriter, r *http.Request, kind string) (*ceremony, *webauthn.WebAuthn, []byte, error) {
	c, wa, err := s.takeCeremony(w, r, kind)
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := passkeyBody(w, r)
	if err != nil {
		return nil, nil, nil, err
	}
	return c, wa, data, nil
}

func passkeyBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		return nil, errorf(http.StatusRequestEntityTooLarge, "the passkey's answer is over 64 KiB")
	}
	return data, nil
}

// passkeyCredentials returns the passkeys of account id as package
// webauthn has them.
func (s *Server) passkeyCredentials(r *http.Request, id string) ([]webauthn.Credential, error) {
	creds, err := s.store.Credentials(r.Context(), id)
	if err != nil {
		return nil, err
	}
	var out []webauthn.Credential
	for _, c := range creds {
		if c.Kind != store.CredentialPasskey {
			continue
		}
		var wc webauthn.Credential
		if err := json.Unmarshal([]byte(c.Data), &wc); err != nil {
			return nil, fmt.Errorf("reading passkey %s of account %s: %w", c.ID, id, err)
		}
		out = append(out, wc)
	}
	return out, nil
}

func (s *Server) passkeyRegisterBegin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if err := decode(w, r, &body, true); err != nil {
		s.fail(w, r, err)
		return
	}
	wa, rpID, origin, err := s.relyingParty(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c := &ceremony{Kind: "register", RPID: rpID, Origin: origin}
	user := &passkeyUser{}
	if a, err := s.currentAccount(r); err == nil {
		// A passkey more for the signed-in account.
		c.AccountID, user.id, user.name = a.ID, a.ID, a.Name
		if user.creds, err = s.passkeyCredentials(r, a.ID); err != nil {
			s.fail(w, r, err)
			return
		}
	} else if !errors.Is(err, account.ErrNoSession) {
		s.fail(w, r, err)
		return
	} else {
		name, err := s.accounts.svc.NameFree(r.Context(), body.Name)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		c.AccountID, c.Name, c.New = store.NewAccountID(), name, true
		user.id, user.name = c.AccountID, name
	}
	creation, session, err := wa.BeginRegistration(user,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(webauthn.Credentials(user.creds).CredentialDescriptors()))
	if err != nil {
		s.fail(w, r, fmt.Errorf("beginning a passkey registration: %w", err))
		return
	}
	c.Session = *session
	if err := s.keepCeremony(w, r, c); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, creation)
}

func (s *Server) passkeyRegisterFinish(w http.ResponseWriter, r *http.Request) {
	c, wa, data, err := s.ceremonyAnswer(w, r, "register")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(data)
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "the passkey's answer cannot be read: %s", clip(protocolMessage(err))))
		return
	}
	user := &passkeyUser{id: c.AccountID, name: c.Name}
	if !c.New {
		// The browser must still be signed in to the account it began
		// with.
		a, err := s.currentAccount(r)
		if err != nil || a.ID != c.AccountID {
			s.fail(w, r, account.ErrNoSession)
			return
		}
		user.name = a.Name
	}
	cred, err := wa.CreateCredential(user, c.Session, parsed)
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "the passkey was not accepted: %s", clip(protocolMessage(err))))
		return
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sc := store.Credential{ID: credentialID(cred.ID), AccountID: c.AccountID, Kind: store.CredentialPasskey, Data: string(stored)}
	if !c.New {
		if err := s.store.AddCredential(r.Context(), &sc); err != nil {
			s.fail(w, r, err)
			return
		}
		a, err := s.store.Account(r.Context(), c.AccountID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v, err := s.viewAccount(r, a)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{"account": v})
		return
	}
	signed, err := s.accounts.svc.SignUpPasskey(r.Context(), c.AccountID, c.Name, sc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.signedInAnswer(w, r, http.StatusCreated, signed)
}

func (s *Server) passkeySignInBegin(w http.ResponseWriter, r *http.Request) {
	wa, rpID, origin, err := s.relyingParty(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	assertion, session, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		s.fail(w, r, fmt.Errorf("beginning a passkey sign-in: %w", err))
		return
	}
	if err := s.keepCeremony(w, r, &ceremony{Kind: "signin", Session: *session, RPID: rpID, Origin: origin}); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, assertion)
}

// errPasskeySignIn is every failed passkey sign-in's answer.
var errPasskeySignIn = errorf(http.StatusUnauthorized, "this passkey does not sign in to any account here")

func (s *Server) passkeySignInFinish(w http.ResponseWriter, r *http.Request) {
	c, wa, data, err := s.ceremonyAnswer(w, r, "signin")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(data)
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "the passkey's answer cannot be read: %s", clip(protocolMessage(err))))
		return
	}
	var found *store.Account
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		a, err := s.store.Account(r.Context(), string(userHandle))
		if err != nil {
			return nil, err
		}
		if a.Status != store.AccountActive {
			return nil, errPasskeySignIn
		}
		creds, err := s.passkeyCredentials(r, a.ID)
		if err != nil {
			return nil, err
		}
		found = a
		return &passkeyUser{id: a.ID, name: a.Name, creds: creds}, nil
	}
	_, cred, err := wa.ValidatePasskeyLogin(handler, c.Session, parsed)
	if err != nil || found == nil {
		if err != nil && store.Unavailable(err) {
			s.fail(w, r, err)
			return
		}
		s.fail(w, r, errPasskeySignIn)
		return
	}
	if cred.Authenticator.CloneWarning {
		s.log.Warn("a passkey's signature counter went back: a cloned authenticator?", "account", found.ID)
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.store.UseCredential(r.Context(), credentialID(cred.ID), string(stored), time.Now()); err != nil {
		s.fail(w, r, err)
		return
	}
	signed, err := s.accounts.svc.StartSession(r.Context(), found)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.signedInAnswer(w, r, http.StatusOK, signed)
}

// credentialID is the store's id of a passkey.
func credentialID(id []byte) string { return "passkey-" + base64.RawURLEncoding.EncodeToString(id) }

// protocolMessage is what package protocol says went wrong, with its
// details.
func protocolMessage(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return strings.TrimSpace(pe.Details + " " + pe.DevInfo)
	}
	return err.Error()
}
