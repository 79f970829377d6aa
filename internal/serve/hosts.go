package serve

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/server"
)

// HostCheck serves only requests addressed to one of the server's names,
// so that a web page on a domain the attacker controls, pointed at this
// computer by DNS rebinding, cannot read or change its games. The names
// are those of the address listened on, localhost and the loopback
// addresses, the extra names given, and, for a server listening on every
// interface, the addresses of this machine's interfaces.
func HostCheck(listen string, extra []string, next http.Handler) http.Handler {
	allowed := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	if host != "" {
		allowed[strings.ToLower(host)] = true
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					allowed[n.IP.String()] = true
				}
			}
		}
	}
	for _, h := range extra {
		allowed[strings.ToLower(strings.TrimSuffix(h, "."))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Host
		if h, _, err := net.SplitHostPort(name); err == nil {
			name = h
		}
		name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
		if !allowed[name] {
			server.WriteError(w, http.StatusMisdirectedRequest,
				"this server does not answer to the name %q; start it with --host %s to allow it", play.Clip(r.Host), play.Clip(name))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HostList collects a repeated flag of host names, for HostCheck.
type HostList []string

func (h *HostList) String() string { return strings.Join(*h, ",") }

func (h *HostList) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, "/ :@") {
		return fmt.Errorf("%q is not a host name (give the name alone, without scheme or port)", v)
	}
	*h = append(*h, v)
	return nil
}
