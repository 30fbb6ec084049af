package webhook

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if len(a) != 64 {
		t.Fatalf("len = %d, want 64", len(a))
	}
	if raw, err := hex.DecodeString(a); err != nil || len(raw) != SecretBytes {
		t.Fatalf("secret %q is not %d bytes of hex: %v", a, SecretBytes, err)
	}
	if a == b {
		t.Fatal("two secrets are equal")
	}
}

// TestSignKnownVector pins the documented scheme to a value computed
// outside Go:
//
//	printf '1700000000.{"event":"workflow_completed"}' |
//	  openssl dgst -sha256 -hmac 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
func TestSignKnownVector(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	body := []byte(`{"event":"workflow_completed"}`)
	got := Sign(secret, time.Unix(1700000000, 0), body)
	const want = "t=1700000000,v1=c2b2b76f43f100dab83fd745b7aac7974aa80ff4d399f2202a5d3f9b38869e40"
	if got != want {
		t.Fatalf("Sign = %s\nwant   %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	secret := NewSecret()
	body := []byte(`{"type":"workflow_completed","workflow_id":"wr_1"}`)
	sentAt := time.Unix(1750000000, 0)
	header := Sign(secret, sentAt, body)

	for _, tc := range []struct {
		name      string
		secret    string
		header    string
		body      []byte
		tolerance time.Duration
		now       time.Time
		want      error
	}{
		{"round trip", secret, header, body, 0, sentAt.Add(time.Minute), nil},
		{"spaces and unknown keys", secret, " v0=zz , " + header + " ,x=1", body, 0, sentAt, nil},
		{"rotation: second v1 matches", secret, header[:len("t=1750000000")] + ",v1=00ff," + header[len("t=1750000000,"):], body, 0, sentAt, nil},
		{"tampered body", secret, header, []byte(`{"type":"workflow_completed","workflow_id":"wr_2"}`), 0, sentAt, ErrSignatureMismatch},
		{"wrong secret", NewSecret(), header, body, 0, sentAt, ErrSignatureMismatch},
		{"stale", secret, header, body, 0, sentAt.Add(DefaultTolerance + time.Second), ErrSignatureExpired},
		{"from the future", secret, header, body, 0, sentAt.Add(-DefaultTolerance - time.Second), ErrSignatureExpired},
		{"stale under a short tolerance", secret, header, body, 30 * time.Second, sentAt.Add(time.Minute), ErrSignatureExpired},
		{"within a long tolerance", secret, header, body, time.Hour, sentAt.Add(30 * time.Minute), nil},
		{"changed timestamp", secret, "t=1750000001" + header[len("t=1750000000"):], body, 0, sentAt, ErrSignatureMismatch},
		{"empty header", secret, "", body, 0, sentAt, ErrSignatureMalformed},
		{"no v1", secret, "t=1750000000", body, 0, sentAt, ErrSignatureMalformed},
		{"no t", secret, header[len("t=1750000000,"):], body, 0, sentAt, ErrSignatureMalformed},
		{"bad t", secret, "t=soon," + header[len("t=1750000000,"):], body, 0, sentAt, ErrSignatureMalformed},
		{"v1 not hex", secret, "t=1750000000,v1=zz", body, 0, sentAt, ErrSignatureMismatch},
	} {
		err := Verify(tc.secret, tc.header, tc.body, tc.tolerance, tc.now)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestSignAll: during a rotation's overlap a delivery carries one v1 per
// secret, the new one first, and a receiver holding either verifies it.
func TestSignAll(t *testing.T) {
	oldSecret, newSecret := NewSecret(), NewSecret()
	body := []byte(`{"type":"step_completed"}`)
	at := time.Unix(1750000000, 0)
	header := SignAll([]string{newSecret, oldSecret}, at, body)
	one := Sign(newSecret, at, body)
	if header[:len(one)] != one || len(header) != len(one)+len(",v1=")+64 {
		t.Fatalf("SignAll = %s (Sign of the new secret: %s)", header, one)
	}
	for _, s := range []string{oldSecret, newSecret} {
		if err := Verify(s, header, body, 0, at); err != nil {
			t.Errorf("verify with one of the secrets: %v", err)
		}
	}
	if err := Verify(NewSecret(), header, body, 0, at); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("another secret: %v", err)
	}
	if SignAll([]string{newSecret}, at, body) != one {
		t.Error("SignAll of one secret differs from Sign")
	}
}
