package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/loadtest"
)

// nginxPath is Debian's nginx, which .ci/run installs.
const nginxPath = "/usr/sbin/nginx"

// freeAddr returns a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startNginx runs nginx in the foreground as a load balancer in front of
// upstreams, configured as docs/deploy.md says (WebSocket upgrade, the
// next instance when one refuses, never a live one marked down: a live
// connection holds its upstream's check open), and returns its URL. It is killed at
// the end of the test.
func startNginx(t *testing.T, upstreams ...string) string {
	t.Helper()
	needNginx(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	var servers strings.Builder
	for _, u := range upstreams {
		fmt.Fprintf(&servers, "        server %s max_fails=0;\n", u)
	}
	// master_process off: one process, as the test's own user, that the
	// test can kill.
	conf := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    upstream endodoi {
%[2]s    }
    map $http_upgrade $connection_upgrade {
        default upgrade;
        ''      close;
    }
    server {
        listen %[3]s;
        location / {
            proxy_pass http://endodoi;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_read_timeout 120s;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
        }
    }
}
`, dir, servers.String(), addr)
	runNginx(t, dir, conf, addr)
	return "http://" + addr
}

// needNginx skips the test without nginx, but in CI, where it fails.
func needNginx(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(nginxPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nginx is required in CI (.ci/run installs it): %v", err)
		}
		t.Skipf("skipping: no nginx at %s (apt-get install nginx)", nginxPath)
	}
}

// runNginx runs nginx in the foreground with the configuration conf,
// written in dir, until the end of the test, and waits for it to listen
// on addr.
func runNginx(t *testing.T, dir, conf, addr string) {
	t.Helper()
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginxPath, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", path)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		// Its log has a line for every request tried on a stopped
		// instance and passed to the next: only worth reading on failure.
		if log, _ := os.ReadFile(filepath.Join(dir, "error.log")); t.Failed() && len(log) > 0 {
			t.Logf("nginx's error log:\n%s", log)
		}
	})
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("nginx stopped: %v: %s", err, &out)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("nginx does not listen on %s: %s", addr, &out)
		}
	}
}

// readiness polls /readyz of an instance, as a load balancer with active
// health checks does, and remembers whether it ever answered 503.
type readiness struct {
	mu       sync.Mutex
	notReady map[string]bool
}

func (r *readiness) poll(ctx context.Context, addrs ...string) {
	c := &http.Client{Timeout: time.Second}
	for ctx.Err() == nil {
		for _, a := range addrs {
			resp, err := c.Get("http://" + a + "/readyz")
			if err != nil {
				continue
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable {
				r.mu.Lock()
				r.notReady[a] = true
				r.mu.Unlock()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitReady waits for the instance at addr to answer /readyz with 200.
func waitReady(t *testing.T, addr string) {
	t.Helper()
	c := &http.Client{Timeout: time.Second}
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(20 * time.Millisecond) {
		if resp, err := c.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("%s is not ready after 15 s", addr)
}

// TestRollingRestart plays online games through nginx in front of two
// instances on one PostgreSQL database, and restarts each instance in
// turn (SIGTERM, then start again) in the middle of the load: each stops
// being ready, drains, closes its live connections with "going away" and
// exits cleanly; every client reconnects through nginx to the other
// instance; no acknowledged move is lost or doubled.
func TestRollingRestart(t *testing.T) {
	db := pgtest.NewDatabase(t)
	addrs := []string{freeAddr(t), freeAddr(t)}
	lb := startNginx(t, addrs...)
	args := []string{"--db", db, "--behind-proxy", "--egtb-build=false", "--drain", "1s", "--shutdown-timeout", "10s"}
	data := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	procs := make([]*serverProcess, 2)
	for i := range procs {
		procs[i] = startServerAt(t, data[i], addrs[i], args...)
	}
	for _, a := range addrs {
		waitReady(t, a)
	}
	ctx, stopPolling := context.WithCancel(context.Background())
	defer stopPolling()
	probes := &readiness{notReady: map[string]bool{}}
	go probes.poll(ctx, addrs...)

	type result struct {
		rep *loadtest.Report
		err error
	}
	done := make(chan result, 1)
	const games, load = 20, 12 * time.Second
	go func() {
		rep, err := loadtest.Run(context.Background(), loadtest.Config{
			BaseURL: lb, Online: true, Games: games, Rate: 2, Duration: load, Ramp: time.Second,
			Timeout: 5 * time.Second, Seed: 24, Check: true, ExpectRestart: true,
		})
		done <- result{rep, err}
	}()

	time.Sleep(3 * time.Second)
	for i, p := range procs {
		start := time.Now()
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := p.wait(); err != nil {
			t.Errorf("instance %d exited with %v; stderr:\n%s", i, err, p.stderr)
		}
		stopped := time.Since(start)
		if log := p.stderr.String(); !strings.Contains(log, "draining") || strings.Contains(log, "cut off") {
			t.Errorf("instance %d's log of its stop:\n%s", i, log)
		}
		procs[i] = startServerAt(t, data[i], addrs[i], args...)
		waitReady(t, addrs[i])
		t.Logf("instance %d: stopped in %v, ready again %v after the SIGTERM", i, stopped.Round(time.Millisecond),
			time.Since(start).Round(time.Millisecond))
		time.Sleep(2 * time.Second)
	}
	res := <-done
	stopPolling()
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	t.Logf("through nginx, each instance restarted in turn:\n%v", rep)
	t.Logf("longest gap a client saw: %v (of %d reconnections)", rep.ReconnectGap.Max, rep.ReconnectGap.N)
	if rep.Check == nil || rep.Check.Failed() || rep.Lost > 0 || rep.Duplicated > 0 {
		t.Errorf("acknowledged moves lost or doubled: check %v, %d lost, %d duplicated", rep.Check, rep.Lost, rep.Duplicated)
	}
	if rep.ErrorCount() > 0 || rep.Unanswered > 0 {
		t.Errorf("%d failed requests %v, %d moves unanswered", rep.ErrorCount(), rep.FirstErrors, rep.Unanswered)
	}
	// The clients of each instance were told it was going away, and came
	// back: no connection broke without a word.
	for kind := range rep.Disconnects {
		if kind != "WS close 1001" {
			t.Errorf("disconnects of kind %q: %s", kind, rep.FirstDisconnects[kind])
		}
	}
	if rep.ReconnectGap.N == 0 || rep.Reconnects < int64(rep.ReconnectGap.N) {
		t.Errorf("%d reconnections for %d gaps", rep.Reconnects, rep.ReconnectGap.N)
	}
	if rep.GamesCreated < games || rep.Delivered == 0 {
		t.Errorf("%d games, %d moves delivered", rep.GamesCreated, rep.Delivered)
	}
	probes.mu.Lock()
	defer probes.mu.Unlock()
	for _, a := range addrs {
		if !probes.notReady[a] {
			t.Errorf("%s never said it was not ready while it stopped", a)
		}
	}
}
