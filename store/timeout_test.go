package store

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// callWait bounds how long the test waits for a call that should have
// failed long before: a call still waiting then would have waited for
// ever.
const callWait = 20 * time.Second

// With the link to the database gone silent (a blackhole: no answer, no
// refusal), every kind of call fails within its limit rather than waiting
// for an answer that never comes: a read, a read on one snapshot, a
// write, a game's change, a notice, the revisions, a ping. Once the link is back, calls
// succeed again.
func TestPostgresCallsAreBounded(t *testing.T) {
	u, err := url.Parse(newPostgresDB(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := pgtest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	p := openPostgres(t, u.String())
	p.SetTimeout(300 * time.Millisecond)
	ctx := context.Background()
	if err := p.SetAlive(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	start, _ := rules.NewPosition(6, 4)
	calls := []struct {
		what string
		call func(context.Context) error
	}{
		{"a read", func(ctx context.Context) error { _, err := p.GameIDs(ctx); return err }},
		{"a read on one snapshot", func(ctx context.Context) error { _, err := p.Series(ctx, "0123456789abcdef"); return err }},
		{"a write", func(ctx context.Context) error { return p.SetAlive(ctx, time.Now()) }},
		{"a game's change (gathered)", func(ctx context.Context) error {
			return p.CreateGame(ctx, &game.Game{Start: start})
		}},
		{"a notice", func(ctx context.Context) error { return p.Notify(ctx, "hello") }},
		{"the revisions", func(ctx context.Context) error { _, err := p.Revisions(ctx, []string{"0123456789abcdef"}); return err }},
		{"a ping", func(ctx context.Context) error { return p.Ping(ctx) }},
	}
	proxy.Blackhole(true)
	for _, c := range calls {
		done := make(chan error, 1)
		go func() { done <- c.call(ctx) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s through a blackhole succeeded", c.what)
			}
		case <-time.After(callWait):
			t.Errorf("%s through a blackhole still waits after %v", c.what, callWait)
		}
	}
	proxy.Blackhole(false)
	for _, c := range calls[:1] {
		// The pool drops the connections the blackhole cut, and makes new
		// ones.
		deadline := time.Now().Add(callWait)
		for err := c.call(ctx); err != nil; err = c.call(ctx) {
			if time.Now().After(deadline) {
				t.Fatalf("%s after the blackhole: %v", c.what, err)
			}
		}
	}
}
