package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxAnswer bounds the bytes read of one answer: a game's JSON lists a
// position per ply, so even long games stay far below it.
const maxAnswer = 8 << 20

// lookupIPAddr resolves host names; tests replace it to fake a resolver.
var lookupIPAddr = net.DefaultResolver.LookupIPAddr

// target checks that raw is an http(s) address of this computer and returns
// it without a trailing slash. A host name must resolve to loopback
// addresses only, so that a load test never reaches another machine.
func target(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server address %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("server address %q: want http://host:port", raw)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("server address %q: no host", raw)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.Unmap().IsLoopback() {
			return "", fmt.Errorf("server address %q: %s is not a loopback address; a load test only drives a server on this computer (127.0.0.0/8 or ::1)", raw, host)
		}
	} else {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err := lookupIPAddr(lctx, host)
		if err != nil {
			return "", fmt.Errorf("server address %q: resolving %s: %w", raw, host, err)
		}
		if len(addrs) == 0 {
			return "", fmt.Errorf("server address %q: %s resolves to no address", raw, host)
		}
		for _, a := range addrs {
			ip, ok := netip.AddrFromSlice(a.IP)
			if !ok || !ip.Unmap().IsLoopback() {
				return "", fmt.Errorf("server address %q: %s resolves to %s, not a loopback address; a load test only drives a server on this computer (127.0.0.0/8 or ::1)", raw, host, a.IP)
			}
		}
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// loopbackOnly is the dialer's last check, on the address actually dialled:
// it holds even if the name resolves differently after target checked it.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("refusing to connect to %s: not a loopback address", address)
	}
	return nil
}

// client sends the API requests of a run.
type client struct {
	base    string
	http    *http.Client
	timeout time.Duration
}

// newClient returns a client for conns concurrent keep-alive connections
// to the one server at base.
func newClient(base string, conns int, timeout time.Duration) *client {
	tr := &http.Transport{
		Proxy: nil, // never through a proxy: the traffic stays on loopback
		DialContext: (&net.Dialer{
			Timeout:   timeout,
			KeepAlive: 30 * time.Second,
			Control:   loopbackOnly,
		}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     0,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: timeout,
	}
	return &client{
		base:    base,
		timeout: timeout,
		http: &http.Client{
			Transport: tr,
			// A redirect would leave the API under test; take the answer as is.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// close closes the idle connections, so that none outlives the run.
func (c *client) close() { c.http.CloseIdleConnections() }

// answer is a server's answer to one request.
type answer struct {
	status     int
	retryAfter time.Duration // from a Retry-After header in seconds; 0 if none
	body       []byte
	header     http.Header
}

// do sends one request with the client's timeout and reads the whole
// answer, so that the connection can be reused.
func (c *client) do(ctx context.Context, method, path string, body []byte) (answer, error) {
	return c.doAs(ctx, method, path, body, "")
}

// doAs is do with a session cookie (a header value, name=value), if not
// empty: the request of a signed-in player.
func (c *client) doAs(ctx context.Context, method, path string, body []byte, cookie string) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if len(data) > maxAnswer {
		return answer{}, &badAnswer{fmt.Sprintf("%s %s: answer over %d bytes", method, path, maxAnswer)}
	}
	a := answer{status: resp.StatusCode, body: data, header: resp.Header}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		a.retryAfter = time.Duration(s) * time.Second
	}
	return a, nil
}

// badAnswer is an answer that does not say what the API promises.
type badAnswer struct{ msg string }

func (e *badAnswer) Error() string { return e.msg }

// errorKind names the kind of a failed request for the report.
func errorKind(err error) string {
	var ba *badAnswer
	var ne net.Error
	switch {
	case errors.As(err, &ba):
		return "bad answer"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return "other"
}
