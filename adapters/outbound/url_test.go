package outbound

import (
	"errors"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		raw          string
		requireHTTPS bool
		want         error
	}{
		{"https://example.com/hook", true, nil},
		{"https://example.com:8443/hook?x=1", true, nil},
		{"http://example.com/hook", false, nil},
		{"https://[2001:db8::1]/x", true, nil},
		{"http://example.com/hook", true, ErrNotHTTPS},
		{"ftp://example.com/file", true, ErrNotHTTPS},
		{"ftp://example.com/file", false, ErrInvalidURL},
		{"", false, ErrInvalidURL},
		{"example.com/hook", true, ErrInvalidURL},
		{"/relative/path", false, ErrInvalidURL},
		{"https:opaque", true, ErrInvalidURL},
		{"https://", true, ErrInvalidURL},
		{"https:///path", true, ErrInvalidURL},
		{"https://:443/path", true, ErrInvalidURL},
		{"https://user:pass@example.com/", true, ErrInvalidURL},
		{"https://user@example.com/", true, ErrInvalidURL},
		{"https://exa mple.com/", true, ErrInvalidURL},
		{"https://example.com/%zz", true, ErrInvalidURL},
		{"://missing-scheme", true, ErrInvalidURL},
	} {
		err := CheckURL(tc.raw, tc.requireHTTPS)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("CheckURL(%q, %v) = %v, want %v", tc.raw, tc.requireHTTPS, err, tc.want)
		}
	}
}
