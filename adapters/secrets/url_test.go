package secrets_test

import (
	"bytes"
	"errors"
	"net/url"
	"testing"

	"svc/adapters/secrets"
)

func TestSealURL(t *testing.T) {
	box, err := secrets.NewBox(bytes.Repeat([]byte{7}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	s := box.SealURL("p1", []byte("hello"))
	if url.QueryEscape(s) != s || s == box.SealURL("p1", []byte("hello")) {
		t.Fatalf("not URL-safe or not randomized: %q", s)
	}
	if got, err := box.OpenURL("p1", s); err != nil || string(got) != "hello" {
		t.Fatalf("open: %q %v", got, err)
	}
	other, _ := secrets.NewBox(bytes.Repeat([]byte{8}, secrets.KeySize))
	flipped := []byte(s)
	flipped[len(flipped)/2] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other purpose": func() ([]byte, error) { return box.OpenURL("p2", s) },
		"other key":     func() ([]byte, error) { return other.OpenURL("p1", s) },
		"altered":       func() ([]byte, error) { return box.OpenURL("p1", string(flipped)) },
		"truncated":     func() ([]byte, error) { return box.OpenURL("p1", s[:10]) },
		"not base64":    func() ([]byte, error) { return box.OpenURL("p1", "a+b/c=") },
		"stored secret": func() ([]byte, error) { return box.OpenURL("p1", box.Seal([]byte("hello"))) },
	} {
		if _, err := open(); !errors.Is(err, secrets.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := box.Open(s); !errors.Is(err, secrets.ErrCorrupt) {
		t.Errorf("Open of a SealURL value: %v", err)
	}
}
