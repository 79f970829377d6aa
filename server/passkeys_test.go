package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/internal/passkeytest"
)

func ceremonyOf(t *testing.T, a accountAnswer) string {
	t.Helper()
	for _, c := range a.cookies {
		if c.Name == CeremonyCookie && c.HttpOnly && c.SameSite == http.SameSiteStrictMode && c.MaxAge > 0 {
			return c.Value
		}
	}
	t.Fatalf("no ceremony cookie in %+v", a.cookies)
	return ""
}

// callCeremony is call with a ceremony cookie too.
func (as *accountServer) callCeremony(path, body, session, cer string) accountAnswer {
	as.t.Helper()
	return as.call("POST", path, body, session, "", "Cookie", SessionCookie+"="+session+"; "+CeremonyCookie+"="+cer)
}

func TestPasskeys(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	const origin, rpID = "http://example.com", "example.com" // httptest's requests are to example.com
	key := passkeytest.New(t, origin)

	// Sign up with a passkey.
	begin := as.call("POST", "/api/account/passkey/register/begin", `{"name": "Baraka"}`, "", "")
	if begin.code != 200 {
		t.Fatalf("register begin: %d %s", begin.code, begin.body)
	}
	cer := ceremonyOf(t, begin)
	if !strings.Contains(begin.body, `"residentKey":"required"`) || !strings.Contains(begin.body, `"id":"example.com"`) {
		t.Errorf("registration options %s", begin.body)
	}
	answer := key.Create(t, begin.body, rpID)
	fin := as.callCeremony("/api/account/passkey/register/finish", answer, "", cer)
	if fin.code != 201 || fin.session() == nil || !strings.Contains(fin.body, `"passkeys":1`) || !strings.Contains(fin.body, `"name":"Baraka"`) {
		t.Fatalf("register finish: %d %s", fin.code, fin.body)
	}
	sess := fin.session().Value
	// A ceremony is finished once.
	if a := as.callCeremony("/api/account/passkey/register/finish", answer, "", cer); a.code != 400 || !strings.Contains(a.body, "no passkey ceremony") {
		t.Errorf("the same ceremony again: %d %s", a.code, a.body)
	}
	if a := as.call("POST", "/api/account/passkey/register/begin", `{"name": "baraka"}`, "", ""); a.code != 409 {
		t.Errorf("register a taken name: %d %s", a.code, a.body)
	}
	if a := as.call("POST", "/api/account/passkey/register/begin", `{"name": "x"}`, "", ""); a.code != 400 {
		t.Errorf("register a bad name: %d %s", a.code, a.body)
	}

	// Sign in with it.
	signIn := func(k *passkeytest.Key) accountAnswer {
		t.Helper()
		b := as.call("POST", "/api/account/passkey/signin/begin", "", "", "")
		if b.code != 200 {
			t.Fatalf("sign-in begin: %d %s", b.code, b.body)
		}
		return as.callCeremony("/api/account/passkey/signin/finish", k.Get(t, b.body, rpID), "", ceremonyOf(t, b))
	}
	in := signIn(key)
	if in.code != 200 || in.session() == nil || in.session().Value == sess {
		t.Fatalf("sign in with a passkey: %d %s", in.code, in.body)
	}
	if a := as.call("GET", "/api/me", "", in.session().Value, ""); a.code != 200 || !strings.Contains(a.body, "Baraka") {
		t.Errorf("me: %d %s", a.code, a.body)
	}
	// An unknown passkey, a signature of another origin, a ceremony
	// begun for registration: refused.
	stranger := passkeytest.New(t, origin)
	stranger.User = []byte("0123456789abcdef")
	if a := signIn(stranger); a.code != 401 || a.session() != nil {
		t.Errorf("unknown passkey: %d %s", a.code, a.body)
	}
	elsewhere := *key
	elsewhere.Origin = "http://evil.example"
	if a := signIn(&elsewhere); a.code != 401 || a.session() != nil {
		t.Errorf("another origin's signature: %d %s", a.code, a.body)
	}
	b := as.call("POST", "/api/account/passkey/register/begin", `{"name": "Chausiku"}`, "", "")
	if a := as.callCeremony("/api/account/passkey/signin/finish", key.Get(t, b.body, rpID), "", ceremonyOf(t, b)); a.code != 400 {
		t.Errorf("sign in with a registration's ceremony: %d %s", a.code, a.body)
	}
	if a := as.call("POST", "/api/account/passkey/signin/finish", key.Get(t, b.body, rpID), "", ""); a.code != 400 {
		t.Errorf("sign in without a ceremony: %d %s", a.code, a.body)
	}

	// A second passkey for the signed-in account.
	second := passkeytest.New(t, origin)
	b = as.call("POST", "/api/account/passkey/register/begin", "", sess, "")
	if b.code != 200 {
		t.Fatalf("register begin, signed in: %d %s", b.code, b.body)
	}
	if a := as.callCeremony("/api/account/passkey/register/finish", second.Create(t, b.body, rpID), sess, ceremonyOf(t, b)); a.code != 201 || !strings.Contains(a.body, `"passkeys":2`) {
		t.Fatalf("register a second passkey: %d %s", a.code, a.body)
	}
	if a := signIn(second); a.code != 200 {
		t.Errorf("sign in with the second passkey: %d %s", a.code, a.body)
	}

	// A deleted account's passkeys sign in no more.
	if a := as.call("POST", "/api/me/delete", `{"confirm": "Baraka"}`, sess, ""); a.code != 200 {
		t.Fatalf("delete: %d %s", a.code, a.body)
	}
	if a := signIn(key); a.code != 401 {
		t.Errorf("passkey of a deleted account: %d %s", a.code, a.body)
	}
	if as.st.WriteFailures() != 0 {
		t.Errorf("%d write failures", as.st.WriteFailures())
	}
}

// A passkey whose signature counter goes backwards may have been copied:
// it is flagged and refused, then and afterwards. A passkey registered
// already is refused with 409 and a plain message, naming no account.
func TestPasskeyClonedAndRegisteredTwice(t *testing.T) {
	as := newAccountServer(t, AccountOptions{SignInRate: Rate{100, 100}})
	const origin, rpID = "http://example.com", "example.com"
	key := passkeytest.New(t, origin)
	register := func(name, session string, k *passkeytest.Key) accountAnswer {
		t.Helper()
		body := `{"name": "` + name + `"}`
		if session != "" {
			body = ""
		}
		b := as.call("POST", "/api/account/passkey/register/begin", body, session, "")
		if b.code != 200 {
			t.Fatalf("register begin: %d %s", b.code, b.body)
		}
		return as.callCeremony("/api/account/passkey/register/finish", k.Create(t, b.body, rpID), session, ceremonyOf(t, b))
	}
	signIn := func(k *passkeytest.Key) accountAnswer {
		t.Helper()
		b := as.call("POST", "/api/account/passkey/signin/begin", "", "", "")
		return as.callCeremony("/api/account/passkey/signin/finish", k.Get(t, b.body, rpID), "", ceremonyOf(t, b))
	}
	up := register("Baraka", "", key)
	if up.code != 201 {
		t.Fatalf("sign up: %d %s", up.code, up.body)
	}
	var me struct{ Account accountView }
	json.Unmarshal([]byte(up.body), &me)
	for range 2 {
		if a := signIn(key); a.code != 200 {
			t.Fatalf("sign in: %d %s", a.code, a.body)
		}
	}

	// The same passkey again: for a new account, and for the signed-in one.
	again := *key
	for _, a := range []accountAnswer{register("Chausiku", "", &again), register("", up.session().Value, &again)} {
		if a.code != 409 || !strings.Contains(a.body, "registered already") || strings.Contains(a.body, me.Account.ID) || a.session() != nil {
			t.Errorf("a passkey registered again: %d %s, want 409 with a plain message", a.code, a.body)
		}
	}

	// A copy of the passkey, whose counter is behind.
	clone := *key
	clone.Count = 1
	if a := signIn(&clone); a.code != 401 || !strings.Contains(a.body, "copied") || a.session() != nil {
		t.Errorf("a signature counter gone back: %d %s, want 401 saying the passkey may have been copied", a.code, a.body)
	}
	key.Count += 10
	if a := signIn(key); a.code != 401 || !strings.Contains(a.body, "copied") {
		t.Errorf("the flagged passkey afterwards: %d %s, want it refused", a.code, a.body)
	}
}
