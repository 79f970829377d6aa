package play

import (
	"context"
	"sync"
)

// The changes of a game are made one at a time, each stored and told
// (OnChange) before the next begins: With runs them under the game's lock,
// and NextGame the requests on a series under the series'.

// locks holds a lock for each game (or series) in use. An entry lives only
// while a caller holds or awaits it, so the map stays as small as the
// number of games in play at that moment.
type locks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

type keyLock struct {
	sync.Mutex
	users int
}

// lock waits for key's lock; it returns the function that frees it.
func (l *locks) lock(key string) func() {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*keyLock{}
	}
	kl := l.m[key]
	if kl == nil {
		kl = &keyLock{}
		l.m[key] = kl
	}
	kl.users++
	l.mu.Unlock()
	kl.Lock()
	return func() {
		kl.Unlock()
		l.mu.Lock()
		if kl.users--; kl.users == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
}

// With runs f on game id holding the game's lock: whatever f changes, and
// answers, no other change of the game falls in between. The game is the
// one kept in memory since its last change (memory.go), or read from the
// store once when it is not kept; a game f leaves with an error other
// than a refusal of play's (a change that failed to be stored, which may
// have left it half changed) is forgotten, and read again next time.
func (t *Table) With(ctx context.Context, id string, f func(g *Game) error) error {
	defer t.locks.lock(id)()
	g, err := t.kept(ctx, id)
	if err != nil {
		return err
	}
	err = f(g)
	if err != nil && !refusal(err) {
		t.Forget(id)
	} else {
		t.done(g)
	}
	return err
}

// Busy returns the number of games (and series) whose lock is held or
// awaited now.
func (t *Table) Busy() int {
	t.locks.mu.Lock()
	defer t.locks.mu.Unlock()
	return len(t.locks.m)
}
