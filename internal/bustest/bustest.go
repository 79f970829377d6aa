// Package bustest gives tests a message bus of their own (package bus):
// a NATS subject or a Redis channel that no other test, nor another run of
// the tests, uses, on the servers at ENDODOI_NATS and ENDODOI_REDIS (by
// default the local ones, at their standard ports). Without a server the
// tests skip, saying why, unless they are required to run: in CI
// (CI=true) or with ENDODOI_BUS_TESTS=require they fail.
package bustest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables of the bus tests.
const (
	EnvNATS    = "ENDODOI_NATS"      // the NATS server's URL
	EnvRedis   = "ENDODOI_REDIS"     // the Redis server's URL
	EnvRequire = "ENDODOI_BUS_TESTS" // "require": fail, not skip, without a server
)

// The kinds of bus: the store's own PostgreSQL NOTIFY, NATS and Redis.
const (
	Postgres = "postgres"
	NATS     = "nats"
	Redis    = "redis"
)

// Kinds are the kinds of bus the tests of several instances run on.
var Kinds = []string{Postgres, NATS, Redis}

var defaults = map[string]string{NATS: "nats://127.0.0.1:4222", Redis: "redis://127.0.0.1:6379"}

// servers are the test servers, each looked for once.
var servers struct {
	mu    sync.Mutex
	found map[string]error
}

// Server returns the URL of the test server of a kind of bus (NATS or
// Redis), or skips (or fails) the test when it cannot be reached.
func Server(t testing.TB, kind string) *url.URL {
	t.Helper()
	env := map[string]string{NATS: EnvNATS, Redis: EnvRedis}[kind]
	if env == "" {
		t.Fatalf("bustest: no test server for a bus of kind %q", kind)
	}
	raw := os.Getenv(env)
	if raw == "" {
		raw = defaults[kind]
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	servers.mu.Lock()
	if servers.found == nil {
		servers.found = map[string]error{}
	}
	err, checked := servers.found[kind]
	if !checked {
		err = reach(kind, u.Host)
		servers.found[kind] = err
	}
	servers.mu.Unlock()
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv(EnvRequire) == "require" {
			t.Fatalf("the bus tests are required (CI=true or %s=require), but %s at %s cannot be reached: %v; start it (.ci/run does) or set %s",
				EnvRequire, kind, u.Host, err, env)
		}
		t.Skipf("skipping the %s test: %s at %s cannot be reached: %v; start it, or set %s to its URL", kind, kind, u.Host, err, env)
	}
	return u
}

// reach checks that a server of kind answers at addr as one should.
func reach(kind, addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	r := bufio.NewReader(c)
	want := "INFO " // NATS greets every client so
	if kind == Redis {
		if _, err := c.Write([]byte("PING\r\n")); err != nil {
			return err
		}
		want = "+PONG"
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, want) {
		return fmt.Errorf("it answered %.40q, not as %s does", line, kind)
	}
	return nil
}

// URL returns the URL of a bus of kind for the test: "" for PostgreSQL
// (the store's own), or the test server's with a channel of the test's
// own, which the test's instances share.
func URL(t testing.TB, kind string) string {
	t.Helper()
	if kind == Postgres {
		return ""
	}
	u := *Server(t, kind)
	var b [8]byte
	rand.Read(b[:])
	q := u.Query()
	q.Set("channel", "endodoi_test_"+hex.EncodeToString(b[:]))
	u.RawQuery = q.Encode()
	return u.String()
}

// Via returns busURL pointed at addr, a host:port (a proxy's), instead.
func Via(t testing.TB, busURL, addr string) string {
	t.Helper()
	u, err := url.Parse(busURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}
