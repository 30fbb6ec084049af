package apikey_test

import (
	"strings"
	"testing"

	"svc/domain/apikey"
)

func TestGenerate(t *testing.T) {
	a, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := apikey.Generate()
	if a.Raw == b.Raw {
		t.Fatal("two keys alike")
	}
	if !strings.HasPrefix(a.Raw, apikey.LivePrefix) || len(a.Raw) != len(apikey.LivePrefix)+48 {
		t.Fatalf("key shape %q", a.Raw)
	}
	if !strings.HasPrefix(a.Raw, a.Prefix) || len(a.Prefix) >= len(a.Raw) {
		t.Fatalf("prefix %q of %q", a.Prefix, a.Raw)
	}
	if a.Hash != apikey.Hash(a.Raw) || strings.Contains(a.Hash, a.Raw) {
		t.Fatal("hash")
	}
	if !apikey.LooksValid(a.Raw) || apikey.LooksValid("Bearer x") || apikey.LooksValid("svc_"+strings.Repeat("a", 200)) {
		t.Fatal("LooksValid")
	}
}

func TestRoles(t *testing.T) {
	if !apikey.Owner.AtLeast(apikey.Admin) || apikey.Member.AtLeast(apikey.Admin) || !apikey.Viewer.AtLeast(apikey.Viewer) {
		t.Fatal("role order")
	}
	if _, err := apikey.ParseRole("root"); err == nil {
		t.Fatal("unknown role accepted")
	}
}
