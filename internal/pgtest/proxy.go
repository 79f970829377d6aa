package pgtest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards TCP connections to a PostgreSQL server (or any TCP
// server: a message bus), as the network between a program and its
// database, one that fails when the test says:
//
//   - Cut closes every open connection at once, as when the server goes
//     away or the network drops;
//   - Refuse(true) refuses new connections, so the program cannot connect
//     again, until Refuse(false);
//   - CutWhen cuts the one connection on which the client sends a given
//     text, just before, just after or a message after it goes by, to
//     break a statement or a commit halfway;
//   - StallListeners makes the connections that LISTEN go silent without
//     closing, as behind a firewall that drops them quietly, and
//     CutListeners closes them;
//   - Blackhole(true) makes every connection, open or new, go silent so:
//     the database neither answers nor refuses, until Blackhole(false).
//
// A test makes one with NewProxy and points its database URL's host at
// Addr. The proxy's address stays the same through cuts and refusals, so
// the program can come back through it.
type Proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[*proxyConn]struct{}
	cuts   int // Cuts so far: a connection accepted before one is cut too
	refuse bool
	dark   bool // Blackhole: every connection is stalled
	closed bool
	trap   *trap
}

// CutPoint says where in the client's bytes CutWhen cuts the connection.
type CutPoint int

const (
	// BeforeMarker cuts without passing on the bytes that hold the marker:
	// the server never sees them.
	BeforeMarker CutPoint = iota
	// AfterMarker passes on the bytes that hold the marker, then cuts:
	// the server has the statement but the client never hears its answer.
	AfterMarker
	// AfterNext passes on the bytes that hold the marker and the client's
	// next bytes (say, the commit after a statement), then cuts.
	AfterNext
)

func (p CutPoint) String() string {
	switch p {
	case BeforeMarker:
		return "before"
	case AfterMarker:
		return "after"
	case AfterNext:
		return "next"
	}
	return "CutPoint(?)"
}

// trap is an armed CutWhen.
type trap struct {
	marker []byte
	at     CutPoint
	sprung chan struct{}
}

// proxyConn is one forwarded connection.
type proxyConn struct {
	client, server net.Conn
	listens        atomic.Bool // the client sent LISTEN on it
	stalled        atomic.Bool // bytes go nowhere, and the connection stays open
}

// tailSize is how much of what a client sent is kept to find a marker
// that straddles two reads: markers are at most this long.
const tailSize = 1 << 10

// listenCommand marks a connection that listens for notices, written as
// the store writes it.
var listenCommand = []byte("LISTEN ")

// NewProxy starts a proxy to target, a host:port. It stops when the test
// ends, cutting the connections still open.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting a proxy to PostgreSQL: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[*proxyConn]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// Addr returns the proxy's address, host:port, to connect to instead of
// the server's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection now, both ways. New connections are
// still forwarded unless refused.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cuts++
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		p.cut(c)
	}
}

// Refuse makes the proxy refuse new connections (resetting them as soon
// as they are made, so the client's connect fails) or, given false,
// forward them again. Open connections are left as they are: Cut them.
func (p *Proxy) Refuse(refuse bool) {
	p.mu.Lock()
	p.refuse = refuse
	p.mu.Unlock()
}

// CutWhen arms a trap: the first connection on which the client then
// sends marker (a text at most 1 KiB long, found even when it comes in
// two reads) is cut at the point at. The channel returned is closed once
// the connection is cut. Arming a trap replaces one not yet sprung.
func (p *Proxy) CutWhen(marker string, at CutPoint) <-chan struct{} {
	if len(marker) == 0 || len(marker) > tailSize {
		panic("pgtest: a CutWhen marker must be 1 to 1024 bytes long")
	}
	tr := &trap{marker: []byte(marker), at: at, sprung: make(chan struct{})}
	p.mu.Lock()
	p.trap = tr
	p.mu.Unlock()
	return tr.sprung
}

// StallListeners makes every open connection on which the client sent
// LISTEN go silent without closing: what either side sends is dropped,
// so notices are lost and nothing tells the client so. It returns how
// many connections it stalled.
func (p *Proxy) StallListeners() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		if c.listens.Load() {
			c.stalled.Store(true)
			n++
		}
	}
	return n
}

// CutListeners closes every open connection on which the client sent
// LISTEN, as when the database restarts under a listener, and leaves the
// others open. It returns how many it cut.
func (p *Proxy) CutListeners() int {
	p.mu.Lock()
	var listeners []*proxyConn
	for c := range p.conns {
		if c.listens.Load() {
			listeners = append(listeners, c)
		}
	}
	p.mu.Unlock()
	for _, c := range listeners {
		p.cut(c)
	}
	return len(listeners)
}

// Blackhole(true) stalls every open connection, and every new one from
// its start, as StallListeners stalls those that listen: what either side
// sends is dropped and nothing is closed, so the program waits for answers
// that never come. Blackhole(false) ends it: the stalled connections,
// whose bytes were lost, are cut, and new ones are forwarded again.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	p.dark = on
	var stalled []*proxyConn
	for c := range p.conns {
		if on {
			c.stalled.Store(true)
		} else if c.stalled.Load() {
			stalled = append(stalled, c)
		}
	}
	p.mu.Unlock()
	for _, c := range stalled {
		p.cut(c)
	}
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse, cuts, dark := p.refuse, p.cuts, p.dark
		p.mu.Unlock()
		if refuse {
			if tc, ok := client.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset, not an orderly end
			}
			client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		c := &proxyConn{client: client, server: server}
		c.stalled.Store(dark)
		p.mu.Lock()
		// A Cut or the end while dialling ends this connection too.
		live := !p.closed && p.cuts == cuts
		if live {
			p.conns[c] = struct{}{}
		}
		p.mu.Unlock()
		if !live {
			client.Close()
			server.Close()
			continue
		}
		p.wg.Go(func() { p.toServer(c) })
		p.wg.Go(func() { p.toClient(c) })
	}
}

// toServer forwards what the client sends, watching for LISTEN and for
// the trap's marker.
func (p *Proxy) toServer(c *proxyConn) {
	defer p.cut(c)
	buf := make([]byte, 64<<10)
	tail := make([]byte, 0, tailSize)
	var pending *trap // sprung at AfterNext: cut after the next bytes
	for {
		n, err := c.client.Read(buf)
		if err != nil {
			return
		}
		chunk := buf[:n]
		if contains(tail, chunk, listenCommand) {
			c.listens.Store(true)
		}
		if c.stalled.Load() {
			tail = keepTail(tail, chunk)
			continue
		}
		if pending != nil {
			c.server.Write(chunk)
			close(pending.sprung)
			return
		}
		p.mu.Lock()
		tr := p.trap
		hit := tr != nil && contains(tail, chunk, tr.marker)
		if hit {
			p.trap = nil
		}
		p.mu.Unlock()
		if hit {
			switch tr.at {
			case BeforeMarker:
				close(tr.sprung)
				return
			case AfterMarker:
				c.server.Write(chunk)
				close(tr.sprung)
				return
			case AfterNext:
				pending = tr
			}
		}
		if _, err := c.server.Write(chunk); err != nil {
			return
		}
		tail = keepTail(tail, chunk)
	}
}

// toClient forwards what the server sends, unless the connection is
// stalled.
func (p *Proxy) toClient(c *proxyConn) {
	defer p.cut(c)
	buf := make([]byte, 64<<10)
	for {
		n, err := c.server.Read(buf)
		if err != nil {
			return
		}
		if c.stalled.Load() {
			continue
		}
		if _, err := c.client.Write(buf[:n]); err != nil {
			return
		}
	}
}

// cut closes c both ways and forgets it.
func (p *Proxy) cut(c *proxyConn) {
	c.client.Close()
	c.server.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// close stops the proxy at the end of the test and waits for its
// goroutines.
func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

// contains reports whether marker is in chunk or straddles the end of
// tail, the bytes before chunk, and chunk's start.
func contains(tail, chunk, marker []byte) bool {
	if bytes.Contains(chunk, marker) {
		return true
	}
	n := len(marker) - 1
	if n <= 0 {
		return false
	}
	joint := make([]byte, 0, 2*n)
	joint = append(joint, tail[max(0, len(tail)-n):]...)
	joint = append(joint, chunk[:min(len(chunk), n)]...)
	return bytes.Contains(joint, marker)
}

// keepTail returns tail with chunk after it, cut to its last tailSize
// bytes.
func keepTail(tail, chunk []byte) []byte {
	if len(chunk) >= tailSize {
		return append(tail[:0], chunk[len(chunk)-tailSize:]...)
	}
	if drop := len(tail) + len(chunk) - tailSize; drop > 0 {
		tail = tail[:copy(tail, tail[drop:])]
	}
	return append(tail, chunk...)
}
