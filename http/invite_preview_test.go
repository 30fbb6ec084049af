package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/domain/user"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// inviteLink creates an invite link of the owner's workspace wsID (body:
// the link's settings) and returns its token and id.
func inviteLink(t *testing.T, f *fixture, owner, wsID string, body map[string]any) (token, id string) {
	t.Helper()
	code, link, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/invites", owner, body)
	if code != 201 {
		t.Fatalf("invite link: %d %v", code, link)
	}
	return link["token"].(string), link["invite_id"].(string)
}

// preview posts token to the invite preview without credentials.
func (f *fixture) preview(t *testing.T, token any) (int, map[string]any) {
	t.Helper()
	return f.call(t, "POST", "/api/invites/preview", "", map[string]any{"token": token})
}

// expiredInvite appends a link of workspace wsID of orgID that expired an
// hour ago, created by user creator, and waits for the read model.
func expiredInvite(t *testing.T, f *fixture, orgID, wsID, creator string) string {
	t.Helper()
	id := uuid.NewString()
	secret, _ := user.NewToken()
	token := invite.Token(id, secret)
	created, err := invite.Create(id, orgID, wsID, invite.Link, "", apikey.Member, nil, 24*time.Hour, time.Now().Add(-25*time.Hour),
		token, "", "user:"+creator)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := store.Append(context.Background(), invite.Stream(id), event.NewStream, event.New{Data: created, Metadata: event.Metadata{OrgID: orgID}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(ctx, pos, "invites"); err != nil {
		t.Fatal(err)
	}
	return token
}

// signUpOrg signs a user up through the command (the route limits
// signups per IP, which the fixture shares) and returns their access
// token, user id, default workspace and organization, once the read
// models have them.
func (f *fixture) signUpOrg(t *testing.T) (access, userID, wsID, orgID string) {
	t.Helper()
	ctx := context.Background()
	res, err := commands.NewSignUpHandler(commands.NewRepositories(store), nil).Handle(ctx,
		commands.SignUp{Email: "p-" + workflow.NewID() + "@example.com", Password: "long enough"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, res.Position); err != nil {
		t.Fatal(err)
	}
	return res.Session.Access, res.UserID, res.WorkspaceID, res.OrgID
}

// onTier moves organization orgID to tier and waits for the read models.
func onTier(t *testing.T, f *fixture, orgID string, tier org.Tier) {
	t.Helper()
	res, err := commands.NewChangeTierHandler(commands.NewRepositories(store)).Handle(context.Background(),
		commands.ChangeTier{OrgID: orgID, Tier: tier, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(ctx, res.Position); err != nil {
		t.Fatal(err)
	}
}

// TestInvitePreview: the preview answers what a link offers (workspace,
// role, inviter, expiry) to anyone holding its token, writes nothing, and
// refuses with accept's codes where accepting would be refused for anyone:
// an unknown, malformed or wrong token, a revoked or used-up link (404
// invite_not_found), an expired one (410 invite_expired), an archived
// workspace (400 invalid_body), a full one (402 member_limit_reached).
func TestInvitePreview(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	owner, ownerID, wsID, orgID := f.signUpOrg(t)
	if code, body, _ := f.callAs(t, "PUT", "/api/workspaces/"+wsID, owner, map[string]any{"name": "Research"}); code != 200 {
		t.Fatalf("rename: %d %v", code, body)
	}
	token, _ := inviteLink(t, f, owner, wsID, map[string]any{"role": "member", "max_uses": 1, "expires_in_days": 3})

	code, body := f.preview(t, token)
	exp, _ := time.Parse(time.RFC3339, body["expires_at"].(string))
	if code != 200 || body["workspace_id"] != wsID || body["workspace_name"] != "Research" || body["role"] != "member" ||
		body["kind"] != "link" || body["invited_by"] == nil || time.Until(exp) < 71*time.Hour || len(body) != 6 {
		t.Fatalf("preview: %d %v", code, body)
	}
	// previewing twice, even with a key, uses nothing: the one use is left
	for range 2 {
		if code, again := f.preview(t, token); code != 200 || again["workspace_name"] != "Research" {
			t.Fatalf("preview again: %d %v", code, again)
		}
	}
	_, list, _ := f.callAs(t, "GET", "/api/workspaces/"+wsID+"/invites", owner, nil)
	if l := list["invites"].([]any)[0].(map[string]any); l["uses_remaining"] != 1.0 {
		t.Fatalf("a preview used the link: %v", l)
	}

	// refusals an unknown token shares: nothing beyond not found
	for _, bad := range []string{"nope", "00000000-0000-4000-8000-000000000000.x", token + "x", token[:len(token)-1]} {
		if code, body := f.preview(t, bad); code != 404 || errorCode(body) != "invite_not_found" {
			t.Errorf("token %q: %d %v", bad, code, body)
		}
	}
	if code, body := f.call(t, "POST", "/api/invites/preview", "", map[string]any{}); code != 400 || errorCode(body) != "missing_field" {
		t.Errorf("no token: %d %v", code, body)
	}
	if code, body := f.preview(t, 7); code != 400 || errorCode(body) != "invalid_body" {
		t.Errorf("a number: %d %v", code, body)
	}

	// used up: one use taken by a joiner
	joiner, _, _, _ := f.signUpOrg(t)
	if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", joiner, map[string]any{"token": token}); code != 200 {
		t.Fatalf("accept: %d %v", code, body)
	}
	if code, body := f.preview(t, token); code != 404 || errorCode(body) != "invite_not_found" {
		t.Errorf("used up: %d %v", code, body)
	}
	// revoked
	revoked, revokedID := inviteLink(t, f, owner, wsID, map[string]any{"role": "viewer"})
	if code, body, _ := f.callAs(t, "DELETE", "/api/workspaces/"+wsID+"/invites/"+revokedID, owner, nil); code != 200 {
		t.Fatalf("revoke: %d %v", code, body)
	}
	if code, body := f.preview(t, revoked); code != 404 || errorCode(body) != "invite_not_found" {
		t.Errorf("revoked: %d %v", code, body)
	}
	// expired, as accept says it
	expired := expiredInvite(t, f, orgID, wsID, ownerID)
	if code, body := f.preview(t, expired); code != 410 || errorCode(body) != "invite_expired" {
		t.Errorf("expired: %d %v", code, body)
	}
	if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", joiner, map[string]any{"token": expired}); code != 410 || errorCode(body) != "invite_expired" {
		t.Errorf("accept expired: %d %v", code, body)
	}

	// full: a free workspace holds 3 members (the owner, the joiner, one more)
	open, _ := inviteLink(t, f, owner, wsID, map[string]any{"role": "viewer"})
	third, _, _, _ := f.signUpOrg(t)
	if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", third, map[string]any{"token": open}); code != 200 {
		t.Fatalf("third member: %d %v", code, body)
	}
	if code, body := f.preview(t, open); code != 402 || errorCode(body) != "member_limit_reached" {
		t.Errorf("full workspace: %d %v", code, body)
	}
	fourth, _, _, _ := f.signUpOrg(t)
	if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", fourth, map[string]any{"token": open}); code != 402 || errorCode(body) != "member_limit_reached" {
		t.Errorf("accept, full workspace: %d %v", code, body)
	}

	// archived: a link of a second workspace (Team plan), archived after
	other, _, _, otherOrg := f.signUpOrg(t)
	onTier(t, f, otherOrg, org.Team)
	code, created, _ := f.callAs(t, "POST", "/api/workspaces", other, map[string]any{"name": "Side project"})
	if code != 201 {
		t.Fatalf("second workspace: %d %v", code, created)
	}
	otherWS := created["id"].(string)
	archived, _ := inviteLink(t, f, other, otherWS, map[string]any{"role": "member"})
	if code, body := f.preview(t, archived); code != 200 || body["workspace_name"] != "Side project" || body["invited_by"] == nil {
		t.Fatalf("before archiving: %d %v", code, body)
	}
	if code, body, _ := f.callAs(t, "DELETE", "/api/workspaces/"+otherWS, other, nil); code != 200 {
		t.Fatalf("archive: %d %v", code, body)
	}
	if code, body := f.preview(t, archived); code != 400 || errorCode(body) != "invalid_body" {
		t.Errorf("archived workspace: %d %v", code, body)
	}
}

// TestInvitePreviewLimit: refusals count toward 20 per client address in
// 15 minutes, answers do not; past it the preview is 429 rate_limited with
// retry_after_seconds.
func TestInvitePreviewLimit(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	owner, _, wsID, _ := f.signUpOrg(t)
	token, _ := inviteLink(t, f, owner, wsID, map[string]any{"role": "viewer"})
	for i := range 30 {
		if code, body := f.preview(t, token); code != 200 {
			t.Fatalf("answer %d: %d %v", i, code, body)
		}
	}
	for i := range 20 {
		if code, body := f.preview(t, "nope"); code != 404 {
			t.Fatalf("refusal %d: %d %v", i, code, body)
		}
	}
	code, body := f.preview(t, token)
	details, _ := body["error"].(map[string]any)["details"].(map[string]any)
	if code != 429 || errorCode(body) != "rate_limited" || details["retry_after_seconds"] == nil {
		t.Fatalf("past the limit: %d %v", code, body)
	}
}

// invitePreviewWalks are TestEveryWriteIsReadBack's walks of the invite
// preview, a POST that writes nothing: the link previewed keeps its use,
// which accepting then takes, after which the preview refuses it.
func invitePreviewWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	return map[string]func(t *testing.T){
		"POST invites.preview": func(t *testing.T) {
			owner, _, wsID, _ := f.signUpOrg(t)
			token, _ := inviteLink(t, f, owner, wsID, map[string]any{"role": "viewer", "max_uses": 1})
			if code, body := f.preview(t, token); code != 200 || body["workspace_id"] != wsID || body["role"] != "viewer" {
				t.Fatalf("preview: %d %v", code, body)
			}
			_, list, _ := f.callAs(t, "GET", "/api/workspaces/"+wsID+"/invites", owner, nil)
			if l := list["invites"].([]any)[0].(map[string]any); l["uses_remaining"] != 1.0 {
				t.Fatalf("previewed link listed as %v", l)
			}
			joiner, _, _, _ := f.signUpOrg(t)
			if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", joiner, map[string]any{"token": token}); code != 200 {
				t.Fatalf("accept: %d %v", code, body)
			}
			if code, body := f.preview(t, token); code != 404 || errorCode(body) != "invite_not_found" {
				t.Fatalf("preview of the used link, read back at once: %d %v", code, body)
			}
		},
	}
}
