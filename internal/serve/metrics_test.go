package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// The metrics, with the process's own, are served on their own address
// (the startup lines say where), and the site does not serve them.
func TestMetricsAddr(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, st, ListenConfig{Addr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", Out: outW,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		outW.Close()
	}()
	var base, metricsURL string
	for base == "" || metricsURL == "" {
		line, err := readLine(out)
		if err != nil {
			t.Fatalf("startup lines: %v", err)
		}
		if u, ok := strings.CutPrefix(line, "endodoi: play at "); ok {
			base = strings.TrimSuffix(u, "/")
		}
		if u, ok := strings.CutPrefix(line, "endodoi: metrics at "); ok {
			metricsURL = u
		}
	}
	go io.Copy(io.Discard, out)
	if strings.HasPrefix(metricsURL, base+"/") {
		t.Fatalf("the metrics %s are served on the site's address %s", metricsURL, base)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, name := range []string{"endodoi_search_slots ", "endodoi_live_games ", "go_goroutines ", "process_open_fds "} {
		if !strings.Contains(string(text), "\n"+name) {
			t.Errorf("no %s in the metrics:\n%s", name, text)
		}
	}
	if resp, err := http.Get(base + "/metrics"); err != nil || resp.StatusCode == http.StatusOK {
		t.Errorf("GET /metrics on the site: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
