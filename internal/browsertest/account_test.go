package browsertest

import (
	"net/http/httptest"
	"strings"
	"testing"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/endodoi/endodoi/internal/serve"
)

// A player makes an account with a passkey, through Chromium's virtual
// authenticator, signs out and signs in with it; another does the same
// with a password, and a wrong password is refused.
func TestAccountSignUpAndIn(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	if _, err := chromedp.Call(p.ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("enabling WebAuthn: %v", err)
	}
	if _, err := chromedp.Call(p.ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true}}); err != nil {
		t.Fatalf("adding a virtual authenticator: %v", err)
	}
	// A passkey belongs to a domain, never to an IP address.
	p.do("opening the page on localhost", chromedp.Navigate(strings.Replace(a.URL(), "127.0.0.1", "localhost", 1)+"/"))
	p.waitIdle()

	p.click("#account-open")
	p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open && !document.querySelector(".account-out").hidden`)
	signedIn := func(name string) {
		t.Helper()
		p.waitFor("signed in as "+name, `document.getElementById("account-who").textContent.includes(`+jsString(name)+`)
			&& document.querySelector(".account-out").hidden && document.getElementById("account-open").textContent === `+jsString(name))
	}
	signedOut := func() {
		t.Helper()
		p.click("#account-signout")
		p.waitFor("signed out", `!document.querySelector(".account-out").hidden && document.getElementById("account-open").textContent === "Account"`)
	}

	p.screenshot("account-signed-out.png")
	// A passkey.
	p.setField("#account-name", "Amina")
	p.click("#account-passkey-signup")
	signedIn("Amina")
	p.screenshot("account-signed-in.png")
	if got := eval[string](p, `fetch("/api/me").then(r => r.json()).then(m => m.account.name + " " + m.account.passkeys + " " + m.account.password)`); got != "Amina 1 false" {
		t.Errorf("after signing up with a passkey, the server has %q", got)
	}
	signedOut()
	p.setField("#account-name", "")
	p.click("#account-passkey-signin")
	signedIn("Amina")
	signedOut()

	// A password. The refusals are answers of the server, not faults.
	p.allowConsole(`status of 400 .*/api/account/signup|status of 401 .*/api/account/signin`)
	p.setField("#account-name", "Baraka")
	p.setField("#account-password", "password1")
	p.click("#account-signup")
	p.waitFor("a common password refused", `document.getElementById("account-message").textContent.includes("hard to guess")`)
	p.setField("#account-password", "kite-Umbrella-74-ledger")
	p.click("#account-signup")
	signedIn("Baraka")
	signedOut()
	p.setField("#account-name", "baraka")
	p.setField("#account-password", "kite-Umbrella-74-ledgeR")
	p.click("#account-signin")
	p.waitFor("a wrong password refused", `document.getElementById("account-message").textContent === "Wrong username or password."`)
	p.setField("#account-password", "kite-Umbrella-74-ledger")
	p.click("#account-signin")
	signedIn("Baraka")
	// The session cookie is out of the page's reach.
	if c := eval[string](p, `document.cookie`); strings.Contains(c, "endodoi_session") {
		t.Errorf("the page can read the session cookie: %q", c)
	}
	// He adds a passkey, and is told it is done.
	p.click("#account-add-passkey")
	p.waitFor("the passkey's confirmation", `document.getElementById("account-status")?.textContent.includes("Passkey added")`)
	if got := eval[string](p, `fetch("/api/me").then(r => r.json()).then(m => m.account.passkeys + " " + m.account.password)`); got != "1 true" {
		t.Errorf("after adding a passkey, the server has %q (passkeys, password)", got)
	}
	if got := p.text("#account-message"); got != "" {
		t.Errorf("after adding a passkey, the dialog also says %q", got)
	}
	p.screenshot("account-passkey-added.png")
	// The confirmation is of that moment: gone when the dialog opens again.
	p.click("#account-close")
	p.click("#account-open")
	p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open`)
	if got := p.text("#account-status"); got != "" {
		t.Errorf("the dialog opened again still says %q", got)
	}
}

// The address the server prints on loopback is http://127.0.0.1 no more:
// a page opened there moves to http://localhost, where a passkey signs up
// and in, on a desktop and on a phone.
func TestAccountPasskeyAtLoopbackAddress(t *testing.T) {
	a := startApp(t)
	// The site as endodoi serve wires it on loopback.
	site := httptest.NewServer(serve.LocalhostPages(a.srv.Config.Handler))
	t.Cleanup(site.Close)
	if !strings.HasPrefix(site.URL, "http://127.0.0.1:") {
		t.Fatalf("the site is at %s", site.URL)
	}
	for _, v := range []struct {
		name string
		vp   viewport
	}{{"Amina", desktop}, {"Baraka", phone}} {
		p := openPage(t, a, v.vp)
		addAuthenticator(p)
		p.do("opening the page at 127.0.0.1", chromedp.Navigate(site.URL+"/#/play"))
		p.waitIdle()
		if got := eval[string](p, `location.host`); got != strings.Replace(site.URL, "http://127.0.0.1", "localhost", 1) {
			t.Fatalf("the page at 127.0.0.1 is at %s, want localhost", got)
		}
		p.click("#account-open")
		p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open && !document.querySelector(".account-out").hidden`)
		if p.visible("#account-passkey-note") || !p.visible("#account-passkey-signup") {
			t.Errorf("at localhost, passkeys are said not to work: %q", p.text("#account-passkey-note"))
		}
		p.setField("#account-name", v.name)
		p.click("#account-passkey-signup")
		p.waitFor("signed in as "+v.name, `document.getElementById("account-open").textContent === `+jsString(v.name))
		p.screenshot("account-passkey-localhost-" + map[bool]string{true: "phone", false: "desktop"}[v.vp.phone] + ".png")
		p.click("#account-signout")
		p.waitFor("signed out", `!document.querySelector(".account-out").hidden`)
		p.setField("#account-name", "")
		p.click("#account-passkey-signin")
		p.waitFor("signed in again as "+v.name, `document.getElementById("account-open").textContent === `+jsString(v.name))
	}
}

// Where passkeys cannot work, the account dialog says so plainly and offers
// no passkey button: a page that is no secure context (plain HTTP at a
// name other than localhost), a page at an IP address, and a browser
// without WebAuthn.
func TestAccountWithoutPasskeys(t *testing.T) {
	a := startApp(t)
	// At an IP address (a server not wired with LocalhostPages).
	ip := openPage(t, a, desktop)
	openAccountDialog(ip)
	ip.waitFor("the note on passkeys at an IP address", `document.getElementById("account-passkey-note").textContent.startsWith("Passkeys cannot work at this address")
		&& document.getElementById("account-passkey-signup").hidden`)
	for _, c := range []struct {
		script, want string
		vp           viewport
	}{
		{`Object.defineProperty(window, "isSecureContext", {value: false})`, "Passkeys cannot work at this address", phone},
		{`delete window.PublicKeyCredential`, "This browser cannot use passkeys", desktop},
	} {
		p := openPage(t, a, c.vp)
		if _, err := chromedp.Call(p.ctx, cdpage.AddScriptToEvaluateOnNewDocument, cdpage.AddScriptToEvaluateOnNewDocumentParams{Source: c.script}); err != nil {
			t.Fatal(err)
		}
		// At localhost, where passkeys work but for what the script takes.
		p.visit(strings.Replace(a.URL(), "127.0.0.1", "localhost", 1), "#/play")
		p.click("#account-open")
		p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open && !document.querySelector(".account-out").hidden`)
		p.waitFor("the note on passkeys", `document.getElementById("account-passkey-note").textContent.startsWith(`+jsString(c.want)+`)
			&& !document.getElementById("account-passkey-note").hidden`)
		for _, id := range []string{"#account-passkey-signup", "#account-passkey-signin"} {
			if p.visible(id) {
				t.Errorf("%s: %s is offered", c.want, id)
			}
		}
		p.screenshot("account-no-passkeys-" + map[bool]string{true: "phone", false: "desktop"}[c.vp.phone] + ".png")
		// A password still works.
		p.setField("#account-name", "Chausiku"+map[bool]string{true: "P", false: "D"}[c.vp.phone])
		p.setField("#account-password", "kite-Umbrella-74-ledger")
		p.click("#account-signup")
		p.waitFor("signed up with a password", `document.querySelector(".account-out").hidden`)
	}
}

// openAccountDialog opens the account dialog, signed out.
func openAccountDialog(p *page) {
	p.t.Helper()
	p.goTo("#/play")
	p.click("#account-open")
	p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open && !document.querySelector(".account-out").hidden`)
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(`"`+s+`"`, "\n", ""), "'", "")
}
