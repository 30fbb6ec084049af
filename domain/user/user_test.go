package user_test

import (
	"strings"
	"testing"

	"svc/domain/user"
)

func TestPasswordHash(t *testing.T) {
	h, err := user.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "correct horse") {
		t.Fatalf("hash %q", h)
	}
	other, _ := user.HashPassword("correct horse")
	if other == h {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct horsE": false, "": false} {
		if ok, err := user.CheckPassword(pw, h); err != nil || ok != want {
			t.Errorf("check %q: %v %v, want %v", pw, ok, err, want)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$a$b", "$argon2id$v=19$m=x$a$b", "$argon2id$v=19$m=1,t=1,p=1$!!$b"} {
		if _, err := user.CheckPassword("x", bad); err == nil {
			t.Errorf("hash %q read", bad)
		}
	}
	if user.CheckUnknown("anything") {
		t.Fatal("CheckUnknown accepted")
	}
}

func TestValidatePassword(t *testing.T) {
	if user.ValidatePassword("1234567") == nil || user.ValidatePassword(strings.Repeat("x", 1025)) == nil {
		t.Fatal("bad passwords accepted")
	}
	if err := user.ValidatePassword("ééééééé€"); err != nil { // 8 characters, more bytes
		t.Fatalf("8 characters refused: %v", err)
	}
}

func TestRegister(t *testing.T) {
	r, err := user.Register("u", " Ann@Example.COM ", "", "o", "w", "")
	if err != nil || r.Email != "ann@example.com" || r.Name != "Ann" {
		t.Fatalf("register: %+v %v", r, err)
	}
	if _, err := user.Register("u", "Ann <ann@example.com>", "", "o", "w", ""); err == nil {
		t.Fatal("a display name was accepted as an email")
	}
	if _, err := user.Register("u", "a@b.co", strings.Repeat("n", 201), "o", "w", ""); err == nil {
		t.Fatal("a 201-character name was accepted")
	}
}
