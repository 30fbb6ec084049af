package blackbox

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/domain/user"
	"svc/eventstore"
	"svc/eventstore/event"
)

// TestMembersAndInvites: adding users with accounts, inviting others by
// mail (through mailpit) and their accepting, role changes, removal, the
// tier's member limit, and every error code.
func TestMembersAndInvites(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "owner")
	ws := "/api/workspaces/" + owner.WorkspaceID
	as := func(p person, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}

	// a user with an account joins at once
	bob := s.signUpPerson(t, "bob")
	added := as(owner, http.MethodPost, ws+"/members", map[string]any{"email": strings.ToUpper(bob.Email), "role": "member"})
	wantStatus(t, added, http.StatusCreated)
	if added.Body["status"] != "added" || added.Body["member_id"] != bob.UserID || added.Body["invite_id"] != nil || added.Body["email"] != bob.Email {
		t.Fatalf("direct add: %s", added.Raw)
	}
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": bob.Email, "role": "viewer"}), http.StatusConflict, "already_member")
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": bob.Email}), http.StatusBadRequest, "missing_field")
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"role": "member"}), http.StatusBadRequest, "missing_field")
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": bob.Email, "role": "owner"}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": "nope", "role": "member"}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(bob, http.MethodPost, ws+"/members", map[string]any{"email": uniqueEmail("x"), "role": "member"}), http.StatusForbidden, "forbidden")

	// members: users and keys
	key := s.keyWithRole(t, owner, owner.WorkspaceID, "viewer")
	_ = key
	members := as(bob, http.MethodGet, ws+"/members", nil)
	wantStatus(t, members, http.StatusOK)
	var users, keys int
	for _, raw := range members.Body["members"].([]any) {
		m := raw.(map[string]any)
		switch m["type"] {
		case "user":
			users++
			if m["email"] == nil || m["role"] == nil || m["id"] == nil || m["created_at"] == nil {
				t.Fatalf("user member %v", m)
			}
		case "api_key":
			keys++
			if !strings.HasPrefix(m["key_prefix"].(string), "svc_live_") || m["role"] != "viewer" {
				t.Fatalf("key member %v", m)
			}
		}
	}
	if users != 2 || keys != 1 {
		t.Fatalf("members %s: want 2 users and 1 key", members.Raw)
	}

	// anyone else gets a mailed invite, accepted with a session of the
	// invited address
	carolEmail := uniqueEmail("carol")
	inv := as(owner, http.MethodPost, ws+"/members", map[string]any{"email": carolEmail, "role": "admin"})
	wantStatus(t, inv, http.StatusCreated)
	uuidField(t, inv.Body, "invite_id")
	if inv.Body["status"] != "invited" || inv.Body["role"] != "admin" || inv.Body["expires_at"] == nil {
		t.Fatalf("invite: %s", inv.Raw)
	}
	if exp, _ := time.Parse(time.RFC3339, inv.Body["expires_at"].(string)); time.Until(exp) < 6*24*time.Hour || time.Until(exp) > 8*24*time.Hour {
		t.Fatalf("invite expires at %v, want in 7 days", exp)
	}
	link := mailedLink(t, carolEmail, regexp.MustCompile(`invited to the workspace`), regexp.MustCompile(`https?://\S+/invite\?token=\S+`))
	token := link[strings.Index(link, "token=")+len("token="):]
	token = strings.ReplaceAll(token, "%2E", ".")
	// bob is signed in but not carol: the invite is not his
	wantError(t, as(bob, http.MethodPost, "/api/invites/accept", map[string]any{"token": token}), http.StatusNotFound, "invite_not_found")
	carol := s.signUpPersonWith(t, "carol", carolEmail)
	acc := as(carol, http.MethodPost, "/api/invites/accept", map[string]any{"token": token})
	wantStatus(t, acc, http.StatusOK)
	if acc.Body["workspace_id"] != owner.WorkspaceID || acc.Body["workspace_name"] != "Default" || acc.Body["role"] != "admin" {
		t.Fatalf("accept: %s", acc.Raw)
	}
	me := as(carol, http.MethodGet, "/api/user/me", nil)
	if len(me.Body["memberships"].([]any)) != 2 {
		t.Fatalf("carol's memberships after accepting: %s", me.Raw)
	}
	wantError(t, as(carol, http.MethodPost, "/api/invites/accept", map[string]any{"token": token}), http.StatusConflict, "already_member")
	wantError(t, as(carol, http.MethodPost, "/api/invites/accept", map[string]any{"token": "nope"}), http.StatusNotFound, "invite_not_found")
	wantError(t, as(carol, http.MethodPost, "/api/invites/accept", map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/invites/accept", Body: map[string]any{"token": token}}), http.StatusUnauthorized, "unauthorized")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/invites/accept", Key: key, Body: map[string]any{"token": token}}), http.StatusUnauthorized, "unauthorized")

	// roles: owner only; not oneself; the last owner stays
	patch := as(owner, http.MethodPatch, ws+"/members/"+bob.UserID, map[string]any{"role": "admin"})
	wantStatus(t, patch, http.StatusOK)
	if patch.Body["member_id"] != bob.UserID || patch.Body["role"] != "admin" {
		t.Fatalf("patch: %s", patch.Raw)
	}
	wantError(t, as(bob, http.MethodPatch, ws+"/members/"+carol.UserID, map[string]any{"role": "viewer"}), http.StatusForbidden, "forbidden")
	wantError(t, as(owner, http.MethodPatch, ws+"/members/"+owner.UserID, map[string]any{"role": "admin"}), http.StatusBadRequest, "cannot_demote_self")
	wantError(t, as(owner, http.MethodPatch, ws+"/members/"+uuid.NewString(), map[string]any{"role": "admin"}), http.StatusNotFound, "not_found")
	wantError(t, as(owner, http.MethodPatch, ws+"/members/"+bob.UserID, map[string]any{"role": "owner"}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(bob, http.MethodDelete, ws+"/members/"+owner.UserID, nil), http.StatusBadRequest, "cannot_remove_last_owner")
	wantError(t, as(owner, http.MethodDelete, ws+"/members/"+uuid.NewString(), nil), http.StatusNotFound, "not_found")
	removed := as(bob, http.MethodDelete, ws+"/members/"+carol.UserID, nil)
	wantStatus(t, removed, http.StatusOK)
	if removed.Body["success"] != true {
		t.Fatalf("remove: %s", removed.Raw)
	}
	wantError(t, as(carol, http.MethodGet, ws+"/members", nil), http.StatusNotFound, "not_found")

	// the free tier's 3 members: owner, bob, and one more
	wantStatus(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": carol.Email, "role": "viewer"}), http.StatusCreated)
	dave := s.signUpPerson(t, "dave")
	wantError(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": dave.Email, "role": "viewer"}), http.StatusPaymentRequired, "member_limit_reached")
}

// signUpPersonWith signs up a user with the given email.
func (s *server) signUpPersonWith(t testing.TB, tag, email string) person {
	t.Helper()
	p := person{Email: email, Password: "pw-" + randomHex(8)}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/signup", XFF: nextIP(), Body: map[string]any{"email": email, "password": p.Password, "name": tag}})
	wantStatus(t, res, http.StatusCreated)
	p.UserID, p.OrgID, p.WorkspaceID = str(t, res.Body, "user_id"), str(t, res.Body, "org_id"), str(t, res.Body, "workspace_id")
	p.Access = sessionCookie(res)
	return p
}

// TestInviteLinks: create, list, revoke; 20 concurrent accepts of a
// 5-use link: exactly 5 join; an expired link is 410.
func TestInviteLinks(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "links")
	setTier(t, s, owner, "enterprise") // room for 20 members
	ws := "/api/workspaces/" + owner.WorkspaceID
	as := func(p person, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}
	created := as(owner, http.MethodPost, ws+"/invites", map[string]any{"role": "member", "max_uses": 5, "expires_in_days": 2})
	wantStatus(t, created, http.StatusCreated)
	id := uuidField(t, created.Body, "invite_id")
	token := str(t, created.Body, "token")
	if created.Body["ok"] != true || created.Body["role"] != "member" || integer(t, created.Body, "max_uses") != 5 ||
		!strings.HasSuffix(str(t, created.Body, "url"), "/invite?token="+token) {
		t.Fatalf("create link: %s", created.Raw)
	}
	unlimited := as(owner, http.MethodPost, ws+"/invites", map[string]any{"role": "viewer"})
	wantStatus(t, unlimited, http.StatusCreated)
	if unlimited.Body["max_uses"] != nil {
		t.Fatalf("a link without max_uses: %s", unlimited.Raw)
	}
	wantError(t, as(owner, http.MethodPost, ws+"/invites", map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, as(owner, http.MethodPost, ws+"/invites", map[string]any{"role": "member", "max_uses": 0}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(owner, http.MethodPost, ws+"/invites", map[string]any{"role": "member", "expires_in_days": 0}), http.StatusBadRequest, "invalid_body")

	people := make([]person, 20)
	for i := range people {
		people[i] = s.signUpPerson(t, "joiner")
	}
	statuses := make([]int, len(people))
	var wg sync.WaitGroup
	for i, p := range people {
		wg.Go(func() {
			res := s.do(t, req{Method: http.MethodPost, Path: "/api/invites/accept", Header: p.cookie(), Body: map[string]any{"token": token}})
			statuses[i] = res.Status
			if res.Status != http.StatusOK {
				wantError(t, res, http.StatusNotFound, "invite_not_found")
			}
		})
	}
	wg.Wait()
	ok := 0
	for _, st := range statuses {
		if st == http.StatusOK {
			ok++
		}
	}
	if ok != 5 {
		t.Fatalf("%d of 20 concurrent accepts of a 5-use link succeeded (statuses %v)", ok, statuses)
	}

	list := as(owner, http.MethodGet, ws+"/invites", nil)
	wantStatus(t, list, http.StatusOK)
	links := list.Body["invites"].([]any)
	if len(links) != 2 || list.Body["ok"] != true {
		t.Fatalf("list: %s", list.Raw)
	}
	for _, raw := range links {
		l := raw.(map[string]any)
		if l["invite_id"] == id && (l["token"] != token || integer(t, l, "uses_remaining") != 0 || integer(t, l, "max_uses") != 5 || l["created_at"] == nil) {
			t.Fatalf("listed link %v", l)
		}
	}
	gone := as(owner, http.MethodDelete, ws+"/invites/"+id, nil)
	wantStatus(t, gone, http.StatusOK)
	if gone.Body["ok"] != true {
		t.Fatalf("revoke: %s", gone.Raw)
	}
	wantError(t, as(owner, http.MethodDelete, ws+"/invites/"+id, nil), http.StatusNotFound, "not_found")
	wantError(t, as(owner, http.MethodDelete, ws+"/invites/"+uuid.NewString(), nil), http.StatusNotFound, "not_found")
	late := s.signUpPerson(t, "late")
	wantError(t, as(late, http.MethodPost, "/api/invites/accept", map[string]any{"token": token}), http.StatusNotFound, "invite_not_found")
	if n := len(as(owner, http.MethodGet, ws+"/invites", nil).Body["invites"].([]any)); n != 1 {
		t.Fatalf("%d links listed after revoking one of 2", n)
	}

	// an expired link: 410
	expired := injectExpiredInvite(t, s, owner)
	wantError(t, as(late, http.MethodPost, "/api/invites/accept", map[string]any{"token": expired}), http.StatusGone, "invite_expired")

	// admins only
	var member person
	for i, st := range statuses {
		if st == http.StatusOK {
			member = people[i]
		}
	}
	wantError(t, as(member, http.MethodGet, ws+"/invites", nil), http.StatusForbidden, "forbidden")
	wantError(t, as(member, http.MethodPost, ws+"/invites", map[string]any{"role": "viewer"}), http.StatusForbidden, "forbidden")
}

// injectExpiredInvite appends an invite link that expired an hour ago
// straight to the log, and returns its token.
func injectExpiredInvite(t *testing.T, s *server, owner person) string {
	t.Helper()
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	id := uuid.NewString()
	token := invite.Token(id, randomHex(16))
	if _, err := eventstore.New(pool).Append(ctx, invite.Stream(id), event.NewStream, event.New{Metadata: event.Metadata{OrgID: owner.OrgID},
		Data: invite.Created{InviteID: id, OrgID: owner.OrgID, WorkspaceID: owner.WorkspaceID, Kind: invite.Link, Role: apikey.Viewer,
			ExpiresAt: time.Now().Add(-time.Hour), TokenHash: user.HashToken(token), CreatedBy: "blackbox"}}); err != nil {
		t.Fatal(err)
	}
	return token
}
