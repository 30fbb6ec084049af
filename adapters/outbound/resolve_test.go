package outbound

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// fakeDNS replaces the resolver for one test.
func fakeDNS(t *testing.T, records map[string][]string) {
	t.Helper()
	orig := lookupNetIP
	t.Cleanup(func() { lookupNetIP = orig })
	lookupNetIP = func(_ context.Context, _, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, s := range records[host] {
			out = append(out, netip.MustParseAddr(s))
		}
		return out, nil
	}
}

func TestResolve(t *testing.T) {
	fakeDNS(t, map[string][]string{
		"public.example":   {"93.184.216.34", "2606:2800:220:1::1"},
		"mixed.example":    {"93.184.216.34", "10.0.0.5"},
		"metadata.example": {"::ffff:169.254.169.254"},
		"empty.example":    nil,
	})
	ctx := context.Background()
	for _, tc := range []struct {
		host         string
		allowPrivate bool
		want         []string
		err          error
	}{
		{host: "public.example", want: []string{"93.184.216.34", "2606:2800:220:1::1"}},
		{host: "mixed.example", err: ErrBlockedAddress},
		{host: "mixed.example", allowPrivate: true, want: []string{"93.184.216.34", "10.0.0.5"}},
		{host: "metadata.example", err: ErrBlockedAddress},
		{host: "metadata.example", allowPrivate: true, want: []string{"169.254.169.254"}},
		{host: "empty.example", err: ErrNoAddress},
		{host: "127.0.0.1", err: ErrBlockedAddress},
		{host: "[::1]", err: ErrBlockedAddress},
		{host: "[::1]", allowPrivate: true, want: []string{"::1"}},
		{host: "8.8.8.8", want: []string{"8.8.8.8"}},
		{host: "", err: ErrInvalidURL},
	} {
		got, err := Resolve(ctx, tc.host, tc.allowPrivate)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Resolve(%q, %v) error = %v, want %v", tc.host, tc.allowPrivate, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q, %v): %v", tc.host, tc.allowPrivate, err)
			continue
		}
		var strs []string
		for _, a := range got {
			strs = append(strs, a.String())
		}
		if !slices.Equal(strs, tc.want) {
			t.Errorf("Resolve(%q, %v) = %v, want %v", tc.host, tc.allowPrivate, strs, tc.want)
		}
	}
}

func TestResolveLookupError(t *testing.T) {
	orig := lookupNetIP
	t.Cleanup(func() { lookupNetIP = orig })
	boom := errors.New("no such host")
	lookupNetIP = func(context.Context, string, string) ([]netip.Addr, error) { return nil, boom }
	if _, err := Resolve(context.Background(), "nx.example", false); !errors.Is(err, boom) {
		t.Fatalf("error = %v, want %v", err, boom)
	}
}
