package account

import (
	"context"
	"errors"
	"time"
)

// Store is what the accounts need of storage; package store implements
// it. Each method is one transaction. An answer about the data rather
// than a failure is an error wrapping ErrNotFound or ErrExists.
type Store interface {
	// CreateAccount stores a with its credentials, and s when not nil,
	// all or none, setting a.ID (when "") and a.Created. A name whose key
	// or skeleton an account has is ErrExists.
	CreateAccount(ctx context.Context, a *Account, creds []Credential, s *Session) error
	// Account returns account id; AccountByKey the account named key;
	// AccountBySkeleton one whose name has that skeleton.
	Account(ctx context.Context, id string) (*Account, error)
	AccountByKey(ctx context.Context, key string) (*Account, error)
	AccountBySkeleton(ctx context.Context, skeleton string) (*Account, error)
	// Credentials returns the credentials of account id, oldest first.
	Credentials(ctx context.Context, accountID string) ([]Credential, error)
	// AddCredential stores a new credential of an active account
	// (ErrNotFound for another); an ID stored already is
	// ErrCredentialExists, here and in CreateAccount.
	AddCredential(ctx context.Context, c *Credential) error
	// UseCredential records that credential id was used at t, and sets
	// its data.
	UseCredential(ctx context.Context, id, data string, t time.Time) error
	// CreateSession stores s, for an active account, and forgets the
	// sessions that expired.
	CreateSession(ctx context.Context, s *Session) error
	// SessionAccount returns the active account of the session whose id
	// hashes to hash and that has not expired at now.
	SessionAccount(ctx context.Context, hash string, now time.Time) (*Account, error)
	// DeleteSession ends one session; DeleteSessions every session of
	// an account, and returns their hashes.
	DeleteSession(ctx context.Context, hash string) error
	DeleteSessions(ctx context.Context, accountID string) ([]string, error)
	// DisableAccount stops account id from signing in, ending its
	// sessions; EnableAccount lets it sign in again.
	DisableAccount(ctx context.Context, id string) error
	EnableAccount(ctx context.Context, id string) error
	// AnonymiseAccount deletes the name, credentials, sessions and
	// devices of account id; what refers to it is kept.
	AnonymiseAccount(ctx context.Context, id string) error
	// PutChallenge keeps data under hash until expires; TakeChallenge
	// returns it once, before it expires at now.
	PutChallenge(ctx context.Context, hash, data string, expires time.Time) error
	TakeChallenge(ctx context.Context, hash string, now time.Time) (string, error)
	// CreateBot stores a bot's account a with the hash of its token;
	// BotAccount returns the active bot whose token hashes to tokenHash.
	CreateBot(ctx context.Context, a *Account, tokenHash string) error
	BotAccount(ctx context.Context, tokenHash string) (*Account, error)
	// TakeToken reads the bucket under key (found false when there is
	// none), hands it to take and keeps what take returns, all in one
	// transaction, so that instances sharing the storage count together.
	// Buckets untouched since before forget may be dropped.
	TakeToken(ctx context.Context, key string, forget time.Time, take func(b Bucket, found bool) Bucket) error
	// AddDevice stores a device of an active account, and forgets those
	// of its devices used before forget and all but the keep most
	// recently used. DeviceAccount returns the ID of the active account
	// of the device whose id hashes to hash, if it was used since since,
	// and records its use at at.
	AddDevice(ctx context.Context, d *Device, keep int, forget time.Time) error
	DeviceAccount(ctx context.Context, hash string, since, at time.Time) (string, error)
}

// The storage's answers about the data; errors.Is tells them.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already stored")
	// ErrCredentialExists: a credential's ID is stored already, of
	// whichever account; the message is the user's answer.
	ErrCredentialExists = errors.New("this passkey is registered already; sign in with it")
)
