// Package pgtest gives tests a PostgreSQL database of their own. It uses
// the server at ENDODOI_POSTGRES (by default the local one, user postgres)
// and makes a fresh database for each test, dropped when the test ends.
// Without a server the tests skip, saying why, unless they are required to
// run: in CI (CI=true) or with ENDODOI_POSTGRES_TESTS=require they fail.
// A Proxy puts a network that fails on command between a program and the
// server.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables of the PostgreSQL tests.
const (
	EnvURL     = "ENDODOI_POSTGRES"       // the server's URL, with a database to connect to
	EnvRequire = "ENDODOI_POSTGRES_TESTS" // "require": fail, not skip, without a server
	DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
)

// server is the test server, looked for once.
var server struct {
	once sync.Once
	base string // the URL to reach it with
	err  error
}

// Base returns the URL of the test server, or skips (or fails) the test
// when there is none.
func Base(t testing.TB) string {
	t.Helper()
	server.once.Do(func() {
		server.base = os.Getenv(EnvURL)
		if server.base == "" {
			server.base = DefaultURL
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, server.base)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		server.err = err
	})
	if server.err != nil {
		where := redact(server.base)
		if os.Getenv("CI") == "true" || os.Getenv(EnvRequire) == "require" {
			t.Fatalf("the PostgreSQL tests are required (CI=true or %s=require), but PostgreSQL at %s cannot be reached: %v; start it (.ci/run does) or set %s",
				EnvRequire, where, server.err, EnvURL)
		}
		t.Skipf("skipping the PostgreSQL test: PostgreSQL at %s cannot be reached: %v; start it, or set %s to a server's URL",
			where, server.err, EnvURL)
	}
	return server.base
}

// redact hides a password in a URL for messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// NewDatabase makes an empty database for the test and returns its URL;
// the database is dropped when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	base := Base(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	var b [8]byte
	rand.Read(b[:])
	name := "endodoi_test_" + hex.EncodeToString(b[:])
	admin := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := admin(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("making the test database: %v", err)
	}
	t.Cleanup(func() {
		if err := admin(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
