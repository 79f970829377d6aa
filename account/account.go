// Package account keeps the site's optional accounts: a username and a
// password or passkeys, the sessions of the browsers signed in to them,
// and bots' tokens. It checks names and passwords, hashes passwords, runs
// the passkey (WebAuthn) ceremonies, limits sign-ins, makes and checks
// session ids, and carries each change to its Store, which package store
// implements; it speaks no HTTP: package server decodes each request,
// calls one method here and encodes the answer.
//
// Usernames follow the PRECIS UsernameCaseMapped profile (RFC 8265): two
// names that differ only in case or width are the same name, and so are
// two whose confusable skeletons (Unicode's UTS #39) are the same.
// Passwords are prepared by the OpaqueString profile, refused when zxcvbn
// (a strength estimator with lists of common passwords, names and words)
// or this package's own checks find them too guessable, and hashed with
// argon2id. A session id is 256 random bits; the store keeps only its
// SHA-256, and so for devices' and bots' ids.
package account

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// SessionLife is how long a session lasts from sign-in.
const SessionLife = 30 * 24 * time.Hour

// Errors of the account's flows, for the caller to map.
var (
	// ErrBadName and ErrBadPassword: the text given cannot be a username
	// or a password here; the error says why.
	ErrBadName     = errors.New("bad username")
	ErrBadPassword = errors.New("bad password")
	// ErrNameTaken: an account has that name, or one that looks the same.
	ErrNameTaken = errors.New("that username is taken")
	// ErrSignIn: no such name, or not its password, or an account that
	// cannot sign in: the caller cannot tell which, by design.
	ErrSignIn = errors.New("wrong username or password")
	// ErrNoSession: no session, or an expired one.
	ErrNoSession = errors.New("not signed in")
)

// Service carries out the account flows over a store.
type Service struct {
	st     Store
	hasher *Hasher
	now    func() time.Time
	log    *slog.Logger
	dummy  string // a hash to check against when there is none (Hasher.decoy)
	names  Rate   // password sign-ins on a name from devices it does not know
}

// Options tune a Service.
type Options struct {
	// NameRate bounds the password sign-ins on one name, from every
	// client and instance together, but those from the devices that
	// signed in to its account before (default 1 a minute, bursts of 10).
	NameRate Rate
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log is where what the site's operator should know goes (default
	// slog.Default()).
	Log *slog.Logger
}

// New returns the service over st, hashing passwords with h, with the
// default Options.
func New(st Store, h *Hasher) *Service { return NewWithOptions(st, h, Options{}) }

// NewWithOptions returns the service over st, hashing passwords with h.
func NewWithOptions(st Store, h *Hasher, o Options) *Service {
	if o.NameRate.PerSecond <= 0 || o.NameRate.Burst <= 0 {
		o.NameRate = Rate{PerSecond: 1.0 / 60, Burst: 10}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	s := &Service{st: st, hasher: h, now: o.Now, log: o.Log, names: o.NameRate}
	if h != nil {
		s.dummy = h.decoy()
	}
	return s
}

// Signed is an account with the id of a new session of it, for its
// cookie, and the id of the browser's device cookie when it gets a new
// one.
type Signed struct {
	Account *Account
	Session string // the session id: 256 random bits, base64url
	Expires time.Time
	Device  string // a new device id (DeviceLife), or ""
}

func (s *Service) newSession() (*Session, string) {
	id, hash := NewSessionID()
	at := s.now().UTC().Truncate(time.Millisecond)
	return &Session{Hash: hash, Created: at, Expires: at.Add(SessionLife)}, id
}

// newAccount checks name for a new account: ErrBadName, or ErrNameTaken
// when an account has it or one that looks the same (its Skeleton).
func (s *Service) newAccount(ctx context.Context, name string) (*Account, error) {
	display, key, err := ParseUsername(name)
	if err != nil {
		return nil, err
	}
	a := &Account{Name: display, Key: key, Skeleton: Skeleton(key)}
	if _, err := s.st.AccountByKey(ctx, key); err == nil {
		return nil, ErrNameTaken
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if _, err := s.st.AccountBySkeleton(ctx, a.Skeleton); err == nil {
		return nil, fmt.Errorf("%w: it looks like another player's name", ErrNameTaken)
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return a, nil
}

// create stores account a with cred and a new session of it.
func (s *Service) create(ctx context.Context, a *Account, cred Credential, what string) (*Signed, error) {
	sess, id := s.newSession()
	if err := s.st.CreateAccount(ctx, a, []Credential{cred}, sess); err != nil {
		if errors.Is(err, ErrCredentialExists) {
			return nil, ErrCredentialExists
		}
		if errors.Is(err, ErrExists) {
			return nil, ErrNameTaken
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	signed := &Signed{Account: a, Session: id, Expires: sess.Expires}
	return signed, s.addDevice(ctx, signed, false)
}

// SignUp makes an account named name with password, and a session of it.
func (s *Service) SignUp(ctx context.Context, name, password string) (*Signed, error) {
	a, err := s.newAccount(ctx, name)
	if err != nil {
		return nil, err
	}
	pw, err := CheckPassword(password, a.Name)
	if err != nil {
		return nil, err
	}
	hashed, err := s.hasher.Hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, a, Credential{ID: newCredentialID(), Kind: CredentialPassword, Data: hashed}, "signing up")
}

// PasswordSignIn is a sign-in with a password, from a browser holding
// the device id Device ("" for none).
type PasswordSignIn struct {
	Name, Password string
	Device         string
}

// SignIn checks name and password and starts a session. Whatever is
// wrong, the answer is ErrSignIn after one password hash: an unknown name
// costs the same as a wrong password. Sign-ins on a name are limited
// (limit.go): beyond the limit the answer is a *LimitError, before any
// hash, but from a device that signed in to the name's account before.
func (s *Service) SignIn(ctx context.Context, in PasswordSignIn) (*Signed, error) {
	stored := s.dummy
	var a *Account
	known := false
	_, key, nameErr := ParseUsername(in.Name)
	if nameErr == nil {
		var err error
		a, err = s.st.AccountByKey(ctx, key)
		switch {
		case errors.Is(err, ErrNotFound):
			a = nil
		case err != nil:
			return nil, err
		}
		if known, err = s.knownDevice(ctx, in.Device, a); err != nil {
			return nil, err
		}
		if !known {
			if err := s.takeNameToken(ctx, key); err != nil {
				return nil, err
			}
		}
	}
	if a != nil {
		creds, err := s.st.Credentials(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range creds {
			if c.Kind == CredentialPassword {
				stored = c.Data
			}
		}
	}
	ok, err := s.hasher.Verify(ctx, PreparePassword(in.Password), stored)
	if err != nil {
		return nil, err
	}
	if !ok || a == nil || stored == s.dummy || a.Status != Active {
		return nil, ErrSignIn
	}
	signed, err := s.StartSession(ctx, a)
	if err != nil {
		return nil, err
	}
	return signed, s.addDevice(ctx, signed, known)
}

// StartSession starts a new session of account a.
func (s *Service) StartSession(ctx context.Context, a *Account) (*Signed, error) {
	sess, id := s.newSession()
	sess.AccountID = a.ID
	if err := s.st.CreateSession(ctx, sess); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, ErrSignIn
		}
		return nil, fmt.Errorf("starting a session: %w", err)
	}
	return &Signed{Account: a, Session: id, Expires: sess.Expires}, nil
}

// Who returns the account signed in with session id (ErrNoSession if
// none).
func (s *Service) Who(ctx context.Context, id string) (*Account, error) {
	if !validSessionID(id) {
		return nil, ErrNoSession
	}
	a, err := s.st.SessionAccount(ctx, HashSessionID(id), s.now())
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNoSession
	}
	return a, err
}

// Summary is what an account holds, as its owner sees it.
type Summary struct {
	Password bool // it has a password
	Passkeys int  // how many passkeys
}

// Summarise says what account a holds.
func (s *Service) Summarise(ctx context.Context, a *Account) (Summary, error) {
	var sum Summary
	creds, err := s.st.Credentials(ctx, a.ID)
	if err != nil {
		return sum, err
	}
	for _, c := range creds {
		switch c.Kind {
		case CredentialPassword:
			sum.Password = true
		case CredentialPasskey:
			sum.Passkeys++
		}
	}
	return sum, nil
}

// SignOut ends session id, and says what ended.
func (s *Service) SignOut(ctx context.Context, id string) (Ended, error) {
	if !validSessionID(id) {
		return Ended{}, nil
	}
	hash := HashSessionID(id)
	var e Ended
	if a, err := s.st.SessionAccount(ctx, hash, s.now()); err == nil {
		e.Account = a.ID
	}
	if err := s.st.DeleteSession(ctx, hash); err != nil {
		return Ended{}, err
	}
	e.Sessions = []string{hash}
	return e, nil
}

// SignOutEverywhere ends every session of account id, and says which.
func (s *Service) SignOutEverywhere(ctx context.Context, accountID string) (Ended, error) {
	hashes, err := s.st.DeleteSessions(ctx, accountID)
	if err != nil {
		return Ended{}, err
	}
	return Ended{Account: accountID, Sessions: hashes, All: true}, nil
}

// Delete anonymises account id: its name, credentials, sessions and
// devices go, its games stay.
func (s *Service) Delete(ctx context.Context, accountID string) (Ended, error) {
	if err := s.st.AnonymiseAccount(ctx, accountID); err != nil {
		return Ended{}, err
	}
	return Ended{Account: accountID, All: true, Stopped: true}, nil
}

// Admin changes account name as action says, "disable", "enable" or
// "anonymise", for the site's operator, and says what ended.
func (s *Service) Admin(ctx context.Context, action, name string) (Ended, error) {
	_, key, err := ParseUsername(name)
	if err != nil {
		return Ended{}, err
	}
	a, err := s.st.AccountByKey(ctx, key)
	if err != nil {
		return Ended{}, fmt.Errorf("account %q: %w", name, err)
	}
	e := Ended{Account: a.ID, All: true, Stopped: true}
	switch action {
	case "disable":
		err = s.st.DisableAccount(ctx, a.ID)
	case "enable":
		err, e = s.st.EnableAccount(ctx, a.ID), Ended{}
	case "anonymise", "anonymize":
		err = s.st.AnonymiseAccount(ctx, a.ID)
	default:
		return Ended{}, fmt.Errorf("unknown action %q: want disable, enable or anonymise", action)
	}
	if err != nil {
		return Ended{}, fmt.Errorf("%s account %q: %w", action, name, err)
	}
	return e, nil
}
