package serve

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"
)

// The stop's defaults: a load balancer probing every second or two
// notices an instance is not ready within the drain; the requests in
// flight, the longest an analysis (MaxAnalysisTime), finish within the
// rest of the timeout.
const (
	DefaultDrain           = 5 * time.Second
	DefaultShutdownTimeout = 20 * time.Second
)

// SiteFlags are the serve command's options for a public site: HTTPS,
// plain HTTP beside it, and the stop.
type SiteFlags struct {
	domains         nameList
	email, acmeDir  string
	cert, key       string
	httpAddr        string
	drain, shutdown time.Duration
	metricsAddr     string
}

// AddSiteFlags defines the options of SiteFlags on fs.
func AddSiteFlags(fs *flag.FlagSet) *SiteFlags {
	f := &SiteFlags{}
	fs.Var(&f.domains, "tls-domain", "serve HTTPS for the domain `name`, with certificates obtained and renewed automatically from Let's Encrypt; it must reach this server on ports 443 and 80 (repeatable)")
	fs.StringVar(&f.email, "tls-email", "", "an `address` for the certificate authority's notices (with --tls-domain)")
	fs.StringVar(&f.acmeDir, "acme-directory", "", "the ACME directory `URL` of another certificate authority than Let's Encrypt (with --tls-domain)")
	fs.StringVar(&f.cert, "tls-cert", "", "serve HTTPS with the PEM certificate chain in `file` (with --tls-key)")
	fs.StringVar(&f.key, "tls-key", "", "the PEM private key `file` of --tls-cert")
	fs.StringVar(&f.httpAddr, "http-addr", "", "with HTTPS, the `host:port` of plain HTTP, which redirects to HTTPS and answers the certificate authority's challenges (default :80; off for none)")
	fs.DurationVar(&f.drain, "drain", DefaultDrain, "on SIGTERM or Ctrl-C, how long to keep serving while /readyz answers 503, if a load balancer has probed it")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", DefaultShutdownTimeout, "on SIGTERM or Ctrl-C, the longest the server takes to stop, the drain included")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve metrics for Prometheus at http://`host:port`/metrics, apart from the site; keep it private, e.g. 127.0.0.1:9090 (default off)")
	return f
}

// Apply checks the options of SiteFlags as set on fs and puts them into
// cfg; data is the data folder, where the certificates obtained are kept.
// Without --addr, HTTPS listens on :443.
func (f *SiteFlags) Apply(fs *flag.FlagSet, cfg *ListenConfig, data string) error {
	if f.drain < 0 || f.shutdown <= 0 || f.drain >= f.shutdown {
		return fmt.Errorf("--drain %v and --shutdown-timeout %v: want a drain of 0 or more, shorter than the timeout", f.drain, f.shutdown)
	}
	cfg.DrainTime, cfg.ShutdownTimeout = f.drain, f.shutdown
	cfg.MetricsAddr = f.metricsAddr
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if len(f.domains) == 0 && f.cert == "" && f.key == "" {
		if set["http-addr"] || set["tls-email"] || set["acme-directory"] {
			return errors.New("--http-addr, --tls-email and --acme-directory go with HTTPS: add --tls-domain, or --tls-cert and --tls-key")
		}
		return f.checkMetricsAddr(cfg)
	}
	c := &TLSConfig{Domains: f.domains, Email: f.email, ACMEDirectory: f.acmeDir, CertFile: f.cert, KeyFile: f.key, HTTPAddr: f.httpAddr}
	if len(f.domains) > 0 {
		c.CacheDir = CacheDirIn(data)
	}
	switch c.HTTPAddr {
	case "":
		c.HTTPAddr = ":80"
	case "off":
		c.HTTPAddr = ""
	}
	if err := c.Check(); err != nil {
		return err
	}
	if !set["addr"] {
		cfg.Addr = ":443"
	}
	if c.HTTPAddr != "" && c.HTTPAddr == cfg.Addr {
		return fmt.Errorf("--http-addr %s is --addr too: plain HTTP needs a port of its own", c.HTTPAddr)
	}
	cfg.TLS = c
	return f.checkMetricsAddr(cfg)
}

// nameList collects a repeated option of domain names.
type nameList []string

func (l *nameList) String() string { return strings.Join(*l, ",") }

func (l *nameList) Set(v string) error {
	v = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(v), "."))
	if v == "" || strings.ContainsAny(v, "/ :@") {
		return fmt.Errorf("%q is not a domain name (give the name alone, without scheme or port)", v)
	}
	*l = append(*l, v)
	return nil
}
