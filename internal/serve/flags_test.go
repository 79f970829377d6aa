package serve

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/limits"
)

// isJSONError reports whether rec is an error of the API: JSON, with a
// message.
func isJSONError(rec *httptest.ResponseRecorder) bool {
	var e struct{ Error string }
	return strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") &&
		json.Unmarshal(rec.Body.Bytes(), &e) == nil && e.Error != ""
}

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

func TestHostCheck(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	for _, tc := range []struct {
		listen string
		extra  []string
		host   string
		want   int
	}{
		{"127.0.0.1:8080", nil, "127.0.0.1:8080", 204},
		{"127.0.0.1:8080", nil, "localhost:8080", 204},
		{"127.0.0.1:8080", nil, "LOCALHOST", 204},
		{"127.0.0.1:8080", nil, "[::1]:8080", 204},
		{"127.0.0.1:8080", nil, "evil.example:8080", 421},
		{"127.0.0.1:8080", nil, "rebind.attacker.test", 421},
		{"127.0.0.1:8080", nil, "10.1.2.3:8080", 421},
		{"127.0.0.1:8080", []string{"endodoi.example.org"}, "endodoi.example.org", 204},
		{"127.0.0.1:8080", []string{"endodoi.example.org"}, "endodoi.example.org.:443", 204},
		{"myhost.lan:8080", nil, "myhost.lan:8080", 204},
		{"0.0.0.0:8080", nil, "127.0.0.1:8080", 204},
		{"0.0.0.0:8080", nil, "evil.example", 421},
	} {
		h := HostCheck(tc.listen, tc.extra, ok)
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = tc.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("listening on %s %v, Host %s: %d, want %d", tc.listen, tc.extra, tc.host, rec.Code, tc.want)
		}
		if rec.Code == 421 && !isJSONError(rec) {
			t.Errorf("Host %s: 421 is not a JSON error", tc.host)
		}
	}
}

func TestLimitFlags(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddLimitFlags(fs)
	if err := fs.Parse([]string{"--live-per-client", "7", "--games-per-hour", "9", "--analysis-time", "45s"}); err != nil {
		t.Fatal(err)
	}
	got := f.Limits().WithDefaults(4)
	want := limits.ClientLimits{LivePerClient: 7, MaxLive: got.MaxLive, GamesPerHour: 9, InvitesPerHour: 60, OpenInvites: 20,
		SearchShare: 2, AnalysisTime: 45 * time.Second, MoveSearches: 1}
	if got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	for _, bad := range [][]string{{"--open-invites", "0"}, {"--invites-per-hour", "x"}, {"--analysis-time", "2h"}} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		AddLimitFlags(fs)
		if err := fs.Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// --metrics-addr reaches ListenConfig, and never shares the site's
// address.
func TestMetricsAddrFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // MetricsAddr, or the error's text
		ok   bool
	}{
		{nil, "", true},
		{[]string{"--metrics-addr", "127.0.0.1:9090"}, "127.0.0.1:9090", true},
		{[]string{"--metrics-addr", "9090"}, "want host:port", false},
		{[]string{"--addr", "127.0.0.1:9090", "--metrics-addr", "127.0.0.1:9090"}, "the site's address", false},
		{[]string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--metrics-addr", ":443"}, "the site's address", false},
		{[]string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--metrics-addr", ":80"}, "the site's address", false},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		addr := fs.String("addr", "127.0.0.1:8080", "")
		site := AddSiteFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg := ListenConfig{Addr: *addr}
		err := site.Apply(fs, &cfg, t.TempDir())
		switch {
		case tc.ok && (err != nil || cfg.MetricsAddr != tc.want):
			t.Errorf("%q: %v, metrics at %q", tc.args, err, cfg.MetricsAddr)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
