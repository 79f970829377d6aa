package account

import (
	"errors"
	"time"
)

// Sign-in limits: password sign-ins on a name are counted in a token
// bucket per name, kept by this instance.

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

// maxBuckets bounds the names counted at once: past it, the names whose
// buckets are full are forgotten, and if none is, the others share one.
const maxBuckets = 100_000

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

// takeNameToken counts a sign-in on the name whose key is key: a
// *LimitError when there is no token left.
func (s *Service) takeNameToken(key string) error {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	b, found := s.buckets[key]
	if !found && len(s.buckets) >= maxBuckets {
		for k, b := range s.buckets {
			if nb, _ := s.names.take(*b, true, now); nb.Tokens >= float64(s.names.Burst)-1 {
				delete(s.buckets, k)
			}
		}
		if len(s.buckets) >= maxBuckets {
			key = ""
			b, found = s.buckets[key]
		}
	}
	if !found {
		b = &Bucket{}
		s.buckets[key] = b
	}
	nb, wait := s.names.take(*b, found, now)
	*b = nb
	if wait > 0 {
		return &LimitError{Wait: wait}
	}
	return nil
}
