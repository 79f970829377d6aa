package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/passkeytest"
)

// testCertificate makes a test CA and a certificate it signs for
// localhost, writes the certificate (with the CA's, as a chain) and its
// key in dir, and returns their files and a pool that trusts the CA.
func testCertificate(t *testing.T, dir string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "endodoi test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "fullchain.pem"), filepath.Join(dir, "privkey.pem")
	chain := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...)
	if err := os.WriteFile(certFile, chain, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	roots.AddCert(ca)
	return certFile, keyFile, roots
}

// deployedNginx is the nginx configuration of docs/deploy.md, taken from
// the document itself, with this machine's addresses, files and names:
// nginx listening on httpAddr and tlsAddr in front of the instance at
// upstream. The test fails when the document no longer has a line it
// changes, so that the two cannot drift apart unseen.
func deployedNginx(t *testing.T, dir, upstream, httpAddr, tlsAddr, certFile, keyFile string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## nginx in front of several instances")
	_, block, ok2 := strings.Cut(section, "```nginx\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/deploy.md has no nginx block under \"## nginx in front of several instances\"")
	}
	for _, c := range []struct{ re, with string }{
		{`(?m)^(\s*)server 10\.0\.0\.11:8080 `, "${1}server " + upstream + " "},
		{`(?m)^\s*server 10\.0\.0\.1[23]:8080 .*\n`, ""},
		{`(?m)^\s*listen \[::\].*\n`, ""},
		{`(?m)^(\s*)listen 80;`, "${1}listen " + httpAddr + ";"},
		{`(?m)^(\s*)listen 443 `, "${1}listen " + tlsAddr + " "},
		{`server_name endodoi\.example\.org;`, "server_name localhost;"},
		{`/etc/letsencrypt/live/endodoi\.example\.org/fullchain\.pem`, certFile},
		{`/etc/letsencrypt/live/endodoi\.example\.org/privkey\.pem`, keyFile},
		{`root /var/www/acme;`, "root " + dir + "/acme;"},
	} {
		re := regexp.MustCompile(c.re)
		if !re.MatchString(block) {
			t.Fatalf("docs/deploy.md's nginx block has no %s any more: update this test", c.re)
		}
		block = re.ReplaceAllString(block, c.with)
	}
	// master_process off: one process, as the test's own user, that the
	// test can kill.
	return `daemon off;
master_process off;
pid ` + dir + `/nginx.pid;
error_log ` + dir + `/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path ` + dir + `/body;
    proxy_temp_path ` + dir + `/proxy;
    fastcgi_temp_path ` + dir + `/fastcgi;
    uwsgi_temp_path ` + dir + `/uwsgi;
    scgi_temp_path ` + dir + `/scgi;
` + block + `}
`
}

// TestNginxTLS runs an instance behind nginx configured as docs/deploy.md
// says, over HTTPS with the certificate of a test CA: the session cookie
// is Secure, a passkey registers and signs in at the https origin, and
// plain HTTP is sent to HTTPS.
func TestNginxTLS(t *testing.T) {
	needNginx(t)
	dir := t.TempDir()
	certFile, keyFile, roots := testCertificate(t, dir)
	instance := freeAddr(t)
	startServerAt(t, t.TempDir(), instance, "--behind-proxy")
	httpAddr, tlsAddr := freeAddr(t), freeAddr(t)
	runNginx(t, dir, deployedNginx(t, dir, instance, httpAddr, tlsAddr, certFile, keyFile), tlsAddr)

	_, port, _ := net.SplitHostPort(tlsAddr)
	origin := "https://localhost:" + port
	client := &http.Client{Timeout: 10 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookies := map[string]string{}
	post := func(path, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("POST", origin+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		for name, value := range cookies {
			req.AddCookie(&http.Cookie{Name: name, Value: value})
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		for _, c := range resp.Cookies() {
			if !c.Secure {
				t.Errorf("%s: cookie %s is not Secure over HTTPS", path, c.Name)
			}
			cookies[c.Name] = c.Value
		}
		return resp, string(b)
	}

	if resp, body := post("/api/account/signup", `{"name": "Amina", "password": "kite-Umbrella-74-ledger"}`); resp.StatusCode != 201 {
		t.Fatalf("sign up through nginx: %d %s", resp.StatusCode, body)
	}
	delete(cookies, "endodoi_session")

	key := passkeytest.New(t, origin)
	resp, body := post("/api/account/passkey/register/begin", `{"name": "Baraka"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("passkey registration begins: %d %s", resp.StatusCode, body)
	}
	if resp, body := post("/api/account/passkey/register/finish", key.Create(t, body, "localhost")); resp.StatusCode != 201 {
		t.Fatalf("passkey registration at %s: %d %s", origin, resp.StatusCode, body)
	}
	delete(cookies, "endodoi_session")
	resp, body = post("/api/account/passkey/signin/begin", "")
	if resp.StatusCode != 200 {
		t.Fatalf("passkey sign-in begins: %d %s", resp.StatusCode, body)
	}
	if resp, body := post("/api/account/passkey/signin/finish", key.Get(t, body, "localhost")); resp.StatusCode != 200 || !strings.Contains(body, `"Baraka"`) {
		t.Fatalf("passkey sign-in at %s: %d %s", origin, resp.StatusCode, body)
	}

	// Plain HTTP is sent to HTTPS.
	plain, err := client.Get("http://" + httpAddr + "/")
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	if loc := plain.Header.Get("Location"); plain.StatusCode != 301 || !strings.HasPrefix(loc, "https://") {
		t.Errorf("plain HTTP: %d to %q, want 301 to https", plain.StatusCode, loc)
	}
}
