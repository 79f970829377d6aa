package server

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/endodoi/endodoi/play"
)

// MaxHeaderBytes bounds a request's header lines, as counted by guard; the
// HTTP server's own, larger, limit (ListenAndServe) cuts off what is beyond.
const MaxHeaderBytes = 32 << 10

// guard checks what every API request must satisfy before a handler sees
// it: bounded headers, a JSON body for POSTs, and no request made by
// another site through the user's browser. Every refusal, and every error
// the router itself gives (404, 405), is answered as a JSON error.
func (s *Server) guarded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := headerSize(r); n > MaxHeaderBytes {
			WriteError(w, http.StatusRequestHeaderFieldsTooLarge, "request headers of %d bytes, over the limit of %d", n, MaxHeaderBytes)
			return
		}
		if err := sameOrigin(r, s.secure(r)); err != nil {
			WriteError(w, http.StatusForbidden, "%v", err)
			return
		}
		if r.Method == http.MethodPost {
			if err := jsonContent(r); err != nil {
				WriteError(w, http.StatusUnsupportedMediaType, "%v", err)
				return
			}
		}
		next.ServeHTTP(&jsonErrors{ResponseWriter: w, method: r.Method, path: r.URL.Path}, r)
	})
}

// headerSize counts the header fields; the request line is bounded by the
// HTTP server alone, so that a long URL is answered 404, not 431.
func headerSize(r *http.Request) int {
	n := len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// sameOrigin refuses a request that a browser sent on behalf of another
// site: its Sec-Fetch-Site says so, or its Origin is not this server's,
// host and scheme (https when secure). Requests without either header
// come from other programs (curl, the loadtest) and pass: they cannot
// ride on a user's browser.
func sameOrigin(r *http.Request, secure bool) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("cross-site requests are refused (Sec-Fetch-Site: %s)", clip(site))
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	scheme := "http"
	if secure {
		scheme = "https"
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) || !strings.EqualFold(u.Scheme, scheme) {
		return fmt.Errorf("requests from other sites are refused (Origin %s is not %s://%s)", clip(origin), scheme, clip(r.Host))
	}
	return nil
}

// jsonContent requires a JSON body type: a browser cannot send that to
// another site without asking it first (CORS), so forms and plain-text
// posts from other pages are refused even where Origin is missing.
func jsonContent(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		if ct == "" {
			ct = "none"
		}
		return fmt.Errorf("POST bodies must be JSON (Content-Type: application/json), not %s", clip(ct))
	}
	return nil
}

// clip shortens a client's text quoted in an error message.
func clip(s string) string { return play.Clip(s) }

// jsonErrors turns the router's plain-text errors (no such path, method not
// allowed) into JSON errors; handlers' own answers pass through untouched.
type jsonErrors struct {
	http.ResponseWriter
	method, path string
	swallow      bool
}

func (w *jsonErrors) WriteHeader(code int) {
	h := w.Header()
	if code >= 400 && !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		w.swallow = true
		msg := fmt.Sprintf("%s %s: %s", w.method, clip(w.path), strings.ToLower(http.StatusText(code)))
		switch code {
		case http.StatusNotFound:
			msg = fmt.Sprintf("no such API endpoint: %s %s", w.method, clip(w.path))
		case http.StatusMethodNotAllowed:
			msg = fmt.Sprintf("%s is not allowed on %s; use %s", w.method, clip(w.path), h.Get("Allow"))
		}
		h.Del("X-Content-Type-Options")
		WriteError(w.ResponseWriter, code, "%s", msg)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *jsonErrors) Write(b []byte) (int, error) {
	if w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *jsonErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }
