package outbound

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// ErrInternalHost is returned by CheckServerURL for a host name that only
// an internal network resolves (localhost, .internal, .local, a single
// label such as "metadata").
var ErrInternalHost = errors.New("outbound: internal host name")

// internalSuffixes are the name suffixes of internal networks (RFC 6761,
// RFC 6762, RFC 8375 and the clouds' metadata names).
var internalSuffixes = []string{".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp", ".localdomain"}

// CheckServerURL applies to a URL a user registers (a context server) the
// rules that need no DNS: CheckURL with https, then its host must not be
// a blocked address literal (ErrBlockedAddress: private, loopback,
// link-local and metadata, carrier-grade NAT, IPv4-mapped IPv6, reserved)
// nor an internal host name (ErrInternalHost), unless allowPrivate. The
// addresses a name resolves to are checked by Resolve and, at connect
// time, by the client.
func CheckServerURL(raw string, allowPrivate bool) error {
	if err := CheckURL(raw, true); err != nil {
		return err
	}
	if allowPrivate {
		return nil
	}
	u, _ := url.Parse(raw)
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		return checkAddr(ip)
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return fmt.Errorf("%w: %q", ErrInternalHost, host)
	}
	for _, s := range internalSuffixes {
		if strings.HasSuffix(host, s) {
			return fmt.Errorf("%w: %q (%s)", ErrInternalHost, host, s)
		}
	}
	return nil
}
