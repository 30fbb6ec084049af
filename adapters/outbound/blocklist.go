package outbound

import (
	"fmt"
	"net/netip"
)

// blockedRange is one private or reserved address range with the reason
// it is refused.
type blockedRange struct {
	prefix netip.Prefix
	name   string
}

// blockedRanges lists the IPv4 and IPv6 ranges no outbound call may reach
// unless private addresses are allowed. IPv4-mapped IPv6 addresses are
// unmapped before the lookup, so ::ffff:127.0.0.1 matches 127.0.0.0/8.
var blockedRanges = []blockedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (incl. cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (incl. broadcast)"},

	{netip.MustParsePrefix("::/96"), "unspecified, loopback or IPv4-compatible"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (incl. Teredo)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

var (
	// globalUnicast6 is the only IPv6 space that is routed on the
	// internet today; anything outside it is refused.
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	// nat64 is the well-known NAT64 prefix; its last 32 bits are an IPv4
	// address, which is checked in turn.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// sixToFour embeds an IPv4 address in bits 16 to 47, checked in turn.
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Blocked reports whether addr lies in a private or reserved range (and
// why), as refused by NewClient and Resolve unless private addresses are
// allowed. Embedded IPv4 addresses (IPv4-mapped, NAT64 and 6to4) are
// checked as the IPv4 address they reach. An invalid addr is blocked.
func Blocked(addr netip.Addr) (bool, string) {
	if !addr.IsValid() {
		return true, "invalid address"
	}
	addr = addr.WithZone("").Unmap()
	for _, r := range blockedRanges {
		if r.prefix.Contains(addr) {
			return true, r.name
		}
	}
	if addr.Is4() {
		return false, ""
	}
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return embedded(netip.AddrFrom4([4]byte(b[12:16])), "NAT64")
	case sixToFour.Contains(addr):
		return embedded(netip.AddrFrom4([4]byte(b[2:6])), "6to4")
	case !globalUnicast6.Contains(addr):
		return true, "not IPv6 global unicast"
	}
	return false, ""
}

// embedded checks the IPv4 address v4 carried inside an IPv6 address of
// the given kind.
func embedded(v4 netip.Addr, kind string) (bool, string) {
	if blocked, why := Blocked(v4); blocked {
		return true, fmt.Sprintf("%s of %s", kind, why)
	}
	return false, ""
}

// checkAddr returns an error wrapping ErrBlockedAddress when addr is
// blocked.
func checkAddr(addr netip.Addr) error {
	if blocked, why := Blocked(addr); blocked {
		return fmt.Errorf("%w: %s is %s", ErrBlockedAddress, addr, why)
	}
	return nil
}
