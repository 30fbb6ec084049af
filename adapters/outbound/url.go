package outbound

import (
	"errors"
	"fmt"
	"net/url"
)

// Sentinel errors of CheckURL, the client's redirect policy and the
// address check.
var (
	// ErrInvalidURL is returned for a URL that is not an absolute http or
	// https URL with a host and without user information.
	ErrInvalidURL = errors.New("outbound: invalid URL")
	// ErrNotHTTPS is returned when HTTPS is required and the URL's scheme
	// is another one.
	ErrNotHTTPS = errors.New("outbound: URL is not HTTPS")
	// ErrBlockedAddress is returned when a host resolves to, or a
	// connection would reach, a private or reserved address. errors.Is
	// finds it through the *url.Error of an http.Client call.
	ErrBlockedAddress = errors.New("outbound: address is private or reserved")
	// ErrTooManyRedirects is returned when a request is redirected more
	// than MaxRedirects times.
	ErrTooManyRedirects = errors.New("outbound: too many redirects")
	// ErrInsecureRedirect is returned when an https request is redirected
	// to an http URL.
	ErrInsecureRedirect = errors.New("outbound: redirect from https to http")
)

// CheckURL validates the syntax of raw before any request: it must be
// absolute, use the http or https scheme (https only when requireHTTPS),
// name a host and carry no user information. It neither resolves the host
// nor checks addresses; the client does that at connect time.
func CheckURL(raw string, requireHTTPS bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	return checkParsed(u, requireHTTPS)
}

// checkParsed applies CheckURL's rules to a parsed URL.
func checkParsed(u *url.URL, requireHTTPS bool) error {
	switch {
	case !u.IsAbs() || u.Opaque != "":
		return fmt.Errorf("%w: not an absolute URL", ErrInvalidURL)
	case u.Scheme != "http" && u.Scheme != "https":
		if requireHTTPS {
			return fmt.Errorf("%w: scheme %q", ErrNotHTTPS, u.Scheme)
		}
		return fmt.Errorf("%w: scheme %q, want http or https", ErrInvalidURL, u.Scheme)
	case u.Hostname() == "":
		return fmt.Errorf("%w: no host", ErrInvalidURL)
	case u.User != nil:
		return fmt.Errorf("%w: user information not allowed", ErrInvalidURL)
	case requireHTTPS && u.Scheme != "https":
		return fmt.Errorf("%w: scheme %q", ErrNotHTTPS, u.Scheme)
	}
	return nil
}
