package serve

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// TLSConfig says how ListenAndServe serves HTTPS: with certificates
// obtained and renewed over ACME (Domains), or read from files (CertFile
// and KeyFile). Exactly one of the two.
type TLSConfig struct {
	// Domains are the names to obtain certificates for, from Let's
	// Encrypt unless ACMEDirectory says another authority. The server
	// answers to them (HostCheck), and asks for no other.
	Domains []string
	// Email, if set, is given to the authority for notices about the
	// certificates.
	Email string
	// ACMEDirectory is the authority's directory URL; empty means Let's
	// Encrypt's.
	ACMEDirectory string
	// CacheDir keeps the ACME account key and the certificates, so that
	// a restart does not ask for them again.
	CacheDir string
	// CertFile and KeyFile are a PEM certificate chain and its key.
	CertFile, KeyFile string
	// HTTPAddr, if set, is where plain HTTP is answered: the ACME
	// challenges, the health checks, and a redirection to HTTPS for
	// everything else.
	HTTPAddr string
}

// HSTS is the Strict-Transport-Security header of every HTTPS answer:
// browsers that have seen it use HTTPS alone for a year. It leaves out
// includeSubDomains, which would bind the other sites of the domain.
const HSTS = "max-age=31536000"

// Check returns an error naming the serve options at fault when c is not
// a usable combination.
func (c *TLSConfig) Check() error {
	hasFiles := c.CertFile != "" || c.KeyFile != ""
	switch {
	case len(c.Domains) > 0 && hasFiles:
		return errors.New("--tls-domain and --tls-cert/--tls-key: choose one (certificates obtained automatically, or your own files)")
	case hasFiles && (c.CertFile == "" || c.KeyFile == ""):
		return errors.New("--tls-cert and --tls-key go together: give the certificate chain and its key")
	case len(c.Domains) == 0 && !hasFiles:
		return errors.New("no certificate: give --tls-domain, or --tls-cert and --tls-key")
	case len(c.Domains) > 0 && c.CacheDir == "":
		return errors.New("no folder to keep the certificates in")
	case (c.Email != "" || c.ACMEDirectory != "") && len(c.Domains) == 0:
		return errors.New("--tls-email and --acme-directory go with --tls-domain")
	}
	for _, d := range c.Domains {
		if strings.HasPrefix(d, "*") || net.ParseIP(d) != nil || !strings.Contains(d, ".") {
			return fmt.Errorf("--tls-domain %s: want a public domain name such as example.org (no wildcard, no address)", d)
		}
	}
	return nil
}

// tlsSetup is what serving HTTPS takes, made before listening.
type tlsSetup struct {
	config *tls.Config
	// challenges answers the ACME HTTP-01 challenges on the HTTP port
	// and passes everything else to its argument.
	challenges func(http.Handler) http.Handler
}

// setup checks c and loads its certificate, or makes its ACME manager.
func (c *TLSConfig) setup(log *slog.Logger) (*tlsSetup, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// For TLS 1.2, forward secrecy and authenticated encryption
		// only; TLS 1.3's suites are all of that kind.
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
		NextProtos: []string{"h2", "http/1.1"},
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading --tls-cert %s and --tls-key %s: %w", c.CertFile, c.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
		return &tlsSetup{config: cfg, challenges: func(h http.Handler) http.Handler { return h }}, nil
	}
	m := &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		Cache:      autocert.DirCache(c.CacheDir),
		HostPolicy: autocert.HostWhitelist(c.Domains...),
		Email:      c.Email,
	}
	if c.ACMEDirectory != "" {
		m.Client = &acme.Client{DirectoryURL: c.ACMEDirectory}
	}
	ours := map[string]bool{}
	for _, d := range c.Domains {
		ours[strings.ToLower(d)] = true
	}
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		cert, err := m.GetCertificate(hello)
		// Names of other sites are refused without a word: scanners
		// try many.
		if err != nil && ours[strings.ToLower(hello.ServerName)] {
			log.Error("obtaining a certificate", "name", hello.ServerName, "err", err)
		}
		return cert, err
	}
	// The TLS-ALPN-01 challenge is answered on the HTTPS port itself.
	cfg.NextProtos = append(cfg.NextProtos, acme.ALPNProto)
	return &tlsSetup{config: cfg, challenges: m.HTTPHandler}, nil
}

// CacheDirIn is where the ACME certificates are kept in the data folder.
func CacheDirIn(data string) string { return filepath.Join(data, "acme") }

// withHSTS sets the HSTS header on every answer of next.
func withHSTS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", HSTS)
		next.ServeHTTP(w, r)
	})
}

// redirectHTTPS answers every request with a redirection to the same URL
// over HTTPS on port (omitted when 443). The host is the request's, which
// the Host check has allowed.
func redirectHTTPS(port int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if port != 443 {
			host = net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))
		} else if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			host = "[" + host + "]"
		}
		code := http.StatusPermanentRedirect // keeps the method and body
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			code = http.StatusMovedPermanently
		}
		http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), code)
	})
}

// plainHTTPServer is the server of the HTTP port beside HTTPS: short
// requests only (redirections, challenges, probes).
func plainHTTPServer(h http.Handler, errLog *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(errLog.Handler(), slog.LevelWarn),
	}
}
