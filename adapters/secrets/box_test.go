package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
)

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func TestNewBoxKeySize(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33, 64} {
		if _, err := NewBox(make([]byte, n)); !errors.Is(err, ErrKeySize) {
			t.Errorf("key of %d bytes: error = %v, want ErrKeySize", n, err)
		}
	}
	if _, err := NewBox(testKey(1)); err != nil {
		t.Fatal(err)
	}
}

func TestSealOpen(t *testing.T) {
	box, _ := NewBox(testKey(1))
	for _, plain := range [][]byte{nil, []byte("x"), []byte(`{"token":"sk-123"}`), bytes.Repeat([]byte{0, 255}, 5000)} {
		sealed := box.Seal(plain)
		if !strings.HasPrefix(sealed, "v1:") {
			t.Fatalf("sealed value %q lacks the version", sealed)
		}
		if len(plain) > 3 && strings.Contains(sealed, string(plain)) {
			t.Fatalf("sealed value shows the plaintext")
		}
		got, err := box.Open(sealed)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("Open = %q, %v; want %q", got, err, plain)
		}
	}
	if a, b := box.Seal([]byte("same")), box.Seal([]byte("same")); a == b {
		t.Error("sealing twice gives the same value")
	}
}

func TestOpenCorrupt(t *testing.T) {
	box, _ := NewBox(testKey(1))
	other, _ := NewBox(testKey(2))
	sealed := box.Seal([]byte("webhook secret"))
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	flip := func(i int) string {
		c := bytes.Clone(raw)
		c[i] ^= 1
		return "v1:" + base64.StdEncoding.EncodeToString(c)
	}
	for name, v := range map[string]string{
		"wrong key":        "",
		"flipped nonce":    flip(0),
		"flipped body":     flip(len(raw) / 2),
		"flipped tag":      flip(len(raw) - 1),
		"truncated":        "v1:" + base64.StdEncoding.EncodeToString(raw[:len(raw)-1]),
		"too short":        "v1:" + base64.StdEncoding.EncodeToString(raw[:10]),
		"not base64":       "v1:***",
		"unknown version":  "v2:" + strings.TrimPrefix(sealed, "v1:"),
		"no version":       strings.TrimPrefix(sealed, "v1:"),
		"empty":            "",
		"plaintext stored": "webhook secret",
	} {
		b := box
		if name == "wrong key" {
			b, v = other, sealed
		}
		if got, err := b.Open(v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open = %q, %v; want ErrCorrupt", name, got, err)
		}
	}
}

func TestBoxConcurrent(t *testing.T) {
	box, _ := NewBox(testKey(3))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if _, err := box.Open(box.Seal([]byte("x"))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
