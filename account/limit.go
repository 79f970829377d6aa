package account

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sign-in limits. Password sign-ins on a name are counted in a token
// bucket kept in the Store, so that every instance counts them together:
// ten wrong tries on one instance leave none on another. So that an
// attacker's tries do not lock the name's owner out, a browser that
// signed in to the account before (it holds a device cookie: a random id
// of which the store keeps the SHA-256) is not counted on the name, nor
// is a passkey (which cannot be guessed).

// Rate is a token bucket's: PerSecond tokens come back each second, up
// to Burst.
type Rate struct {
	PerSecond float64
	Burst     int
}

// ErrTooMany: a limit is reached; a *LimitError says for how long.
var ErrTooMany = errors.New("too many sign-in attempts on this name; try again later")

// LimitError is a sign-in refused for a limit, and when to try again.
type LimitError struct{ Wait time.Duration }

func (e *LimitError) Error() string { return ErrTooMany.Error() }

// Is makes a *LimitError ErrTooMany.
func (e *LimitError) Is(target error) bool { return target == ErrTooMany }

// DeviceLife is how long a device is remembered from its last sign-in;
// KeptDevices how many of an account's devices are, the most recent.
const (
	DeviceLife  = 365 * 24 * time.Hour
	KeptDevices = 20
)

// take takes a token from b, filled at r, at now: the bucket it leaves
// and, when there was none to take, how long until there is.
func (r Rate) take(b Bucket, found bool, now time.Time) (Bucket, time.Duration) {
	if !found || now.Before(b.Updated) {
		b = Bucket{Tokens: float64(r.Burst), Updated: now}
	}
	tokens := min(float64(r.Burst), b.Tokens+now.Sub(b.Updated).Seconds()*r.PerSecond)
	if tokens < 1 {
		return Bucket{Tokens: tokens, Updated: now}, time.Duration((1 - tokens) / r.PerSecond * float64(time.Second))
	}
	return Bucket{Tokens: tokens - 1, Updated: now}, 0
}

// full is how long an untouched bucket takes to fill again.
func (r Rate) full() time.Duration {
	return time.Duration(float64(r.Burst) / r.PerSecond * float64(time.Second))
}

// takeNameToken counts a sign-in on the name whose key is key: a
// *LimitError when there is no token left.
func (s *Service) takeNameToken(ctx context.Context, key string) error {
	now := s.now().UTC().Truncate(time.Millisecond)
	var wait time.Duration
	err := s.st.TakeToken(ctx, "name:"+key, now.Add(-s.names.full()), func(b Bucket, found bool) Bucket {
		b, wait = s.names.take(b, found, now)
		return b
	})
	if err != nil {
		return fmt.Errorf("counting a sign-in: %w", err)
	}
	if wait > 0 {
		return &LimitError{Wait: wait}
	}
	return nil
}

// knownDevice reports whether device, a device cookie's id, is one of
// account a's (a may be nil).
func (s *Service) knownDevice(ctx context.Context, device string, a *Account) (bool, error) {
	if a == nil || !validSessionID(device) {
		return false, nil
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	id, err := s.st.DeviceAccount(ctx, HashSessionID(device), now.Add(-DeviceLife), now)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil && id == a.ID, err
}

// addDevice remembers the browser of a new session of signed, unless the
// device it holds is known already: a new device, whose id it gives the
// browser.
func (s *Service) addDevice(ctx context.Context, signed *Signed, known bool) error {
	if known {
		return nil
	}
	id, hash := NewSessionID()
	at := s.now().UTC().Truncate(time.Millisecond)
	if err := s.st.AddDevice(ctx, &Device{Hash: hash, AccountID: signed.Account.ID, Created: at, Used: at}, KeptDevices, at.Add(-DeviceLife)); err != nil {
		return fmt.Errorf("remembering a device: %w", err)
	}
	signed.Device = id
	return nil
}
