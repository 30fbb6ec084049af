package invite_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/eventstore/event"
)

func TestAccept(t *testing.T) {
	now := time.Now()
	two := 2
	token := invite.Token("11111111-1111-4111-8111-111111111111", "secret")
	created, err := invite.Create("11111111-1111-4111-8111-111111111111", "o", "w", invite.Link, "", apikey.Member, &two, time.Hour, now, token, "", "key:k")
	if err != nil {
		t.Fatal(err)
	}
	events := []event.Data{created}
	load := func() *invite.Invite {
		i := invite.New()
		for n, d := range events {
			if err := i.Apply(event.Recorded("invite-x", int64(n), now, d)); err != nil {
				t.Fatal(err)
			}
		}
		return i
	}
	if _, err := load().Accept(token+"x", "a", "", now); !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("wrong token: %v", err)
	}
	a, err := load().Accept(token, "a", "", now)
	if err != nil {
		t.Fatal(err)
	}
	events = append(events, a)
	if _, err := load().Accept(token, "a", "", now); !errors.Is(err, invite.ErrAlreadyMember) {
		t.Fatalf("second use by one user: %v", err)
	}
	b, _ := load().Accept(token, "b", "", now)
	events = append(events, b)
	if _, err := load().Accept(token, "c", "", now); !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("third use of a 2-use link: %v", err)
	}
	if _, err := load().Accept(token, "c", "", now.Add(2*time.Hour)); !errors.Is(err, invite.ErrExpired) && !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := invite.ParseToken("nope"); !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("parse: %v", err)
	}
}

func TestEmailInvite(t *testing.T) {
	now := time.Now()
	id := "22222222-2222-4222-8222-222222222222"
	token := invite.Token(id, "s")
	created, _ := invite.Create(id, "o", "w", invite.Email, "Bob@Example.com", apikey.Viewer, nil, invite.DefaultTTL, now, token, "", "user:u")
	i := invite.New()
	_ = i.Apply(event.Recorded("invite-x", 0, now, created))
	if _, err := i.Accept(token, "u2", "eve@example.com", now); !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("another address: %v", err)
	}
	if _, err := i.Accept(token, "u1", "bob@example.com", now.Add(8*24*time.Hour)); !errors.Is(err, invite.ErrExpired) {
		t.Fatalf("after 8 days: %v", err)
	}
	if _, err := i.Accept(token, "u1", "BOB@example.com", now); err != nil {
		t.Fatalf("the invited address: %v", err)
	}
	if _, err := invite.TTLDays(new(int)); !errors.Is(err, invite.ErrInvalidDays) {
		t.Fatalf("0 days: %v", err)
	}
}
