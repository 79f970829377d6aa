package account

// Passkeys (WebAuthn): registering one, for a new account or the signed-in
// one, and signing in with one. Each ceremony is two steps: begin, whose
// challenge the Store keeps for a few minutes under the hash of a random
// id that the browser holds, and finish, which takes the challenge back
// once. The relying party is the host the browser's page was loaded from.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// CeremonyLife is how long a ceremony's challenge is kept.
const CeremonyLife = 5 * time.Minute

// Errors of the passkey ceremonies, for the caller to map.
var (
	// ErrCeremony: no ceremony under way for the id given, or it expired,
	// or it is of the other kind, or it began at another origin.
	ErrCeremony = errors.New("no passkey ceremony under way, or it took too long; start again")
	// ErrNoPasskeys: passkeys cannot work at this origin (an IP address);
	// the error says why.
	ErrNoPasskeys = errors.New("passkeys cannot be used")
	// ErrPasskeyAnswer: the browser's answer cannot be read, or does not
	// check against the ceremony; the error says why.
	ErrPasskeyAnswer = errors.New("the passkey's answer was not accepted")
	// ErrPasskeySignIn: no active account has this passkey, or its
	// signature does not check.
	ErrPasskeySignIn = errors.New("this passkey does not sign in to any account here")
	// ErrPasskeyCloned: the passkey's signature counter went backwards,
	// so that two copies of it may exist (WebAuthn, 7.2 step 21): it is
	// flagged, and signs in no more.
	ErrPasskeyCloned = errors.New("this passkey may have been copied (its signature counter went backwards), so it no longer signs in; sign in another way, then add a new passkey")
)

// Origin is where the browser's page is.
type Origin struct {
	Secure bool   // over HTTPS
	Host   string // as the browser addressed it: the host and any port
}

func (o Origin) String() string {
	if o.Secure {
		return "https://" + o.Host
	}
	return "http://" + o.Host
}

// PasskeyRequest is a step of a passkey ceremony, from a browser.
type PasskeyRequest struct {
	Origin   Origin
	Session  string // the browser's session id, "" if none
	Device   string // the browser's device id, "" if none
	Name     string // a new account's name, to begin registering
	Ceremony string // the ceremony's id, to finish
	Answer   []byte // the browser's credential as JSON, to finish
}

// Begun is a ceremony begun: the options to hand to the browser's
// navigator.credentials, and the ceremony's id, for the browser to hold
// until Expires.
type Begun struct {
	Options any
	ID      string
	Expires time.Time
}

// Registered is a passkey registered: to the signed-in account, or to a
// new one, with its first session (Signed).
type Registered struct {
	Account *Account
	Signed  *Signed // for a new account
}

// ceremony is what the store keeps of a ceremony between its steps.
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

// relyingParty returns the WebAuthn relying party of origin o, and its ID:
// the host, without its port.
func relyingParty(o Origin) (*webauthn.WebAuthn, string, error) {
	host := o.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	rpID := strings.ToLower(strings.Trim(host, "[]"))
	if net.ParseIP(rpID) != nil {
		return nil, "", fmt.Errorf("%w at an IP address (%s): open the site by its name, such as localhost", ErrNoPasskeys, clipText(rpID))
	}
	w, err := webauthn.New(&webauthn.Config{RPID: rpID, RPDisplayName: "En Dodoi", RPOrigins: []string{o.String()}})
	if err != nil {
		return nil, "", fmt.Errorf("%w on %s: %v", ErrNoPasskeys, clipText(o.Host), err)
	}
	return w, rpID, nil
}

// keepCeremony stores c and returns its id and expiry.
func (s *Service) keepCeremony(ctx context.Context, c *ceremony, options any) (*Begun, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("keeping a passkey ceremony: %w", err)
	}
	id, hash := NewSessionID()
	expires := s.now().Add(CeremonyLife)
	if err := s.st.PutChallenge(ctx, hash, string(data), expires); err != nil {
		return nil, err
	}
	return &Begun{Options: options, ID: id, Expires: expires}, nil
}

// takeCeremony returns the ceremony of kind that req names, once, and the
// relying party it began with.
func (s *Service) takeCeremony(ctx context.Context, req PasskeyRequest, kind string) (*ceremony, *webauthn.WebAuthn, error) {
	if !validSessionID(req.Ceremony) {
		return nil, nil, ErrCeremony
	}
	data, err := s.st.TakeChallenge(ctx, HashSessionID(req.Ceremony), s.now())
	if errors.Is(err, ErrNotFound) {
		return nil, nil, ErrCeremony
	}
	if err != nil {
		return nil, nil, err
	}
	var c ceremony
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return nil, nil, fmt.Errorf("reading a passkey ceremony: %w", err)
	}
	if c.Kind != kind {
		return nil, nil, ErrCeremony
	}
	wa, rpID, err := relyingParty(req.Origin)
	if err != nil {
		return nil, nil, err
	}
	if rpID != c.RPID || req.Origin.String() != c.Origin {
		return nil, nil, ErrCeremony
	}
	return &c, wa, nil
}

// passkeys returns the passkeys of account id as package webauthn has
// them.
func (s *Service) passkeys(ctx context.Context, id string) ([]webauthn.Credential, error) {
	creds, err := s.st.Credentials(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []webauthn.Credential
	for _, c := range creds {
		if c.Kind != CredentialPasskey {
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

// BeginRegistration begins registering a passkey: to the account the
// browser is signed in to, else to a new account named req.Name (which
// must be free).
func (s *Service) BeginRegistration(ctx context.Context, req PasskeyRequest) (*Begun, error) {
	wa, rpID, err := relyingParty(req.Origin)
	if err != nil {
		return nil, err
	}
	c := &ceremony{Kind: "register", RPID: rpID, Origin: req.Origin.String()}
	user := &passkeyUser{}
	if a, err := s.Who(ctx, req.Session); err == nil {
		// A passkey more for the signed-in account.
		c.AccountID, user.id, user.name = a.ID, a.ID, a.Name
		if user.creds, err = s.passkeys(ctx, a.ID); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, ErrNoSession) {
		return nil, err
	} else {
		a, err := s.newAccount(ctx, req.Name)
		if err != nil {
			return nil, err
		}
		c.AccountID, c.Name, c.New = NewAccountID(), a.Name, true
		user.id, user.name = c.AccountID, a.Name
	}
	creation, session, err := wa.BeginRegistration(user,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(webauthn.Credentials(user.creds).CredentialDescriptors()))
	if err != nil {
		return nil, fmt.Errorf("beginning a passkey registration: %w", err)
	}
	c.Session = *session
	return s.keepCeremony(ctx, c, creation)
}

// FinishRegistration checks the browser's new credential against the
// ceremony req names and stores it: for a new account, made now with a
// session, or for the account the ceremony began with, to which the
// browser must still be signed in.
func (s *Service) FinishRegistration(ctx context.Context, req PasskeyRequest) (*Registered, error) {
	c, wa, err := s.takeCeremony(ctx, req, "register")
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(req.Answer)
	if err != nil {
		return nil, fmt.Errorf("%w: it cannot be read: %s", ErrPasskeyAnswer, protocolMessage(err))
	}
	user := &passkeyUser{id: c.AccountID, name: c.Name}
	if !c.New {
		a, err := s.Who(ctx, req.Session)
		if err != nil || a.ID != c.AccountID {
			return nil, ErrNoSession
		}
		user.name = a.Name
	}
	cred, err := wa.CreateCredential(user, c.Session, parsed)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrPasskeyAnswer, protocolMessage(err))
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	sc := Credential{ID: passkeyID(cred.ID), AccountID: c.AccountID, Kind: CredentialPasskey, Data: string(stored)}
	if c.New {
		a, err := s.newAccount(ctx, c.Name) // it may have been taken since
		if err != nil {
			return nil, err
		}
		a.ID = c.AccountID
		signed, err := s.create(ctx, a, sc, "signing up with a passkey")
		if err != nil {
			return nil, err
		}
		return &Registered{Account: a, Signed: signed}, nil
	}
	switch err := s.st.AddCredential(ctx, &sc); {
	case errors.Is(err, ErrCredentialExists):
		return nil, ErrCredentialExists
	case errors.Is(err, ErrNotFound):
		return nil, ErrNoSession // the account was disabled or deleted meanwhile
	case err != nil:
		return nil, err
	}
	a, err := s.st.Account(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	return &Registered{Account: a}, nil
}

// BeginSignIn begins a sign-in with a passkey: the browser offers those
// it has for the site.
func (s *Service) BeginSignIn(ctx context.Context, req PasskeyRequest) (*Begun, error) {
	wa, rpID, err := relyingParty(req.Origin)
	if err != nil {
		return nil, err
	}
	assertion, session, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, fmt.Errorf("beginning a passkey sign-in: %w", err)
	}
	return s.keepCeremony(ctx, &ceremony{Kind: "signin", Session: *session, RPID: rpID, Origin: req.Origin.String()}, assertion)
}

// FinishSignIn checks the browser's signature against the ceremony req
// names and starts a session of the passkey's account. A passkey whose
// signature counter went backwards is flagged, and refused from then on
// (ErrPasskeyCloned). Passkeys are not limited per name: they cannot be
// guessed.
func (s *Service) FinishSignIn(ctx context.Context, req PasskeyRequest) (*Signed, error) {
	c, wa, err := s.takeCeremony(ctx, req, "signin")
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(req.Answer)
	if err != nil {
		return nil, fmt.Errorf("%w: it cannot be read: %s", ErrPasskeyAnswer, protocolMessage(err))
	}
	var found *Account
	var failed error // the store's, rather than the passkey's
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		a, err := s.st.Account(ctx, string(userHandle))
		if err != nil {
			if !errors.Is(err, ErrNotFound) {
				failed = err
			}
			return nil, err
		}
		if a.Status != Active {
			return nil, ErrPasskeySignIn
		}
		creds, err := s.passkeys(ctx, a.ID)
		if err != nil {
			failed = err
			return nil, err
		}
		found = a
		return &passkeyUser{id: a.ID, name: a.Name, creds: creds}, nil
	}
	_, cred, err := wa.ValidatePasskeyLogin(handler, c.Session, parsed)
	if failed != nil {
		return nil, failed
	}
	if err != nil || found == nil {
		return nil, ErrPasskeySignIn
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	if err := s.st.UseCredential(ctx, passkeyID(cred.ID), string(stored), s.now()); err != nil {
		return nil, err
	}
	if cred.Authenticator.CloneWarning {
		s.log.Warn("refused a passkey whose signature counter went back: a cloned authenticator?", "account", found.ID)
		return nil, ErrPasskeyCloned
	}
	signed, err := s.StartSession(ctx, found)
	if err != nil {
		return nil, err
	}
	known, err := s.knownDevice(ctx, req.Device, found)
	if err != nil {
		return nil, err
	}
	return signed, s.addDevice(ctx, signed, known)
}

// passkeyID is the store's id of a passkey.
func passkeyID(id []byte) string { return "passkey-" + base64.RawURLEncoding.EncodeToString(id) }

// protocolMessage is what package protocol says went wrong, with its
// details, clipped.
func protocolMessage(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return clipText(strings.TrimSpace(pe.Details + " " + pe.DevInfo))
	}
	return clipText(err.Error())
}

// clipText shortens a client's text quoted in an error message.
func clipText(s string) string {
	const most = 200
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
