package cli

import (
	"strings"
	"testing"
)

// The options of a public site that cannot go together stop serve before
// it opens anything, with a usage error naming them.
func TestServeSiteErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", "cert.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-domain", "example.org", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "choose one"},
		{[]string{"--http-addr", ":8081"}, "go with HTTPS"},
		{[]string{"--tls-domain", "example.org:443"}, "not a domain name"},
		{[]string{"--drain", "30s", "--shutdown-timeout", "10s"}, "shorter than the timeout"},
	} {
		args := append([]string{"serve", "--data", t.TempDir()}, tc.args...)
		code, _, errOut := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
