package outbound

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

func TestCheckServerURL(t *testing.T) {
	for raw, want := range map[string]error{
		"https://mcp.example.com/mcp":             nil,
		"https://93.184.216.34/mcp":               nil,
		"http://mcp.example.com/mcp":              ErrNotHTTPS,
		"https://127.0.0.1:8443/mcp":              ErrBlockedAddress,
		"https://169.254.169.254/latest":          ErrBlockedAddress,
		"https://[::ffff:10.0.0.1]/mcp":           ErrBlockedAddress,
		"https://100.64.1.1/mcp":                  ErrBlockedAddress,
		"https://[fd00::1]/mcp":                   ErrBlockedAddress,
		"https://localhost/mcp":                   ErrInternalHost,
		"https://metadata/computeMetadata":        ErrInternalHost,
		"https://metadata.google.internal/x":      ErrInternalHost,
		"https://printer.local/":                  ErrInternalHost,
		"https://db.corp.":                        ErrInternalHost,
		"https://user:pw@mcp.example.com/mcp":     ErrInvalidURL,
		"https://LOCALHOST./mcp":                  ErrInternalHost,
		"https://mcp.example.com.localhost:1/mcp": ErrInternalHost,
	} {
		err := CheckServerURL(raw, false)
		if (want == nil) != (err == nil) || want != nil && !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", raw, err, want)
		}
	}
	if err := CheckServerURL("https://127.0.0.1:8443/mcp", true); err != nil {
		t.Errorf("allowed private: %v", err)
	}
}

func TestResolveUsing(t *testing.T) {
	lookup := func(context.Context, string, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("::ffff:192.168.1.1")}, nil
	}
	if _, err := ResolveUsing(context.Background(), lookup, "mixed.example.com", false); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("one private record among public ones: %v", err)
	}
	addrs, err := ResolveUsing(context.Background(), lookup, "mixed.example.com", true)
	if err != nil || len(addrs) != 2 || addrs[1].String() != "192.168.1.1" {
		t.Fatalf("%v %v", addrs, err)
	}
}
