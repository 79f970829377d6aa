package metrics

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/endodoi/endodoi/store"
)

// Without a registry nothing is counted, and nothing fails; with one, the
// requests, the live upgrades, the searches' waits and the notices heard
// are counted as the server tells them, and the sources read when
// scraped.
func TestMetrics(t *testing.T) {
	var none *Metrics
	none.Request("/api/games", "POST", 201, time.Millisecond)
	none.Upgraded("/api/games/{id}/live", "GET")
	none.SearchWaited(time.Millisecond, nil)
	none.NoticeHeard(time.Now().UnixMicro(), time.Now())
	if New(nil, nil, Sources{}, slog.Default()) != nil {
		t.Fatal("metrics without a registry")
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := prometheus.NewRegistry()
	m := New(reg, st, Sources{Live: func() (int, int, int, int) { return 2, 1, 0, 1 }, Slots: func() (int, int, int) { return 3, 1, 0 }},
		slog.Default())
	m.Request("/api/games", "POST", 201, time.Millisecond)
	m.Upgraded("/api/games/{id}/live", "GET")
	m.SearchWaited(time.Millisecond, nil)
	m.SearchWaited(time.Millisecond, errors.New("busy"))
	m.SearchWaited(time.Millisecond, context.Canceled)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{} // the samples of each metric
	for _, f := range fams {
		got[f.GetName()] = len(f.GetMetric())
	}
	for name, want := range map[string]int{"endodoi_http_requests_total": 2, "endodoi_http_request_duration_seconds": 1,
		"endodoi_search_wait_seconds": 3, "endodoi_live_connections": 3, "endodoi_live_games": 1, "endodoi_search_slots": 1,
		"endodoi_notice_listening": 0, "endodoi_store_write_failures_total": 1} {
		if got[name] != want {
			t.Errorf("%s: %d samples, want %d", name, got[name], want)
		}
	}
}
