package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/store"
)

// lockedBuffer collects a log written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// With the database unreachable, every request that reads the store, as
// every one that writes, is answered 503 with Retry-After, and the log
// tells the operator without giving away an invite or a seat.
func TestDatabaseUnreachable(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			var logs lockedBuffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			ts := &testServer{t: t}
			var cut func()
			switch engine {
			case "sqlite":
				ts = newTestServer(t)
				ts.srv = New(ts.st, log)
				cut = func() { ts.st.Close() }
			case "postgres":
				u, err := url.Parse(pgtest.NewDatabase(t))
				if err != nil {
					t.Fatal(err)
				}
				proxy := pgtest.NewProxy(t, u.Host)
				u.Host = proxy.Addr()
				st, err := store.OpenPostgres(context.Background(), u.String())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				ts.srv = New(st, log)
				cut = func() { proxy.Refuse(true); proxy.Cut() }
			}
			var c created
			if code, raw := ts.do("POST", "/api/games", `{"online": true, "series": 3, "holes": 4, "seeds": 2, "side": "s",
				"name": "Naserian", "clock": {"minutes": 5}}`, &c); code != http.StatusCreated {
				t.Fatalf("create: %d %s", code, raw)
			}
			id, series, token := c.Game.ID, c.Game.SeriesID, c.Seat.Token
			invite := c.Invite[len("/#/join/"):]
			if series == "" {
				t.Fatal("the game is not in a series")
			}
			cut()

			for _, path := range []string{
				"/api/online",
				"/api/join/" + invite,
				"/api/games/" + id,
				"/api/games",
				"/api/games?ids=" + id,
				"/api/series/" + series,
				"/api/games/" + id + "/record",
				"/api/games/" + id + "/review",
				"/api/games/" + id + "/hint",
				"/api/games/" + id + "/live",
			} {
				req := httptest.NewRequest("GET", path, nil)
				rec := httptest.NewRecorder()
				ts.srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !isJSONError(rec) {
					t.Errorf("GET %s: %d Retry-After %q %s, want 503 with Retry-After", path, rec.Code,
						rec.Header().Get("Retry-After"), rec.Body)
				}
			}
			for _, w := range []struct{ path, token, body string }{
				{"/api/join/" + invite, "", `{"name": "Sironka"}`},
				{"/api/games/" + id + "/moves", token, `{"move": "a", "ply": 0}`},
				{"/api/games/" + id + "/actions", token, `{"action": "abort", "ply": 0}`},
			} {
				req := httptest.NewRequest("POST", w.path, strings.NewReader(w.body))
				req.Header.Set("Content-Type", "application/json")
				if w.token != "" {
					req.Header.Set("Authorization", "Bearer "+w.token)
				}
				rec := httptest.NewRecorder()
				ts.srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
					t.Errorf("POST %s: %d %s, want 503 with Retry-After", w.path, rec.Code, rec.Body)
				}
			}

			out := logs.String()
			if !strings.Contains(out, "storage unreachable") || !strings.Contains(out, "path=/api/join/{code}") {
				t.Errorf("the log does not tell of the outage:\n%s", out)
			}
			for what, secret := range map[string]string{"invite code": invite, "seat token": token, "token's hash": play.HashToken(token)} {
				if strings.Contains(out, secret) {
					t.Errorf("the log shows the %s:\n%s", what, out)
				}
			}
		})
	}
}
