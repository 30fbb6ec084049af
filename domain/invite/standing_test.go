package invite_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/domain/user"
	"svc/eventstore/event"
)

// TestStandingAgreesWithAccept: Check refuses exactly where Accept does
// (for a first use by the invited address), with the same errors.
func TestStandingAgreesWithAccept(t *testing.T) {
	now := time.Now()
	id := "33333333-3333-4333-8333-333333333333"
	token := invite.Token(id, "secret")
	one := 1
	for _, tc := range []struct {
		name    string
		token   string
		revoked bool
		uses    int
		at      time.Time
		want    error
	}{
		{"usable", token, false, 0, now, nil},
		{"wrong token", token + "x", false, 0, now, invite.ErrNotFound},
		{"revoked", token, true, 0, now, invite.ErrNotFound},
		{"expired", token, false, 0, now.Add(2 * time.Hour), invite.ErrExpired},
		{"used up", token, false, 1, now, invite.ErrNotFound},
		{"revoked and expired", token, true, 0, now.Add(2 * time.Hour), invite.ErrNotFound},
		{"used up and expired", token, false, 1, now.Add(2 * time.Hour), invite.ErrExpired},
	} {
		created, err := invite.Create(id, "o", "w", invite.Link, "", apikey.Member, &one, time.Hour, now, token, "", "user:u")
		if err != nil {
			t.Fatal(err)
		}
		events := []event.Data{created}
		for i := range tc.uses {
			events = append(events, invite.Accepted{InviteID: id, UserID: "earlier" + string(rune('a'+i))})
		}
		if tc.revoked {
			events = append(events, invite.Revoked{InviteID: id})
		}
		inv := invite.New()
		for n, d := range events {
			if err := inv.Apply(event.Recorded("invite-x", int64(n), now, d)); err != nil {
				t.Fatal(err)
			}
		}
		_, accept := inv.Accept(tc.token, "newcomer", "", tc.at)
		st := invite.Standing{TokenHash: user.HashToken(token), Revoked: tc.revoked, ExpiresAt: created.ExpiresAt, MaxUses: &one, Uses: tc.uses}
		check := st.Check(tc.token, tc.at)
		if !errors.Is(check, tc.want) || !errors.Is(accept, tc.want) || (tc.want == nil) != (check == nil) {
			t.Errorf("%s: Check %v, Accept %v, want %v", tc.name, check, accept, tc.want)
		}
	}
}
