package pgtest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// echoServer echoes what each connection sends and keeps all it received.
type echoServer struct {
	ln   net.Listener
	mu   sync.Mutex
	got  bytes.Buffer
	conn chan struct{} // one value per connection ended
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echoServer{ln: ln, conn: make(chan struct{}, 100)}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer func() { c.Close(); e.conn <- struct{}{} }()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					e.mu.Lock()
					e.got.Write(buf[:n])
					e.mu.Unlock()
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return e
}

func (e *echoServer) received() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.got.String()
}

// dial connects to addr and fails the test if it cannot.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return c
}

// roundTrip sends s on c and reports whether it came back.
func roundTrip(c net.Conn, s string) bool {
	if _, err := c.Write([]byte(s)); err != nil {
		return false
	}
	buf := make([]byte, len(s))
	_, err := io.ReadFull(c, buf)
	return err == nil && string(buf) == s
}

// ended reports whether the proxy closed c within a second: reading it
// (an echo may still come first) ends in an error other than the
// deadline.
func ended(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := io.Copy(io.Discard, c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// CutWhen cuts at the point asked, even with the marker split over two
// reads, and lets the server have exactly the bytes before that point.
func TestProxyCutWhen(t *testing.T) {
	for _, tc := range []struct {
		at       CutPoint
		received string
	}{
		{BeforeMarker, "a-MA"},
		{AfterMarker, "a-MARK-b"},
		{AfterNext, "a-MARK-bc"},
	} {
		t.Run(tc.at.String(), func(t *testing.T) {
			e := newEchoServer(t)
			p := NewProxy(t, e.ln.Addr().String())
			sprung := p.CutWhen("MARK", tc.at)
			c := dial(t, p.Addr())
			if !roundTrip(c, "a-MA") {
				t.Fatal("the bytes before the marker did not come back")
			}
			select {
			case <-sprung:
				t.Fatal("sprung before the marker went by")
			default:
			}
			if tc.at == AfterNext {
				if !roundTrip(c, "RK-b") {
					t.Fatal("cut before the next bytes")
				}
				c.Write([]byte("c"))
			} else {
				c.Write([]byte("RK-b"))
			}
			select {
			case <-sprung:
			case <-time.After(5 * time.Second):
				t.Fatal("the trap did not spring")
			}
			if !ended(c) {
				t.Error("the client's connection is still open")
			}
			select {
			case <-e.conn:
			case <-time.After(5 * time.Second):
				t.Fatal("the server's connection is still open")
			}
			if got := e.received(); got != tc.received {
				t.Errorf("the server received %q, want %q", got, tc.received)
			}
			// Sprung once: the next connection goes through.
			if c := dial(t, p.Addr()); !roundTrip(c, "MARK") {
				t.Error("a connection after the trap sprang was cut")
			}
		})
	}
}

// Cut ends open connections but lets new ones through; Refuse refuses new
// ones until it is lifted.
func TestProxyCutRefuse(t *testing.T) {
	e := newEchoServer(t)
	p := NewProxy(t, e.ln.Addr().String())
	c := dial(t, p.Addr())
	if !roundTrip(c, "one") {
		t.Fatal("nothing forwarded")
	}
	p.Cut()
	if !ended(c) {
		t.Error("a connection open at the cut is still open")
	}
	if c := dial(t, p.Addr()); !roundTrip(c, "two") {
		t.Error("a connection after the cut is not forwarded")
	}
	p.Refuse(true)
	// Reset at once: the dial itself may fail.
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if roundTrip(c, "three") || !ended(c) {
			t.Error("a connection was forwarded while refusing")
		}
		c.Close()
	}
	p.Refuse(false)
	if c := dial(t, p.Addr()); !roundTrip(c, "four") {
		t.Error("a connection is not forwarded once refusing stops")
	}
}

// StallListeners silences the connections that sent LISTEN, and only
// them, without closing them.
func TestProxyStallListeners(t *testing.T) {
	e := newEchoServer(t)
	p := NewProxy(t, e.ln.Addr().String())
	listener, other := dial(t, p.Addr()), dial(t, p.Addr())
	if !roundTrip(listener, "LIST") || !roundTrip(listener, "EN ch;") || !roundTrip(other, "SELECT 1;") {
		t.Fatal("nothing forwarded")
	}
	if n := p.StallListeners(); n != 1 {
		t.Errorf("%d connections stalled, want 1", n)
	}
	listener.Write([]byte("x"))
	listener.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := listener.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("reading the stalled connection: %v, want nothing until the deadline", err)
	}
	if !roundTrip(other, "SELECT 2;") {
		t.Error("the connection that does not listen was stalled")
	}
}

// Blackhole silences every connection, open or new, without closing it;
// once it ends, the silenced ones are cut and new ones go through.
func TestProxyBlackhole(t *testing.T) {
	e := newEchoServer(t)
	p := NewProxy(t, e.ln.Addr().String())
	open := dial(t, p.Addr())
	if !roundTrip(open, "one") {
		t.Fatal("nothing forwarded")
	}
	p.Blackhole(true)
	silent := func(c net.Conn, what string) {
		t.Helper()
		c.Write([]byte("x"))
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("reading %s in the blackhole: %v, want nothing until the deadline", what, err)
		}
	}
	silent(open, "a connection open before")
	fresh := dial(t, p.Addr())
	silent(fresh, "a new connection")
	p.Blackhole(false)
	for _, c := range []net.Conn{open, fresh} {
		if !ended(c) {
			t.Error("a connection silenced by the blackhole is still open after it")
		}
	}
	if c := dial(t, p.Addr()); !roundTrip(c, "two") {
		t.Error("a connection is not forwarded once the blackhole ends")
	}
}
