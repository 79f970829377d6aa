package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
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
