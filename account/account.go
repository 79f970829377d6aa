// Package account keeps the site's optional accounts: a username and a
// password or passkeys, and the sessions of the browsers signed in to
// them. It checks names and passwords, hashes passwords, makes and checks
// session ids, and carries each change to the store; package server
// speaks HTTP for it.
//
// Usernames follow the PRECIS UsernameCaseMapped profile (RFC 8265): two
// names that differ only in case or width are the same name. Passwords
// are prepared by the OpaqueString profile, refused when zxcvbn (a
// strength estimator with lists of common passwords, names and words)
// finds them too guessable, and hashed with argon2id. A session id is
// 256 random bits; the store keeps only its SHA-256.
package account

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/endodoi/endodoi/store"
)

// SessionLife is how long a session lasts from sign-in.
const SessionLife = 30 * 24 * time.Hour

// Errors of the account's flows, for the caller to map.
var (
	// ErrBadName and ErrBadPassword: the text given cannot be a username
	// or a password here; the error says why.
	ErrBadName     = errors.New("bad username")
	ErrBadPassword = errors.New("bad password")
	// ErrNameTaken: an account has that name.
	ErrNameTaken = errors.New("that username is taken")
	// ErrSignIn: no such name, or not its password, or an account that
	// cannot sign in: the caller cannot tell which, by design.
	ErrSignIn = errors.New("wrong username or password")
	// ErrNoSession: no session, or an expired one.
	ErrNoSession = errors.New("not signed in")
)

// Service carries out the account flows over a store.
type Service struct {
	st     store.Accounts
	hasher *Hasher
	now    func() time.Time
	dummy  string // a hash to check against when there is none
}

// New returns the service over st, hashing passwords with h.
func New(st store.Accounts, h *Hasher) *Service {
	return &Service{st: st, hasher: h, now: time.Now, dummy: h.hash("not a password of anyone", saltFor("dummy"))}
}

// Signed is an account with the id of a new session of it, for its
// cookie.
type Signed struct {
	Account *store.Account
	Session string // the session id: 256 random bits, base64url
	Expires time.Time
}

func (s *Service) newSession() (*store.Session, string) {
	id, hash := NewSessionID()
	at := s.now().UTC().Truncate(time.Millisecond)
	return &store.Session{Hash: hash, Created: at, Expires: at.Add(SessionLife)}, id
}

// SignUp makes an account named name with password, and a session of it.
func (s *Service) SignUp(ctx context.Context, name, password string) (*Signed, error) {
	display, key, err := ParseUsername(name)
	if err != nil {
		return nil, err
	}
	pw, err := CheckPassword(password, display)
	if err != nil {
		return nil, err
	}
	if _, err := s.st.AccountByKey(ctx, key); err == nil {
		// Spare the hash; the insert below settles a race.
		return nil, ErrNameTaken
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	hashed, err := s.hasher.Hash(ctx, pw)
	if err != nil {
		return nil, err
	}
	a := &store.Account{Name: display, Key: key}
	sess, id := s.newSession()
	cred := store.Credential{ID: newCredentialID(), Kind: store.CredentialPassword, Data: hashed}
	if err := s.st.CreateAccount(ctx, a, []store.Credential{cred}, sess); err != nil {
		if errors.Is(err, store.ErrExists) {
			return nil, ErrNameTaken
		}
		return nil, fmt.Errorf("signing up: %w", err)
	}
	return &Signed{Account: a, Session: id, Expires: sess.Expires}, nil
}

// LimitKey is the key to limit sign-in attempts on a name by: the name's
// own whether or not an account has it, so that limits tell nothing, and
// "" for what cannot be a name.
func LimitKey(name string) string {
	if _, key, err := ParseUsername(name); err == nil {
		return key
	}
	return ""
}

// SignIn checks name and password and starts a session. Whatever is
// wrong, the answer is ErrSignIn after one password hash: an unknown name
// costs the same as a wrong password.
func (s *Service) SignIn(ctx context.Context, name, password string) (*Signed, error) {
	stored := s.dummy
	var a *store.Account
	_, key, nameErr := ParseUsername(name)
	if nameErr == nil {
		var err error
		a, err = s.st.AccountByKey(ctx, key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			a = nil
		case err != nil:
			return nil, err
		}
	}
	if a != nil {
		creds, err := s.st.Credentials(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range creds {
			if c.Kind == store.CredentialPassword {
				stored = c.Data
			}
		}
	}
	ok, err := s.hasher.Verify(ctx, PreparePassword(password), stored)
	if err != nil {
		return nil, err
	}
	if !ok || a == nil || stored == s.dummy || a.Status != store.AccountActive {
		return nil, ErrSignIn
	}
	return s.StartSession(ctx, a)
}

// StartSession starts a new session of account a.
func (s *Service) StartSession(ctx context.Context, a *store.Account) (*Signed, error) {
	sess, id := s.newSession()
	sess.AccountID = a.ID
	if err := s.st.CreateSession(ctx, sess); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrSignIn
		}
		return nil, fmt.Errorf("starting a session: %w", err)
	}
	return &Signed{Account: a, Session: id, Expires: sess.Expires}, nil
}

// Who returns the account signed in with session id (ErrNoSession if
// none).
func (s *Service) Who(ctx context.Context, id string) (*store.Account, error) {
	if !validSessionID(id) {
		return nil, ErrNoSession
	}
	a, err := s.st.SessionAccount(ctx, HashSessionID(id), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	return a, err
}

// SignOut ends session id.
func (s *Service) SignOut(ctx context.Context, id string) error {
	if !validSessionID(id) {
		return nil
	}
	return s.st.DeleteSession(ctx, HashSessionID(id))
}

// SignOutEverywhere ends every session of account id, and says how many.
func (s *Service) SignOutEverywhere(ctx context.Context, accountID string) (int, error) {
	return s.st.DeleteSessions(ctx, accountID)
}

// Delete anonymises account id: its name, credentials and sessions go,
// its games stay.
func (s *Service) Delete(ctx context.Context, accountID string) error {
	return s.st.AnonymiseAccount(ctx, accountID)
}

// byName returns the account named name, for the site's operator.
func (s *Service) byName(ctx context.Context, name string) (*store.Account, error) {
	_, key, err := ParseUsername(name)
	if err != nil {
		return nil, err
	}
	return s.st.AccountByKey(ctx, key)
}

// AdminCommand opens the store of the server (dbURL, or the SQLite
// database in dataDir), changes account name as action says (see
// Service.Admin) and tells out, for the site's operator.
func AdminCommand(ctx context.Context, dbURL, dataDir, action, name string, out io.Writer) error {
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &Service{st: st}
	a, _ := svc.byName(ctx, name) // before: a deleted account has no name
	if err := svc.Admin(ctx, action, name); err != nil {
		return err
	}
	if a != nil && action != "enable" {
		// The servers close its live connections at once.
		if err := Announce(ctx, st, Revocation{Account: a.ID}); err != nil {
			return err
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "account %s: %s done\n", name, action)
	return err
}

// Admin changes account name as action says: "disable", "enable" or
// "anonymise", for the site's operator.
func (s *Service) Admin(ctx context.Context, action, name string) error {
	a, err := s.byName(ctx, name)
	if err != nil {
		return fmt.Errorf("account %q: %w", name, err)
	}
	switch action {
	case "disable":
		err = s.st.DisableAccount(ctx, a.ID)
	case "enable":
		err = s.st.EnableAccount(ctx, a.ID)
	case "anonymise", "anonymize":
		err = s.st.AnonymiseAccount(ctx, a.ID)
	default:
		return fmt.Errorf("unknown action %q: want disable, enable or anonymise", action)
	}
	if err != nil {
		return fmt.Errorf("%s account %q: %w", action, name, err)
	}
	return nil
}
