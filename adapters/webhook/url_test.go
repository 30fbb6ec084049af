package webhook

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidateURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxURLLength)
	for _, tc := range []struct {
		raw  string
		want error
		code string
	}{
		{"https://example.com/hooks/svc", nil, ""},
		{"https://hooks.example.com:8443/x?token=1", nil, ""},
		{"https://127.0.0.1:9443/hook", nil, ""},
		{"", ErrURLRequired, CodeURLRequired},
		{"   ", ErrURLRequired, CodeURLRequired},
		{"http://example.com/hook", ErrURLNotHTTPS, CodeURLNotHTTPS},
		{"ftp://example.com/hook", ErrURLNotHTTPS, CodeURLNotHTTPS},
		{"example.com/hook", ErrURLInvalid, CodeURLInvalid},
		{"https://", ErrURLInvalid, CodeURLInvalid},
		{"https:///hook", ErrURLInvalid, CodeURLInvalid},
		{"https://user:pw@example.com/hook", ErrURLInvalid, CodeURLInvalid},
		{"https://exa mple.com/", ErrURLInvalid, CodeURLInvalid},
		{"https://example.com/\x7f", ErrURLInvalid, CodeURLInvalid},
		{long, ErrURLInvalid, CodeURLInvalid},
	} {
		err := ValidateURL(tc.raw)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("ValidateURL(%.40q) = %v, want %v", tc.raw, err, tc.want)
		}
		if got := Code(err); got != tc.code {
			t.Errorf("Code(ValidateURL(%.40q)) = %q, want %q", tc.raw, got, tc.code)
		}
	}
	edge := "https://example.com/" + strings.Repeat("a", MaxURLLength-len("https://example.com/"))
	if err := ValidateURL(edge); err != nil {
		t.Errorf("URL of exactly %d bytes: %v", MaxURLLength, err)
	}
}

func TestCodeOfOtherErrors(t *testing.T) {
	if got := Code(errors.New("other")); got != "" {
		t.Errorf("Code(other) = %q", got)
	}
	if got := Code(fmt.Errorf("wrapped: %w", ErrURLNotHTTPS)); got != CodeURLNotHTTPS {
		t.Errorf("Code(wrapped) = %q", got)
	}
}
