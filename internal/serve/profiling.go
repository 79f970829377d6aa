package serve

// Go's profiles (net/http/pprof) on the metrics address, when that address
// is this machine's alone: they show where a loaded server spends its time
// and what its goroutines wait for, and they tell too much (every
// goroutine's stack, the command line) to be served to a network.

import (
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"sync"
)

// profileRate is the sampling of the block and mutex profiles while one is
// taken: one event in this many (the mutex profile), and one blocking
// event per this many nanoseconds (the block profile). They are off
// otherwise, as they cost every lock and channel operation some time.
const profileRate = 100

// addProfiling serves Go's profiles under /debug/pprof/ on mux if addr is
// a loopback address; it reports whether it did.
func addProfiling(mux *http.ServeMux, addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		return false
	}
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	// A block or mutex profile over ?seconds=N is sampled for those
	// seconds only.
	var mu sync.Mutex
	sampled := func(name string) http.HandlerFunc {
		h := pprof.Handler(name)
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("seconds") == "" {
				h.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			runtime.SetBlockProfileRate(profileRate)
			runtime.SetMutexProfileFraction(profileRate)
			defer runtime.SetBlockProfileRate(0)
			defer runtime.SetMutexProfileFraction(0)
			h.ServeHTTP(w, r)
		}
	}
	mux.Handle("GET /debug/pprof/block", sampled("block"))
	mux.Handle("GET /debug/pprof/mutex", sampled("mutex"))
	return true
}
