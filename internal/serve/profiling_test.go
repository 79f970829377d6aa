package serve

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Go's profiles are served beside the metrics on a loopback address only.
func TestProfilingOnLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want bool
	}{{"127.0.0.1", true}, {"::1", true}, {"10.0.0.5", false}, {"0.0.0.0", false}} {
		mux := http.NewServeMux()
		got := addProfiling(mux, &net.TCPAddr{IP: net.ParseIP(c.ip), Port: 9090})
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/pprof/goroutine?debug=1", nil))
		if got != c.want || (rec.Code == http.StatusOK) != c.want {
			t.Errorf("metrics on %s: profiles served %v (status %d); want %v", c.ip, got, rec.Code, c.want)
		}
	}
}
