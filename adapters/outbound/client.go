// Package outbound builds the HTTP client for every call to a URL a user
// gave (webhooks, context servers). The client refuses private and
// reserved addresses (see Blocked) at connect time, after DNS resolution,
// so neither a hostname pointing inside nor DNS rebinding between a check
// and the request can reach an internal service. Redirects are limited and
// re-checked, and the environment's proxy settings are ignored.
package outbound

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// DefaultTimeout bounds a whole request (connect, redirects, headers and
// body) when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// MaxRedirects is the most redirects a request follows.
const MaxRedirects = 3

// ErrBadCAFile is returned by NewClient when Options.ExtraCAFile cannot be
// read or holds no PEM certificate.
var ErrBadCAFile = errors.New("outbound: bad CA file")

// Options configures NewClient.
type Options struct {
	// AllowPrivate lets the client reach every address, private and
	// reserved ones included (SVC_ALLOW_PRIVATE_URLS; local testing only).
	AllowPrivate bool
	// ExtraCAFile is a PEM file of certificate authorities trusted in
	// addition to the system roots (SVC_OUTBOUND_CA_FILE); empty for none.
	ExtraCAFile string
	// Timeout bounds a whole request: zero means DefaultTimeout, a
	// negative value means no bound (for long-lived streams; the caller
	// then bounds each request with its context).
	Timeout time.Duration
}

// NewClient returns an HTTP client for user-given URLs: connections to
// blocked addresses fail with an error wrapping ErrBlockedAddress (unless
// o.AllowPrivate), at most MaxRedirects redirects are followed and never
// from https to http, TLS trusts the system roots plus o.ExtraCAFile, and
// no proxy is used.
func NewClient(o Options) (*http.Client, error) {
	check := checkAddr
	if o.AllowPrivate {
		check = func(netip.Addr) error { return nil }
	}
	return newClient(o, check)
}

// newClient is NewClient with the address check as a parameter, so tests
// can treat a loopback server as public.
func newClient(o Options, check func(netip.Addr) error) (*http.Client, error) {
	roots, err := rootCAs(o.ExtraCAFile)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{
		Timeout:   5 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   controlFunc(check),
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32, // a webhook receiver takes many deliveries at once (the dispatcher runs 32)
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	timeout := o.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultTimeout
	case timeout < 0:
		timeout = 0
	}
	return &http.Client{
		Transport:     transport,
		CheckRedirect: checkRedirect,
		Timeout:       timeout,
	}, nil
}

// controlFunc returns a net.Dialer.Control that applies check to the
// resolved address of every connection attempt.
func controlFunc(check func(netip.Addr) error) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: unparseable dial address %q", ErrBlockedAddress, address)
		}
		return check(ap.Addr())
	}
}

// checkRedirect is the client's redirect policy: at most MaxRedirects,
// never from https to http, and each target must pass CheckURL (the
// dialer checks its addresses).
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, MaxRedirects)
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: %s", ErrInsecureRedirect, req.URL.Redacted())
	}
	return checkParsed(req.URL, false)
}

// rootCAs returns the system roots, plus the certificates of caFile when
// it is set.
func rootCAs(caFile string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if caFile == "" {
		return pool, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCAFile, err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrBadCAFile, caFile)
	}
	return pool, nil
}
