package org_test

import (
	"encoding/json"
	"errors"
	"testing"

	"svc/domain/org"
	"svc/eventstore/event"
)

func created(t *testing.T, email, token string) event.Event {
	t.Helper()
	c := org.Created{OrgID: "o1", Name: "Acme", Email: email, Tier: org.Free, WorkspaceID: "w1"}
	if token != "" {
		c.VerificationHash = org.HashToken(token)
	}
	b, _ := json.Marshal(c)
	return event.Event{Type: org.EventCreated, Data: b}
}

func TestVerifyEmail(t *testing.T) {
	o, err := org.Load([]event.Event{created(t, "a@b.co", "o1.secret")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.VerifyEmail("o1.wrong"); !errors.Is(err, org.ErrInvalidToken) {
		t.Fatalf("wrong token: %v", err)
	}
	v, err := o.VerifyEmail("o1.secret")
	if err != nil || v.Email != "a@b.co" {
		t.Fatalf("verify: %+v %v", v, err)
	}
	b, _ := json.Marshal(v)
	o, _ = org.Load([]event.Event{created(t, "a@b.co", "o1.secret"), {Type: org.EventEmailVerified, Data: b, Version: 1}})
	if !o.EmailVerified() || o.Version() != 1 {
		t.Fatal("verification not folded")
	}
	if _, err := o.VerifyEmail("o1.secret"); !errors.Is(err, org.ErrAlreadyVerified) {
		t.Fatalf("second verification: %v", err)
	}
	noEmail, _ := org.Load([]event.Event{created(t, "", "")})
	if _, err := noEmail.VerifyEmail("x"); !errors.Is(err, org.ErrNoEmail) {
		t.Fatalf("no email: %v", err)
	}
}

func TestChangeTier(t *testing.T) {
	o, _ := org.Load([]event.Event{created(t, "", "")})
	if _, ok, err := o.ChangeTier(org.Free, "operator"); ok || err != nil {
		t.Fatalf("same tier: ok=%v err=%v", ok, err)
	}
	c, ok, err := o.ChangeTier(org.Team, "operator")
	if !ok || err != nil || c.From != org.Free || c.To != org.Team {
		t.Fatalf("change: %+v %v %v", c, ok, err)
	}
	if _, _, err := o.ChangeTier("gold", "operator"); !errors.Is(err, org.ErrInvalidTier) {
		t.Fatalf("bad tier: %v", err)
	}
	if _, err := org.Load(nil); !errors.Is(err, org.ErrNotFound) {
		t.Fatalf("empty stream: %v", err)
	}
}

func TestEmails(t *testing.T) {
	for _, ok := range []string{"a@b.co", "first.last+tag@example.org"} {
		if err := org.ValidateEmail(ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "nope", "A <a@b.co>", "a@", "@b.co"} {
		if err := org.ValidateEmail(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if org.EmailStream("A@B.co ") != org.EmailStream("a@b.co") {
		t.Error("email streams differ by case or space")
	}
	for _, tier := range []string{"free", "pro", "team", "enterprise"} {
		if _, err := org.ParseTier(tier); err != nil {
			t.Error(err)
		}
	}
	if org.Free.IsPaid() || !org.Pro.IsPaid() {
		t.Error("IsPaid wrong")
	}
}
