package outbound

import (
	"errors"
	"net/netip"
	"testing"
)

func TestBlocked(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		blocked bool
	}{
		// IPv4 ranges.
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"100.64.0.1", true},
		{"100.127.255.254", true},
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.0.0.8", true},
		{"192.0.2.10", true},
		{"192.88.99.1", true},
		{"192.168.1.1", true},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		// IPv6 ranges.
		{"::", true},
		{"::1", true},
		{"::127.0.0.1", true},
		{"::ffff:0:7f00:1", true},
		{"64:ff9b:1::1", true},
		{"100::1", true},
		{"2001::1", true},
		{"2001:db8::1", true},
		{"3fff::1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fec0::1", true},
		{"ff02::1", true},
		{"4000::1", true},
		// IPv4 inside IPv6.
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.1.2.3", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.0.1", true},
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"2002:7f00:1::1", true},
		{"2002:c0a8:101::1", true},
		// Public addresses.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"198.17.255.255", false},
		{"223.255.255.254", false},
		{"::ffff:8.8.8.8", false},
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001::1", false},
		{"64:ff9b::808:808", false},
		{"2002:808:808::1", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(tc.addr)
			got, why := Blocked(addr)
			if got != tc.blocked {
				t.Fatalf("Blocked(%s) = %v (%q), want %v", addr, got, why, tc.blocked)
			}
			if got && why == "" {
				t.Errorf("Blocked(%s) gives no reason", addr)
			}
			err := checkAddr(addr)
			if got != errors.Is(err, ErrBlockedAddress) {
				t.Errorf("checkAddr(%s) = %v", addr, err)
			}
		})
	}
}

// TestBlockedRangeEdges checks the first and last address of every listed
// range, in its IPv4-mapped form too.
func TestBlockedRangeEdges(t *testing.T) {
	for _, r := range blockedRanges {
		first := r.prefix.Masked().Addr()
		last := lastAddr(r.prefix)
		for _, a := range []netip.Addr{first, last} {
			if b, _ := Blocked(a); !b {
				t.Errorf("%s (%s, %s) not blocked", a, r.prefix, r.name)
			}
			if a.Is4() {
				mapped := netip.AddrFrom16(a.As16())
				if b, _ := Blocked(mapped); !b {
					t.Errorf("%s (%s) not blocked", mapped, r.prefix)
				}
			}
		}
	}
	if b, _ := Blocked(netip.Addr{}); !b {
		t.Error("the zero Addr is not blocked")
	}
}

// lastAddr returns the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
