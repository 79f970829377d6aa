package bus

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/bustest"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/store"
)

// wait is how long a test waits for what should come within a second or
// two.
const wait = 10 * time.Second

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// opener opens buses of one kind on one channel (for PostgreSQL, one
// database): the instances of a test.
type opener func(t *testing.T, via string) Bus

// openers returns an opener for kind, the buses' addresses to proxy,
// skipping the test without a server of that kind.
func openers(t *testing.T, kind string) (open opener, addr string) {
	t.Helper()
	if kind == bustest.Postgres {
		dbURL := pgtest.NewDatabase(t)
		return func(t *testing.T, via string) Bus {
			u := dbURL
			if via != "" {
				u = bustest.Via(t, dbURL, via)
			}
			st, err := store.OpenPostgres(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return NewPostgres(st)
		}, pgtest.Base(t)
	}
	busURL := bustest.URL(t, kind)
	return func(t *testing.T, via string) Bus {
		u := busURL
		if via != "" {
			u = bustest.Via(t, busURL, via)
		}
		b, err := Open(u, quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}, bustest.Server(t, kind).Host
}

// heard is what a bus's Listen has handed over.
type heard struct {
	mu      sync.Mutex
	notices []string
	gaps    int
	changed chan struct{}
}

// listen starts b's Listen until the test ends, and waits until it
// listens.
func listen(t *testing.T, b Bus) *heard {
	t.Helper()
	h := startListening(t, b)
	h.until(t, "the first catching up", func(_ []string, gaps int) bool { return gaps > 0 })
	waitFor(t, "the bus listening", func() bool { return b.Listening() == nil })
	return h
}

// startListening starts b's Listen until the test ends.
func startListening(t *testing.T, b Bus) *heard {
	h := &heard{changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := b.Listen(ctx, func(n string) {
			h.mu.Lock()
			if n == "" {
				h.gaps++
			} else {
				h.notices = append(h.notices, n)
			}
			h.mu.Unlock()
			select {
			case h.changed <- struct{}{}:
			default:
			}
		}); err != nil {
			t.Errorf("listening: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return h
}

// until waits for ok to hold of what was heard.
func (h *heard) until(t *testing.T, what string, ok func(notices []string, gaps int) bool) {
	t.Helper()
	deadline := time.After(wait)
	for {
		h.mu.Lock()
		done := ok(h.notices, h.gaps)
		n, gaps := len(h.notices), h.gaps
		h.mu.Unlock()
		if done {
			return
		}
		select {
		case <-h.changed:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: not within %v (%d notices heard, %d catchings up)", what, wait, n, gaps)
		}
	}
}

func (h *heard) state() (notices []string, gaps int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.notices...), h.gaps
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(wait); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
	}
}

// count returns the notices of prefix heard, in order.
func count(notices []string, prefix string) []int {
	var out []int
	for _, n := range notices {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			i, _ := strconv.Atoi(rest)
			out = append(out, i)
		}
	}
	return out
}

// inOrder reports whether got is 0, 1, ... n-1.
func inOrder(got []int, n int) error {
	if len(got) != n {
		return fmt.Errorf("%d heard, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			return fmt.Errorf("notice %d heard as number %d", i, v)
		}
	}
	return nil
}

// Two instances on one bus each hear every notice of both, themselves
// included, those of each in the order sent; an instance on another
// channel hears none of them.
func TestBusCarriesNotices(t *testing.T) {
	for _, kind := range bustest.Kinds {
		t.Run(kind, func(t *testing.T) {
			open, _ := openers(t, kind)
			a, b := open(t, ""), open(t, "")
			ha, hb := listen(t, a), listen(t, b)
			var other *heard
			if kind != bustest.Postgres {
				o := bustest.URL(t, kind)
				ob, err := Open(o, quiet)
				if err != nil {
					t.Fatal(err)
				}
				defer ob.Close()
				other = listen(t, ob)
			}
			const n = 500
			ctx := context.Background()
			for i := range n {
				for name, x := range map[string]Bus{"a": a, "b": b} {
					if err := x.Notify(ctx, name+strconv.Itoa(i)); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, h := range []*heard{ha, hb} {
				h.until(t, "every notice", func(ns []string, _ int) bool { return len(ns) >= 2*n })
				ns, _ := h.state()
				for _, p := range []string{"a", "b"} {
					if err := inOrder(count(ns, p), n); err != nil {
						t.Errorf("the notices of %s: %v", p, err)
					}
				}
			}
			if err := a.Notify(ctx, strings.Repeat("x", MaxNotice+1)); err == nil {
				t.Error("a notice over MaxNotice was taken")
			}
			if other != nil {
				if ns, _ := other.state(); len(ns) != 0 {
					t.Errorf("a bus on another channel heard %d notices", len(ns))
				}
			}
			if s := a.Stats(); s != (Stats{}) {
				t.Errorf("stats after no trouble: %+v", s)
			}
			if a.Transactional() != (kind == bustest.Postgres) {
				t.Errorf("%s transactional: %t", a, a.Transactional())
			}
		})
	}
}

// The bus goes away under instance A, its connections cut and new ones
// refused, or blackholed (nothing answers, nothing is refused), and comes
// back: A stops listening meanwhile, drops and counts what it could not
// send, and once back it catches up, and so does B, told of A's dropped
// notices; notices flow again both ways.
func TestBusRestart(t *testing.T) {
	faults := map[string]struct{ fault, mend func(*pgtest.Proxy) }{
		"cut":        {func(p *pgtest.Proxy) { p.Refuse(true); p.Cut() }, func(p *pgtest.Proxy) { p.Refuse(false) }},
		"blackholed": {func(p *pgtest.Proxy) { p.Blackhole(true) }, func(p *pgtest.Proxy) { p.Blackhole(false) }},
	}
	for _, kind := range []string{bustest.NATS, bustest.Redis} {
		for name, f := range faults {
			t.Run(kind+" "+name, func(t *testing.T) {
				open, addr := openers(t, kind)
				proxy := pgtest.NewProxy(t, addr)
				a, b := open(t, proxy.Addr()), open(t, "")
				ha, hb := listen(t, a), listen(t, b)
				_, gapsA := ha.state()
				_, gapsB := hb.state()
				ctx := context.Background()
				f.fault(proxy)
				start := time.Now()
				waitFor(t, "A no longer listening", func() bool { return a.Listening() != nil })
				t.Logf("A found the bus gone after %v", time.Since(start).Round(time.Millisecond))
				for i := range 10 {
					a.Notify(ctx, "lost"+strconv.Itoa(i))
				}
				waitFor(t, "A's notices dropped", func() bool { return a.Stats().Dropped > 0 })
				f.mend(proxy)
				waitFor(t, "A listening again", func() bool { return a.Listening() == nil })
				ha.until(t, "A catching up", func(_ []string, g int) bool { return g > gapsA })
				hb.until(t, "B catching up on A's dropped notices", func(_ []string, g int) bool { return g > gapsB })
				if s := a.Stats(); s.Outages != 1 {
					t.Errorf("A's stats: %+v, want 1 outage", s)
				}
				for i := range 3 {
					a.Notify(ctx, "a"+strconv.Itoa(i))
					b.Notify(ctx, "b"+strconv.Itoa(i))
				}
				for name, h := range map[string]*heard{"A": ha, "B": hb} {
					h.until(t, name+" hearing both again", func(ns []string, _ int) bool {
						return len(count(ns, "a")) == 3 && len(count(ns, "b")) == 3
					})
				}
			})
		}
	}
}

// An instance whose bus is down when it starts opens it all the same,
// and listens once the bus is there, catching up then.
func TestBusStartsDown(t *testing.T) {
	for _, kind := range []string{bustest.NATS, bustest.Redis} {
		t.Run(kind, func(t *testing.T) {
			open, addr := openers(t, kind)
			proxy := pgtest.NewProxy(t, addr)
			proxy.Refuse(true)
			a, b := open(t, proxy.Addr()), open(t, "")
			hb := listen(t, b)
			h := startListening(t, a)
			time.Sleep(300 * time.Millisecond)
			if a.Listening() == nil {
				t.Fatal("listening through a proxy that refuses")
			}
			if s := a.Stats(); s.Outages != 1 {
				t.Errorf("stats while down: %+v, want 1 outage", s)
			}
			proxy.Refuse(false)
			h.until(t, "A catching up once the bus is there", func(_ []string, g int) bool { return g > 0 })
			waitFor(t, "A listening", func() bool { return a.Listening() == nil })
			b.Notify(context.Background(), "b0")
			h.until(t, "A hearing B", func(ns []string, _ int) bool { return slices.Contains(ns, "b0") })
			hb.until(t, "B hearing itself", func(ns []string, _ int) bool { return slices.Contains(ns, "b0") })
		})
	}
}

// Open takes the URLs of NATS and Redis with a channel, and refuses
// others.
func TestOpen(t *testing.T) {
	for _, bad := range []string{"http://127.0.0.1:4222", "nats://127.0.0.1:4222?channel=a*b", "redis://127.0.0.1:6379?nonsense=1", "://"} {
		if b, err := Open(bad, quiet); err == nil {
			b.Close()
			t.Errorf("Open(%q) took it", bad)
		}
	}
	for _, good := range []string{"nats://127.0.0.1:1", "redis://127.0.0.1:1/0?channel=site_a"} {
		if !IsURL(good) {
			t.Errorf("IsURL(%q) = false", good)
		}
		b, err := Open(good, quiet)
		if err != nil {
			t.Errorf("Open(%q): %v", good, err)
			continue
		}
		if err := b.Listening(); err == nil {
			t.Errorf("%s listening before Listen", b)
		}
		b.Close()
	}
	if IsURL("postgres://x") {
		t.Error("IsURL took a PostgreSQL URL")
	}
}
