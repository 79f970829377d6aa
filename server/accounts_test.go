package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/store"
)

// accountServer is a server whose password hashes are cheap, with its log
// kept to search for secrets.
type accountServer struct {
	t   *testing.T
	srv *Server
	st  store.Store
	mu  sync.Mutex
	log bytes.Buffer
}

func (as *accountServer) Write(p []byte) (int, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.log.Write(p)
}

func newAccountServer(t *testing.T, o AccountOptions) *accountServer {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	as := &accountServer{t: t, st: st}
	if o.Passwords == (account.Params{}) {
		o.Passwords = account.Params{Time: 1, MemoryKiB: 64, Threads: 1}
	}
	as.srv = NewWithOptions(st, slog.New(slog.NewTextHandler(as, &slog.HandlerOptions{Level: slog.LevelDebug})), Options{Accounts: o})
	return as
}

type accountAnswer struct {
	code    int
	body    string
	header  http.Header
	cookies []*http.Cookie
}

func (a accountAnswer) session() *http.Cookie {
	for _, c := range a.cookies {
		if c.Name == SessionCookie {
			return c
		}
	}
	return nil
}

// call sends a request with the session cookie (if not "") from client
// (a remote address, if not ""), with more headers as pairs.
func (as *accountServer) call(method, path, body, session, client string, headers ...string) accountAnswer {
	as.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	if session != "" {
		req.AddCookie(&http.Cookie{Name: SessionCookie, Value: session})
	}
	if client != "" {
		req.RemoteAddr = client + ":1234"
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	as.srv.ServeHTTP(rec, req)
	res := rec.Result()
	if rec.Code >= 400 {
		var e struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			as.t.Errorf("%s %s: error answer %d is not a JSON error: %q", method, path, rec.Code, rec.Body.String())
		}
	}
	return accountAnswer{rec.Code, rec.Body.String(), rec.Header(), res.Cookies()}
}

func creds(name, pw string) string {
	b, _ := json.Marshal(map[string]string{"name": name, "password": pw})
	return string(b)
}

const goodPassword = "kite-Umbrella-74-ledger"

func TestAccountRoutes(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	up := as.call("POST", "/api/account/signup", creds("Amina", goodPassword), "", "")
	if up.code != http.StatusCreated {
		t.Fatalf("sign up: %d %s", up.code, up.body)
	}
	c := up.session()
	if c == nil || len(c.Value) != 43 || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" || c.MaxAge < 29*24*3600 {
		t.Fatalf("session cookie %+v", c)
	}
	sess := c.Value
	var me struct{ Account accountView }
	json.Unmarshal([]byte(up.body), &me)
	if me.Account.Name != "Amina" || !me.Account.Password || me.Account.Passkeys != 0 || me.Account.ID == "" {
		t.Errorf("signed up as %+v", me.Account)
	}

	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{creds("ab", goodPassword), 400, "fewer than 3"},
		{creds("two words", goodPassword), 400, "without spaces"},
		{creds("Baraka", "password123"), 400, "too easy to guess"},
		{creds("Baraka", "short"), 400, "fewer than 8"},
		{creds("AMINA", goodPassword), 409, "taken"},
		{`{"name": "x"`, 400, "malformed JSON"},
		{`{"name": "Baraka", "password": "kite-Umbrella-74-ledger", "admin": true}`, 400, "unknown field"},
	} {
		if a := as.call("POST", "/api/account/signup", c.body, "", ""); a.code != c.code || !strings.Contains(a.body, c.want) || a.session() != nil {
			t.Errorf("sign up %s: %d %s, want %d with %q and no cookie", c.body, a.code, a.body, c.code, c.want)
		}
	}
	// Over HTTPS the cookie is sent back over HTTPS only.
	req := httptest.NewRequest("POST", "/api/account/signin", strings.NewReader(creds("amina", goodPassword)))
	req.Header.Set("Content-Type", "application/json")
	req.TLS = &tls.ConnectionState{}
	rec := httptest.NewRecorder()
	as.srv.ServeHTTP(rec, req)
	// (The session's, and the new browser's device cookie.)
	if cs := rec.Result().Cookies(); rec.Code != 200 || len(cs) != 2 || !cs[0].Secure || !cs[1].Secure {
		t.Errorf("sign in over HTTPS: %d, cookies %+v", rec.Code, cs)
	}

	// Who am I.
	if a := as.call("GET", "/api/me", "", sess, ""); a.code != 200 || !strings.Contains(a.body, `"name":"Amina"`) {
		t.Errorf("me: %d %s", a.code, a.body)
	}
	if a := as.call("GET", "/api/me", "", "", ""); a.code != 200 || a.body != "{\"account\":null}\n" {
		t.Errorf("me without a session: %d %s", a.code, a.body)
	}
	if a := as.call("GET", "/api/me", "", strings.Repeat("A", 43), ""); a.code != 200 || !strings.Contains(a.body, "null") || a.session() == nil || a.session().MaxAge >= 0 {
		t.Errorf("me with an unknown session: %d %s, cookie %+v (want it cleared)", a.code, a.body, a.session())
	}

	// Sign in: one accountAnswer for a wrong password and an unknown name.
	wrong := as.call("POST", "/api/account/signin", creds("amina", "not the password"), "", "192.0.2.1")
	unknown := as.call("POST", "/api/account/signin", creds("nobody", goodPassword), "", "192.0.2.1")
	if wrong.code != 401 || unknown.code != 401 || wrong.body != unknown.body {
		t.Errorf("wrong password: %d %s; unknown name: %d %s", wrong.code, wrong.body, unknown.code, unknown.body)
	}
	in := as.call("POST", "/api/account/signin", creds("ａmina", goodPassword), "", "192.0.2.1")
	if in.code != 200 || in.session() == nil || in.session().Value == sess {
		t.Fatalf("sign in: %d %s %+v", in.code, in.body, in.session())
	}
	sess2 := in.session().Value
	replaced := sess2
	// Signing in again from a signed-in browser ends its old session.
	again := as.call("POST", "/api/account/signin", creds("amina", goodPassword), sess2, "192.0.2.1")
	if again.code != 200 || again.session() == nil {
		t.Fatalf("sign in again: %d %s", again.code, again.body)
	}
	if a := as.call("GET", "/api/me", "", sess2, ""); !strings.Contains(a.body, `"account":null`) {
		t.Errorf("the replaced session still signs in: %s", a.body)
	}
	sess2 = again.session().Value

	// Cookie-authenticated changes from another site are refused.
	if a := as.call("POST", "/api/me/delete", `{"confirm": "Amina"}`, sess, "", "Origin", "http://evil.example"); a.code != 403 {
		t.Errorf("delete from another site: %d %s", a.code, a.body)
	}
	if a := as.call("POST", "/api/account/signout-everywhere", `{}`, sess, "", "Sec-Fetch-Site", "cross-site"); a.code != 403 {
		t.Errorf("sign out everywhere from another site: %d %s", a.code, a.body)
	}

	// Sign out ends one session; everywhere ends the others.
	if a := as.call("POST", "/api/account/signout", "", sess2, ""); a.code != 200 || a.session() == nil || a.session().MaxAge >= 0 {
		t.Errorf("sign out: %d %s %+v", a.code, a.body, a.session())
	}
	if a := as.call("GET", "/api/me", "", sess2, ""); a.code != 200 || !strings.Contains(a.body, `"account":null`) {
		t.Errorf("me after sign out: %d", a.code)
	}
	if a := as.call("POST", "/api/account/signout", "", "", ""); a.code != 200 {
		t.Errorf("sign out when signed out: %d %s", a.code, a.body)
	}
	sess3 := as.call("POST", "/api/account/signin", creds("amina", goodPassword), "", "").session().Value
	if a := as.call("POST", "/api/account/signout-everywhere", "", sess, ""); a.code != 200 || !strings.Contains(a.body, `"ended":3`) {
		t.Errorf("sign out everywhere: %d %s", a.code, a.body)
	}
	for _, id := range []string{sess, sess3} {
		if a := as.call("GET", "/api/me", "", id, ""); a.code != 200 || !strings.Contains(a.body, `"account":null`) {
			t.Errorf("me after sign out everywhere: %d", a.code)
		}
	}
	if a := as.call("POST", "/api/account/signout-everywhere", "", "", ""); a.code != 401 {
		t.Errorf("sign out everywhere, signed out: %d", a.code)
	}

	// Delete: the body must name the account.
	sess4 := as.call("POST", "/api/account/signin", creds("amina", goodPassword), "", "").session().Value
	for _, body := range []string{"", `{}`, `{"confirm": "Baraka"}`} {
		if a := as.call("POST", "/api/me/delete", body, sess4, ""); a.code != 400 {
			t.Errorf("delete with %q: %d %s", body, a.code, a.body)
		}
	}
	if a := as.call("POST", "/api/me/delete", `{"confirm": "amina"}`, "", ""); a.code != 401 {
		t.Errorf("delete signed out: %d", a.code)
	}
	if a := as.call("POST", "/api/me/delete", `{"confirm": "AMINA"}`, sess4, ""); a.code != 200 || a.session() == nil || a.session().MaxAge >= 0 {
		t.Errorf("delete: %d %s", a.code, a.body)
	}
	if a := as.call("GET", "/api/me", "", sess4, ""); a.code != 200 || !strings.Contains(a.body, `"account":null`) {
		t.Errorf("me after delete: %d", a.code)
	}
	if a := as.call("POST", "/api/account/signin", creds("amina", goodPassword), "", ""); a.code != 401 {
		t.Errorf("sign in after delete: %d", a.code)
	}

	// No password and no session id in the log.
	log := as.log.String()
	for _, secret := range []string{goodPassword, "not the password", sess, replaced, sess2, sess3, sess4} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a secret %q:\n%s", secret, log)
		}
	}
	if as.st.WriteFailures() != 0 {
		t.Errorf("%d write failures", as.st.WriteFailures())
	}
}

// Sign-ins are limited per name, from any client, and per client, on any
// name: 429 with Retry-After.
func TestSignInLimits(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{0.001, 7}, NameRate: Rate{0.001, 3}})
	if a := as.call("POST", "/api/account/signup", creds("amina", goodPassword), "", "192.0.2.9"); a.code != 201 {
		t.Fatalf("sign up: %d %s", a.code, a.body)
	}
	for i, want := range []int{401, 401, 401, 429, 429} {
		client := "192.0.2." + string(rune('1'+i))
		a := as.call("POST", "/api/account/signin", creds("Amina", "wrong password"), "", client)
		if a.code != want {
			t.Errorf("attempt %d on the name: %d %s, want %d", i+1, a.code, a.body, want)
		}
		if want == 429 && a.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	// The right password, too, waits once the name's budget is spent.
	if a := as.call("POST", "/api/account/signin", creds("amina", goodPassword), "", "192.0.2.7"); a.code != 429 {
		t.Errorf("right password after the limit: %d", a.code)
	}
	// One client on many names: 7 requests, then 429.
	for i := range 8 {
		a := as.call("POST", "/api/account/signin", creds("name"+string(rune('a'+i))+"xyz", "wrong password"), "", "198.51.100.1")
		if want := map[bool]int{true: 401, false: 429}[i < 7]; a.code != want {
			t.Errorf("client's attempt %d: %d, want %d", i+1, a.code, want)
		}
	}
}

// A seat taken while signed in belongs to the account: its games list
// follows it, and when it is deleted its games stay, played by "deleted
// player".
func TestAccountSeats(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	amina := as.call("POST", "/api/account/signup", creds("Amina", goodPassword), "", "").session().Value
	baraka := as.call("POST", "/api/account/signup", creds("Baraka", goodPassword), "", "").session().Value
	var c created
	a := as.call("POST", "/api/games", `{"online": true, "holes": 6, "side": "n", "name": "Amina"}`, amina, "")
	if a.code != 201 || json.Unmarshal([]byte(a.body), &c) != nil {
		t.Fatalf("create: %d %s", a.code, a.body)
	}
	code := c.Invite[strings.LastIndex(c.Invite, "/")+1:]
	if j := as.call("POST", "/api/join/"+code, `{"name": "Baraka"}`, baraka, ""); j.code != 200 {
		t.Fatalf("join: %d %s", j.code, j.body)
	}
	// A game made signed out is nobody's.
	if a := as.call("POST", "/api/games", `{"online": true, "holes": 6, "name": "Amina"}`, "", ""); a.code != 201 {
		t.Fatalf("create signed out: %d %s", a.code, a.body)
	}
	games := func(session string) string {
		t.Helper()
		a := as.call("GET", "/api/me/games", "", session, "")
		if a.code != 200 {
			t.Fatalf("my games: %d %s", a.code, a.body)
		}
		var out struct {
			Games []struct{ ID, Side, South, North string }
		}
		json.Unmarshal([]byte(a.body), &out)
		var b strings.Builder
		for _, g := range out.Games {
			fmt.Fprintf(&b, "%t:%s:%s-%s ", g.ID == c.Game.ID, g.Side, g.South, g.North)
		}
		return b.String()
	}
	if got := games(amina); got != "true:n:Baraka-Amina " {
		t.Errorf("Amina's games: %q", got)
	}
	if got := games(baraka); got != "true:s:Baraka-Amina " {
		t.Errorf("Baraka's games: %q", got)
	}
	if a := as.call("GET", "/api/me/games", "", "", ""); a.code != 401 {
		t.Errorf("my games signed out: %d", a.code)
	}
	if a := as.call("GET", "/api/me/games?limit=0", "", amina, ""); a.code != 400 {
		t.Errorf("my games with limit 0: %d", a.code)
	}
	if a := as.call("POST", "/api/me/delete", `{"confirm": "Amina"}`, amina, ""); a.code != 200 {
		t.Fatalf("delete: %d %s", a.code, a.body)
	}
	if got := games(baraka); got != "true:s:Baraka-deleted player " {
		t.Errorf("Baraka's games after Amina's account was deleted: %q", got)
	}
}

// The Origin check compares the scheme too: a page of https://host is
// another site than http://host.
func TestOriginScheme(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	for _, c := range []struct {
		origin string
		code   int
	}{{"https://example.com", 403}, {"http://example.com", 201}} {
		if a := as.call("POST", "/api/account/signup", creds("Amina", goodPassword), "", "", "Origin", c.origin); a.code != c.code {
			t.Errorf("plain HTTP, Origin %s: %d %s, want %d", c.origin, a.code, a.body, c.code)
		}
	}
	// Over HTTPS (here, as a trusted proxy says), the other way round.
	st := as.st
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(as, nil)), Options{TrustProxy: true,
		Accounts: AccountOptions{SignInRate: Rate{100, 100}, Passwords: account.Params{Time: 1, MemoryKiB: 64, Threads: 1}}})
	for _, c := range []struct {
		origin string
		code   int
	}{{"http://example.com", 403}, {"https://example.com", 200}} {
		req := httptest.NewRequest("POST", "/api/account/signin", strings.NewReader(creds("amina", goodPassword)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-Proto", "https")
		req.Header.Set("Origin", c.origin)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("HTTPS, Origin %s: %d %s, want %d", c.origin, rec.Code, rec.Body, c.code)
		}
	}
}

// The limit on a name's sign-ins is kept in the database: two instances
// count together. A browser that signed in to the account before (its
// device cookie) gets through with the right password while the name is
// being attacked, and so does a passkey; a new browser waits.
func TestSignInLimitsShared(t *testing.T) {
	a := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}, NameRate: Rate{0.001, 4}})
	b := NewWithOptions(a.st, slog.New(slog.NewTextHandler(a, nil)), Options{Accounts: AccountOptions{SignInRate: Rate{100, 100},
		NameRate: Rate{0.001, 4}, Passwords: account.Params{Time: 1, MemoryKiB: 64, Threads: 1}}})
	up := a.call("POST", "/api/account/signup", creds("Amina", goodPassword), "", "192.0.2.9")
	if up.code != 201 {
		t.Fatalf("sign up: %d %s", up.code, up.body)
	}
	var device *http.Cookie
	for _, c := range up.cookies {
		if c.Name == DeviceCookie {
			device = c
		}
	}
	if device == nil || !device.HttpOnly || device.Path != "/api/account/" || device.MaxAge < 300*24*3600 || len(device.Value) != 43 {
		t.Fatalf("device cookie %+v", device)
	}
	// The attacker: two wrong tries on each instance, then the name is
	// spent everywhere.
	onB := func(body string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/account/signin", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = "198.51.100.7:1234"
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		b.ServeHTTP(rec, req)
		return rec
	}
	for i := range 2 {
		if r := a.call("POST", "/api/account/signin", creds("amina", "wrong password"), "", "198.51.100.7"); r.code != 401 {
			t.Errorf("wrong try %d on A: %d %s", i+1, r.code, r.body)
		}
		if r := onB(creds("amina", "wrong password")); r.Code != 401 {
			t.Errorf("wrong try %d on B: %d %s", i+1, r.Code, r.Body)
		}
	}
	if r := onB(creds("amina", "wrong password")); r.Code != 429 || r.Header().Get("Retry-After") == "" {
		t.Errorf("a fifth try, on B: %d %s, want 429 with Retry-After", r.Code, r.Body)
	}
	if r := a.call("POST", "/api/account/signin", creds("amina", goodPassword), "", "203.0.113.5"); r.code != 429 {
		t.Errorf("the right password from a new browser: %d %s, want 429", r.code, r.body)
	}
	// The owner's browser, on either instance.
	if r := onB(creds("amina", goodPassword), device); r.Code != 200 {
		t.Errorf("the right password from the owner's browser, on B: %d %s", r.Code, r.Body)
	}
	in := a.call("POST", "/api/account/signin", creds("amina", goodPassword), "", "203.0.113.5", "Cookie", DeviceCookie+"="+device.Value)
	if in.code != 200 {
		t.Errorf("the right password from the owner's browser, on A: %d %s", in.code, in.body)
	}
	for _, c := range in.cookies {
		if c.Name == DeviceCookie {
			t.Errorf("a known device got a new cookie: %+v", c)
		}
	}
	// A device cookie of another account, or made up, is no pass.
	other := a.call("POST", "/api/account/signup", creds("Baraka", goodPassword), "", "192.0.2.9")
	for _, c := range other.cookies {
		if c.Name == DeviceCookie {
			if r := onB(creds("amina", goodPassword), c); r.Code != 429 {
				t.Errorf("another account's device: %d %s, want 429", r.Code, r.Body)
			}
		}
	}
	if r := onB(creds("amina", goodPassword), &http.Cookie{Name: DeviceCookie, Value: strings.Repeat("A", 43)}); r.Code != 429 {
		t.Errorf("a made-up device: %d %s, want 429", r.Code, r.Body)
	}
	// Deleting the account forgets its devices.
	if r := a.call("POST", "/api/me/delete", `{"confirm": "Amina"}`, in.session().Value, ""); r.code != 200 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if r := onB(creds("amina", goodPassword), device); r.Code != 401 && r.Code != 429 {
		t.Errorf("a deleted account's device: %d %s", r.Code, r.Body)
	}
	if log := a.log.String(); strings.Contains(log, device.Value) {
		t.Errorf("the log holds a device id:\n%s", log)
	}
}
