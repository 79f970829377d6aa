package serve

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "endodoi test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue returns the PEM of a key and of a certificate for names (DNS
// names, or IP addresses), signed by the CA.
func (ca *testCA) issue(t *testing.T, names ...string) (keyPEM, certPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// servingTest is ListenAndServe running in a test, with the URLs of its
// startup lines.
type servingTest struct {
	url, plain string // https://host:port/ and host:port of plain HTTP
	stop       func() error
}

// startServing serves a new SQLite store with cfg until the test ends.
func startServing(t *testing.T, cfg ListenConfig) *servingTest {
	t.Helper()
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	out, outW := io.Pipe()
	done := make(chan error, 1)
	cfg.Addr, cfg.Out = "127.0.0.1:0", outW
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	go func() {
		done <- ListenAndServe(ctx, st, cfg)
		outW.Close()
	}()
	s := &servingTest{stop: sync1(func() error { cancel(); return <-done })}
	t.Cleanup(func() { s.stop() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		if u, ok := strings.CutPrefix(line, "endodoi: play at "); ok {
			s.url = u
		}
		if a, ok := strings.CutPrefix(line, "endodoi: plain HTTP on "); ok {
			s.plain = strings.TrimSuffix(a, " redirects to HTTPS")
		}
		if s.url != "" && (s.plain != "" || cfg.TLS == nil || cfg.TLS.HTTPAddr == "") && strings.HasPrefix(line, "endodoi: games are kept") ||
			s.plain != "" {
			break
		}
	}
	go io.Copy(io.Discard, out)
	if s.url == "" {
		t.Fatalf("no startup line; ListenAndServe: %v", s.stop())
	}
	return s
}

// sync1 returns f that runs once, and gives its first result every time.
func sync1(f func() error) func() error {
	var once bool
	var err error
	return func() error {
		if !once {
			once, err = true, f()
		}
		return err
	}
}

// httpsClient trusts ca alone, reaches every name at the address addr,
// and does not follow redirections.
func httpsClient(ca *testCA, addr string, conf func(*tls.Config)) *http.Client {
	tc := &tls.Config{RootCAs: ca.pool}
	if conf != nil {
		conf(tc)
	}
	dial := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   tc,
			ForceAttemptHTTP2: true,
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dial.DialContext(ctx, network, addr)
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func get(t *testing.T, c *http.Client, method, url, host string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"holes": 6}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if host != "" {
		req.Host = host
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// With its own certificate files, the server answers over HTTPS (TLS 1.2
// at least, HTTP/2 offered) with HSTS, live connections included; plain
// HTTP redirects there, except the health checks; the Host check holds on
// both ports.
func TestTLSFromFiles(t *testing.T) {
	ca := newTestCA(t)
	keyPEM, certPEM := ca.issue(t, "localhost", "127.0.0.1")
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServing(t, ListenConfig{TLS: &TLSConfig{CertFile: certFile, KeyFile: keyFile, HTTPAddr: "127.0.0.1:0"}})
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") || s.plain == "" {
		t.Fatalf("startup lines: %q and plain HTTP %q", s.url, s.plain)
	}
	hostport := strings.TrimSuffix(strings.TrimPrefix(s.url, "https://"), "/")
	c := httpsClient(ca, hostport, nil)

	resp := get(t, c, "POST", s.url+"api/games", "")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/games over HTTPS: %d", resp.StatusCode)
	}
	if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 || resp.ProtoMajor != 2 {
		t.Errorf("HTTPS answer over %s, TLS %+v; want HTTP/2 over TLS 1.2 or later", resp.Proto, resp.TLS)
	}
	for _, path := range []string{"api/games", "api/nothing", "healthz"} {
		if got := get(t, c, "GET", s.url+path, "").Header.Get("Strict-Transport-Security"); got != HSTS {
			t.Errorf("GET /%s over HTTPS: Strict-Transport-Security %q, want %q", path, got, HSTS)
		}
	}
	if resp := get(t, c, "GET", s.url+"api/games", "attacker.example"); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("HTTPS with Host attacker.example: %d, want 421", resp.StatusCode)
	}

	// A live connection over TLS: the upgrade takes HTTP/1.1 beside HTTP/2.
	ws, _, err := websocket.Dial(context.Background(), "wss://"+hostport+"/api/games/"+newGame(t, c, s.url)+"/live",
		&websocket.DialOptions{HTTPClient: httpsClient(ca, hostport, nil)})
	if err != nil {
		t.Fatalf("live connection over TLS: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, msg, err := ws.Read(ctx)
	cancel()
	if err != nil || !strings.Contains(string(msg), `"type":"game"`) {
		t.Errorf("live connection's first message %.80q, %v", msg, err)
	}
	ws.CloseNow()

	// Old protocols are refused.
	old := httpsClient(ca, hostport, func(c *tls.Config) { c.MaxVersion = tls.VersionTLS11 })
	if _, err := old.Get(s.url); err == nil {
		t.Error("a TLS 1.1 client was served")
	}

	plain := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	port := hostport[strings.LastIndex(hostport, ":"):]
	for _, tc := range []struct {
		method, path, host string
		status             int
		location           string
	}{
		{"GET", "/api/games?limit=2", "", http.StatusMovedPermanently, "https://127.0.0.1" + port + "/api/games?limit=2"},
		{"GET", "/", "localhost:80", http.StatusMovedPermanently, "https://localhost" + port + "/"},
		{"POST", "/api/games", "", http.StatusPermanentRedirect, "https://127.0.0.1" + port + "/api/games"},
		{"GET", "/", "attacker.example", http.StatusMisdirectedRequest, ""},
		// A load balancer probes by address, whatever name it gives.
		{"GET", "/healthz", "10.1.2.3:80", http.StatusOK, ""},
		{"GET", "/readyz", "10.1.2.3:80", http.StatusOK, ""},
	} {
		resp := get(t, plain, tc.method, "http://"+s.plain+tc.path, tc.host)
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("plain HTTP %s %s (Host %q): %d to %q, want %d to %q", tc.method, tc.path, tc.host,
				resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
		}
	}
	if err := s.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// newGame creates a game over c and returns its ID.
func newGame(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"api/games", strings.NewReader(`{"holes": 6}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var g struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil || g.ID == "" {
		t.Fatalf("creating a game: %d, %v", resp.StatusCode, err)
	}
	return g.ID
}

// With --tls-domain, certificates come from the ACME manager: for the
// domain, from its cache in the data folder (issuance itself needs an ACME
// authority, which the test has not); for any other name, none, without
// asking the authority. The plain HTTP port hands the challenges' path to
// the manager.
func TestTLSDomain(t *testing.T) {
	ca := newTestCA(t)
	keyPEM, certPEM := ca.issue(t, "endodoi.test")
	cache := t.TempDir()
	// The cache's format: the key, then the chain, under the domain.
	if err := os.WriteFile(filepath.Join(cache, "endodoi.test"), append(keyPEM, certPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	// The authority is unreachable: a name outside the list must not
	// reach it, and the cached one need not.
	s := startServing(t, ListenConfig{TLS: &TLSConfig{Domains: []string{"endodoi.test"}, CacheDir: cache,
		ACMEDirectory: "http://127.0.0.1:1/directory", HTTPAddr: "127.0.0.1:0"}})
	if !strings.HasPrefix(s.url, "https://endodoi.test:") {
		t.Fatalf("startup line names %q, want the domain", s.url)
	}
	hostport := strings.TrimSuffix(strings.TrimPrefix(s.url, "https://"), "/")
	addr := "127.0.0.1" + hostport[strings.LastIndex(hostport, ":"):]
	c := httpsClient(ca, addr, nil)
	resp := get(t, c, "GET", s.url+"api/games", "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Strict-Transport-Security") != HSTS {
		t.Errorf("GET /api/games on the domain: %d, HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
	start := time.Now()
	other := httpsClient(ca, addr, func(c *tls.Config) { c.ServerName = "other.test" })
	if _, err := other.Get("https://other.test/"); err == nil {
		t.Error("a name outside --tls-domain got a certificate")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("refusing another name took %v", d)
	}

	plain := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path, host string
		status     int
	}{
		{"/.well-known/acme-challenge/no-such-token", "endodoi.test", http.StatusNotFound},
		{"/.well-known/acme-challenge/no-such-token", "other.test", http.StatusForbidden},
		{"/", "endodoi.test", http.StatusMovedPermanently},
		{"/", "other.test", http.StatusMisdirectedRequest},
	} {
		if resp := get(t, plain, "GET", "http://"+s.plain+tc.path, tc.host); resp.StatusCode != tc.status {
			t.Errorf("plain HTTP GET %s (Host %s): %d, want %d", tc.path, tc.host, resp.StatusCode, tc.status)
		}
	}
}

// The serve options of a public site refuse the combinations that cannot
// work, naming the options.
func TestSiteFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the error; "" for none
	}{
		{nil, ""},
		{[]string{"--tls-domain", "example.org"}, ""},
		{[]string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--http-addr", "off"}, ""},
		{[]string{"--tls-domain", "example.org", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "choose one"},
		{[]string{"--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-key", "k.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--http-addr", ":8081"}, "go with HTTPS"},
		{[]string{"--tls-email", "a@example.org"}, "go with HTTPS"},
		{[]string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-email", "a@example.org"}, "go with --tls-domain"},
		{[]string{"--tls-domain", "*.example.org"}, "no wildcard"},
		{[]string{"--tls-domain", "10.0.0.1"}, "no address"},
		{[]string{"--tls-domain", "example.org", "--addr", ":8443", "--http-addr", ":8443"}, "a port of its own"},
		{[]string{"--drain", "30s"}, "shorter than the timeout"},
		{[]string{"--shutdown-timeout", "0s"}, "shorter than the timeout"},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		addr := fs.String("addr", "127.0.0.1:8080", "")
		f := AddSiteFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		cfg := ListenConfig{Addr: *addr}
		err := f.Apply(fs, &cfg, "/data")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
	// The defaults of a site over HTTPS: ports 443 and 80, the
	// certificates in the data folder, the domain allowed.
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "")
	f := AddSiteFlags(fs)
	if err := fs.Parse([]string{"--tls-domain", "Example.org."}); err != nil {
		t.Fatal(err)
	}
	cfg := ListenConfig{Addr: *addr}
	if err := f.Apply(fs, &cfg, "/data"); err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":443" || cfg.TLS.HTTPAddr != ":80" || cfg.TLS.CacheDir != "/data/acme" ||
		len(cfg.TLS.Domains) != 1 || cfg.TLS.Domains[0] != "example.org" ||
		cfg.DrainTime != DefaultDrain || cfg.ShutdownTimeout != DefaultShutdownTimeout {
		t.Errorf("defaults: addr %s, %+v, drain %v, timeout %v", cfg.Addr, *cfg.TLS, cfg.DrainTime, cfg.ShutdownTimeout)
	}
}

// A certificate that cannot be loaded stops the server before it listens,
// saying which files.
func TestTLSBadFiles(t *testing.T) {
	dir := t.TempDir()
	certFile := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(certFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := ListenAndServe(context.Background(), nil, ListenConfig{Addr: "127.0.0.1:0",
		TLS: &TLSConfig{CertFile: certFile, KeyFile: filepath.Join(dir, "missing.pem")}})
	if err == nil || !strings.Contains(err.Error(), "loading --tls-cert "+certFile) {
		t.Errorf("ListenAndServe with bad files: %v", err)
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		t.Errorf("it listened first: %v", err)
	}
}
