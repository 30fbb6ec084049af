package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrNoAddress is returned by Resolve when a host has no A or AAAA record.
var ErrNoAddress = errors.New("outbound: host has no address")

// lookupNetIP resolves host; a variable so tests can fake DNS.
var lookupNetIP = net.DefaultResolver.LookupNetIP

// LookupFunc resolves a host name to its addresses (network "ip", "ip4"
// or "ip6"), as net.Resolver.LookupNetIP does.
type LookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

// Resolve resolves host (a name or an IP literal, brackets allowed, no
// port) and checks every A and AAAA record: when any is blocked and
// allowPrivate is false it returns an error wrapping ErrBlockedAddress.
// On success it returns every address, for display (for example as a
// connection test's resolved_ips). The addresses a later connection uses
// are checked again by the client, so this is a report, not the guard.
func Resolve(ctx context.Context, host string, allowPrivate bool) ([]netip.Addr, error) {
	return ResolveUsing(ctx, lookupNetIP, host, allowPrivate)
}

// ResolveUsing is Resolve with lookup as the resolver (nil: the system's).
func ResolveUsing(ctx context.Context, lookup LookupFunc, host string, allowPrivate bool) ([]netip.Addr, error) {
	if lookup == nil {
		lookup = lookupNetIP
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return nil, fmt.Errorf("%w: empty host", ErrInvalidURL)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = lookup(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("outbound: resolve %q: %w", host, err)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoAddress, host)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap()
		if !allowPrivate {
			if err := checkAddr(a); err != nil {
				return nil, fmt.Errorf("outbound: %q: %w", host, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}
