package webhook

import (
	"errors"
	"fmt"
	"strings"

	"svc/adapters/outbound"
)

// MaxURLLength is the longest webhook URL accepted, in bytes.
const MaxURLLength = 2048

// Error codes of spec A for a rejected webhook URL, as returned by Code.
const (
	// CodeURLRequired is the code of ErrURLRequired.
	CodeURLRequired = "webhook_url_required"
	// CodeURLNotHTTPS is the code of ErrURLNotHTTPS.
	CodeURLNotHTTPS = "webhook_url_https"
	// CodeURLInvalid is the code of ErrURLInvalid.
	CodeURLInvalid = "webhook_url_invalid"
)

// Sentinel errors of ValidateURL.
var (
	// ErrURLRequired is returned for an empty webhook URL.
	ErrURLRequired = errors.New("webhook: webhook_url is required")
	// ErrURLNotHTTPS is returned for a webhook URL whose scheme is not
	// https.
	ErrURLNotHTTPS = errors.New("webhook: webhook_url must use https")
	// ErrURLInvalid is returned for a webhook URL that does not parse, is
	// not absolute, has no host, carries user information or is longer
	// than MaxURLLength.
	ErrURLInvalid = errors.New("webhook: webhook_url is invalid")
)

// ValidateURL checks the syntax of a webhook URL given to execute. It does
// not resolve the host: private addresses are refused when a delivery
// connects (see outbound.NewClient), because the answer of DNS can change.
func ValidateURL(raw string) error {
	switch {
	case strings.TrimSpace(raw) == "":
		return ErrURLRequired
	case len(raw) > MaxURLLength:
		return fmt.Errorf("%w: longer than %d bytes", ErrURLInvalid, MaxURLLength)
	}
	err := outbound.CheckURL(raw, true)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, outbound.ErrNotHTTPS):
		return fmt.Errorf("%w: %w", ErrURLNotHTTPS, err)
	default:
		return fmt.Errorf("%w: %w", ErrURLInvalid, err)
	}
}

// Code returns spec A's error code for an error of ValidateURL, or "" for
// any other error (nil included).
func Code(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrURLRequired):
		return CodeURLRequired
	case errors.Is(err, ErrURLNotHTTPS):
		return CodeURLNotHTTPS
	case errors.Is(err, ErrURLInvalid):
		return CodeURLInvalid
	}
	return ""
}
