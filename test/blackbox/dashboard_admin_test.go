package blackbox

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// adminTeam is an owner with a member and a viewer in their workspace,
// each with a session cookie.
type adminTeam struct {
	owner                   person
	asOwner, asMember, asVw string
	ws                      string
}

func newAdminTeam(t *testing.T, s *server, tag string) adminTeam {
	t.Helper()
	owner := s.signUpPerson(t, tag+"-owner")
	tm := adminTeam{owner: owner, asOwner: "svc_session=" + owner.Access, ws: owner.WorkspaceID}
	for role, c := range map[string]*string{"member": &tm.asMember, "viewer": &tm.asVw} {
		p := s.signUpPerson(t, tag+"-"+role)
		wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + tm.ws + "/members", Header: owner.cookie(),
			Body: map[string]any{"email": p.Email, "role": role}}), http.StatusCreated)
		*c = "svc_session=" + p.Access
	}
	return tm
}

// adminPost posts form to a dashboard page with the token of the page
// at from, as cookie.
func adminPost(t *testing.T, s *server, cookie, from, path string, form url.Values) (int, http.Header, string) {
	t.Helper()
	_, _, body := page(t, s, http.MethodGet, from, cookie, nil, nil)
	form.Set("csrf_token", csrfOf(t, body))
	return page(t, s, http.MethodPost, path, cookie, form, nil)
}

var newKeyPattern = regexp.MustCompile(`<code id="new-key">(svc_live_[0-9a-f]+)</code>`)

// TestDashboardAdminKeys: an owner creates a key on the keys page (the
// raw key on the answer page only, working at once), a member sees it
// without create or revoke, a viewer sees no keys, a member's forged
// create reads as the API's refusal; the owner revokes it after the
// confirmation page and the API refuses it; revoking it again reads as
// not found.
func TestDashboardAdminKeys(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	tm := newAdminTeam(t, s, "dash-keys")
	keys := "/dashboard/keys?ws=" + tm.ws

	code, _, body := page(t, s, http.MethodGet, keys, tm.asOwner, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "no API key yet") || !strings.Contains(body, `action="/dashboard/keys"`) {
		t.Fatalf("the owner's empty keys page: %d %.3000s", code, body)
	}
	code, h, body := adminPost(t, s, tm.asOwner, keys, "/dashboard/keys", url.Values{"ws": {tm.ws}, "label": {"ci runner"}, "role": {"member"}})
	m := newKeyPattern.FindStringSubmatch(body)
	if code != http.StatusCreated || m == nil || h.Get("Location") != "" || !strings.Contains(body, "shown only this once") {
		t.Fatalf("create a key: %d %v %.3000s", code, h, body)
	}
	key := m[1]
	wantStatus(t, s.do(t, req{Path: "/api/keys/verify", Key: key}), http.StatusOK)

	code, _, body = page(t, s, http.MethodGet, keys, tm.asOwner, nil, nil)
	kid := regexp.MustCompile(`href="/dashboard/keys/([0-9a-f-]{36})/revoke`).FindStringSubmatch(body)
	if code != http.StatusOK || kid == nil || !strings.Contains(body, "ci runner") || strings.Contains(body, key) ||
		!strings.Contains(body, key[:15]+"…") || !strings.Contains(body, `<td data-label="Created by">`+tm.owner.Email) {
		t.Fatalf("the owner's keys: %d %.3000s", code, body)
	}

	code, _, body = page(t, s, http.MethodGet, keys, tm.asMember, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, key[:15]+"…") || strings.Contains(body, `action="/dashboard/keys"`) ||
		strings.Contains(body, "/revoke") || !strings.Contains(body, "Only the admins and owners") {
		t.Errorf("the member's keys: %d %.3000s", code, body)
	}
	code, _, body = page(t, s, http.MethodGet, keys, tm.asVw, nil, nil)
	if code != http.StatusForbidden || strings.Contains(body, key[:15]) || !strings.Contains(body, "your role here does not include them") {
		t.Errorf("the viewer's keys: %d %.3000s", code, body)
	}
	code, _, body = adminPost(t, s, tm.asMember, keys, "/dashboard/keys", url.Values{"ws": {tm.ws}, "label": {"sneaky"}})
	if code != http.StatusForbidden || !strings.Contains(body, "Your role in this workspace does not allow this.") || newKeyPattern.MatchString(body) {
		t.Errorf("the member's forged create: %d %.3000s", code, body)
	}
	code, _, body = adminPost(t, s, tm.asOwner, keys, "/dashboard/keys", url.Values{"ws": {tm.ws}, "label": {strings.Repeat("x", 101)}})
	if code != http.StatusBadRequest || !strings.Contains(body, "Check the field “label”") {
		t.Errorf("a long label: %d %.3000s", code, body)
	}

	confirm := "/dashboard/keys/" + kid[1] + "/revoke?ws=" + tm.ws
	code, _, body = page(t, s, http.MethodGet, confirm, tm.asOwner, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "cannot be undone") || !strings.Contains(body, `action="/dashboard/keys/`+kid[1]+`/revoke"`) {
		t.Fatalf("the revoke confirmation: %d %.3000s", code, body)
	}
	if code, _, _ := page(t, s, http.MethodGet, confirm, tm.asMember, nil, nil); code != http.StatusForbidden {
		t.Errorf("the member's revoke confirmation: %d", code)
	}
	code, h, _ = adminPost(t, s, tm.asOwner, confirm, "/dashboard/keys/"+kid[1]+"/revoke", url.Values{"ws": {tm.ws}, "prefix": {key[:15]}})
	if code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "revoked="+key[:15]) {
		t.Fatalf("revoke: %d %v", code, h)
	}
	if res := s.do(t, req{Path: "/api/keys/verify", Key: key}); res.Status != http.StatusUnauthorized {
		t.Errorf("the revoked key answers %d", res.Status)
	}
	_, _, body = page(t, s, http.MethodGet, h.Get("Location"), tm.asOwner, nil, nil)
	if !strings.Contains(body, `id="revoked"`) || strings.Contains(body, "/revoke?") {
		t.Errorf("after the revoke: %.3000s", body)
	}
	code, _, body = adminPost(t, s, tm.asOwner, keys, "/dashboard/keys/"+kid[1]+"/revoke", url.Values{"ws": {tm.ws}})
	if code != http.StatusNotFound || !strings.Contains(body, "does not exist") {
		t.Errorf("revoking it again: %d %.2000s", code, body)
	}
}

// TestDashboardAdminAudit: the owner's audit log shows the key's
// creation with the owner as actor and filters by action; a bad filter
// reads as the API's refusal; a member is refused.
func TestDashboardAdminAudit(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	tm := newAdminTeam(t, s, "dash-audit")
	s.keyWithRole(t, tm.owner, tm.ws, "viewer")
	audit := "/dashboard/audit?ws=" + tm.ws
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, body := page(t, s, http.MethodGet, audit+"&action=api_key.created", tm.asOwner, nil, nil)
		if code == http.StatusOK && strings.Contains(body, "<code>api_key.created</code>") &&
			strings.Contains(body, "actor="+tm.owner.UserID) && strings.Contains(body, "events\">"+tm.owner.Email) &&
			!strings.Contains(body, "<code>member.added</code>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit log: %d %.3000s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, _, body := page(t, s, http.MethodGet, audit+"&limit=1", tm.asOwner, nil, nil)
	if code != http.StatusOK || strings.Count(body, `<td data-label="When">`) != 1 || !strings.Contains(body, "Older events") {
		t.Errorf("one a page: %d %.3000s", code, body)
	}
	code, _, body = page(t, s, http.MethodGet, audit+"&limit=500", tm.asOwner, nil, nil)
	if code != http.StatusBadRequest || !strings.Contains(body, "Some of what you entered is not valid.") || !strings.Contains(body, "limit") {
		t.Errorf("a bad limit: %d %.3000s", code, body)
	}
	if code, _, _ := page(t, s, http.MethodGet, audit, tm.asMember, nil, nil); code != http.StatusForbidden {
		t.Errorf("the member's audit log: %d", code)
	}

	// the filters offer exactly the values the route takes
	_, _, body = page(t, s, http.MethodGet, audit, tm.asOwner, nil, nil)
	for param, id := range map[string]string{"action": "audit-action", "resource_type": "audit-resource"} {
		res := s.do(t, req{Path: "/api/workspaces/" + tm.ws + "/audit-log?" + param + "=nope", Header: tm.owner.cookie()})
		wantError(t, res, http.StatusBadRequest, "invalid_body")
		var allowed []string
		for _, v := range object(t, object(t, res.Body, "error"), "details")["allowed"].([]any) {
			allowed = append(allowed, v.(string))
		}
		sel := regexp.MustCompile(`(?s)<select id="` + id + `".*?</select>`).FindString(body)
		var offered []string
		for _, m := range regexp.MustCompile(`<option value="([^"]+)"`).FindAllStringSubmatch(sel, -1) {
			offered = append(offered, m[1])
		}
		sort.Strings(allowed)
		if strings.Join(offered, ",") != strings.Join(allowed, ",") {
			t.Errorf("the %s filter offers %v; the route takes %v", param, offered, allowed)
		}
	}
}

// TestDashboardAdminWebhooks: on the free plan the page says webhooks
// need Pro; on Pro an owner adds one (the secret on the answer page
// only), sends a test event to a real receiver, turns it off, rotates its
// secret and deletes it, each after its confirmation; a member sees it
// without controls; a run delivered by webhook shows in the delivery
// log, an unknown run reads as not found.
func TestDashboardAdminWebhooks(t *testing.T) {
	t.Parallel()
	rc, ca := newHookReceiver(t, func(*http.Request, int) int { return http.StatusNoContent })
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": ca, "SVC_WEBHOOK_BACKOFF_SCALE": "0.01"})
	tm := newAdminTeam(t, s, "dash-hooks")
	hooks := "/dashboard/webhooks?ws=" + tm.ws
	if code, _, body := page(t, s, http.MethodGet, hooks, tm.asOwner, nil, nil); code != http.StatusOK || !strings.Contains(body, "need the Pro plan") {
		t.Fatalf("on the free plan: %d %.3000s", code, body)
	}
	setTier(t, s, tm.owner, "pro")

	code, _, body := adminPost(t, s, tm.asOwner, hooks, "/dashboard/webhooks", url.Values{"ws": {tm.ws}, "url": {rc.srv.URL + "/events"},
		"description": {"ops"}, "events": {"workflow_completed", "step_failed"}, "active": {"1"}})
	secret := regexp.MustCompile(`<code id="new-secret">([0-9a-f]{64})</code>`).FindStringSubmatch(body)
	if code != http.StatusCreated || secret == nil {
		t.Fatalf("add a webhook: %d %.3000s", code, body)
	}
	code, _, body = page(t, s, http.MethodGet, hooks, tm.asOwner, nil, nil)
	id := regexp.MustCompile(`id="hook-([0-9a-f-]{36})"`).FindStringSubmatch(body)
	if code != http.StatusOK || id == nil || strings.Contains(body, secret[1]) || !strings.Contains(body, "A workflow completed") {
		t.Fatalf("the webhooks: %d %.3000s", code, body)
	}
	base := "/dashboard/webhooks/" + id[1]
	code, _, body = page(t, s, http.MethodGet, hooks, tm.asMember, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, rc.srv.URL) || strings.Contains(body, base) || strings.Contains(body, "Add a webhook") {
		t.Errorf("the member's webhooks: %d %.3000s", code, body)
	}
	if code, _, _ := page(t, s, http.MethodGet, hooks, tm.asVw, nil, nil); code != http.StatusForbidden {
		t.Errorf("the viewer's webhooks: %d", code)
	}

	code, h, _ := adminPost(t, s, tm.asOwner, hooks, base+"/test", url.Values{"ws": {tm.ws}})
	if code != http.StatusSeeOther {
		t.Fatalf("test: %d", code)
	}
	if _, _, body = page(t, s, http.MethodGet, h.Get("Location"), tm.asOwner, nil, nil); !strings.Contains(body, "delivered: the receiver answered 204") {
		t.Errorf("after the test: %.3000s", body)
	}
	adminPost(t, s, tm.asOwner, hooks, base+"/disable", url.Values{"ws": {tm.ws}})
	if _, _, body = page(t, s, http.MethodGet, hooks, tm.asOwner, nil, nil); !strings.Contains(body, "s-off") || !strings.Contains(body, base+"/enable") {
		t.Errorf("turned off: %.3000s", body)
	}
	adminPost(t, s, tm.asOwner, hooks, base+"/enable", url.Values{"ws": {tm.ws}})

	if code, _, body = page(t, s, http.MethodGet, base+"/rotate?ws="+tm.ws, tm.asOwner, nil, nil); code != http.StatusOK || !strings.Contains(body, `name="overlap_hours"`) {
		t.Errorf("the rotate confirmation: %d %.2000s", code, body)
	}
	code, _, body = adminPost(t, s, tm.asOwner, hooks, base+"/rotate", url.Values{"ws": {tm.ws}, "overlap_hours": {"2"}})
	if rotated := regexp.MustCompile(`<code id="new-secret">([0-9a-f]{64})</code>`).FindStringSubmatch(body); code != http.StatusOK ||
		rotated == nil || rotated[1] == secret[1] || !strings.Contains(body, "keeps signing") {
		t.Errorf("rotate: %d %.3000s", code, body)
	}
	code, _, body = adminPost(t, s, tm.asOwner, hooks, base+"/rotate", url.Values{"ws": {tm.ws}, "overlap_hours": {"500"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "overlap hours") {
		t.Errorf("a long overlap: %d %.3000s", code, body)
	}
	code, _, body = adminPost(t, s, tm.asOwner, hooks, "/dashboard/webhooks", url.Values{"ws": {tm.ws}, "url": {"http://example.com/x"},
		"events": {"timed_out"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "Check the field “url”") || !strings.Contains(body, `value="http://example.com/x"`) {
		t.Errorf("an http URL: %d %.3000s", code, body)
	}

	// a run delivered by webhook, in the delivery log
	key := s.keyWithRole(t, tm.owner, tm.ws, "owner")
	if r := cli(t, s.dbURL, "credits", "grant", "--org", tm.owner.OrgID, "--credits", "20000", "--reason", "a run"); r.Code != 0 {
		t.Fatalf("svc credits grant: %s", r)
	}
	res := s.execute(t, key, process("dash hooks", map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": rc.srv.URL + "/run"}}))
	wantStatus(t, res, http.StatusOK)
	wf := str(t, res.Body, "workflow_id")
	s.waitTerminal(t, key, wf, 90*time.Second)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, body = page(t, s, http.MethodGet, hooks+"&workflow_id="+wf, tm.asMember, nil, nil)
		if strings.Contains(body, "s-delivered") && strings.Contains(body, "workflow_completed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log: %.3000s", body)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if _, _, body = page(t, s, http.MethodGet, hooks+"&workflow_id=wr_00000000000000000000000000000000", tm.asMember, nil, nil); !strings.Contains(body, "No workflow with this id exists") {
		t.Errorf("an unknown run's log: %.3000s", body)
	}

	if code, _, body = page(t, s, http.MethodGet, base+"/delete?ws="+tm.ws, tm.asOwner, nil, nil); code != http.StatusOK || !strings.Contains(body, "cannot be undone") {
		t.Errorf("the delete confirmation: %d %.2000s", code, body)
	}
	if code, h, _ = adminPost(t, s, tm.asOwner, hooks, base+"/delete", url.Values{"ws": {tm.ws}}); code != http.StatusSeeOther {
		t.Fatalf("delete: %d", code)
	}
	if _, _, body = page(t, s, http.MethodGet, h.Get("Location"), tm.asOwner, nil, nil); strings.Contains(body, base) || !strings.Contains(body, "was deleted") {
		t.Errorf("after the delete: %.3000s", body)
	}
}

// TestDashboardAdminAccount: only an owner reaches the account page; a
// request shows what is deleted and needs the box and the word; a wrong
// token reads as the API's refusal; confirmed, the organization is gone
// and its session with it.
func TestDashboardAdminAccount(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	tm := newAdminTeam(t, s, "dash-account")
	account := "/dashboard/account?ws=" + tm.ws
	if code, _, body := page(t, s, http.MethodGet, account, tm.asMember, nil, nil); code != http.StatusForbidden || !strings.Contains(body, "Only an owner") {
		t.Errorf("a member's account page: %d %.2000s", code, body)
	}
	// the member owns their own organization: the page is theirs in their default workspace
	code, _, body := page(t, s, http.MethodGet, "/dashboard/account", tm.asMember, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "No deletion was ever requested") {
		t.Errorf("the member's own account page: %d %.2000s", code, body)
	}

	code, _, body = adminPost(t, s, tm.asOwner, account, "/dashboard/account/delete-request", url.Values{"ws": {tm.ws}})
	m := regexp.MustCompile(`name="request_id" value="([^"]+)"`).FindStringSubmatch(body)
	tok := regexp.MustCompile(`name="confirmation_token" value="([^"]+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil || tok == nil || !strings.Contains(body, `<ul id="affected">`) {
		t.Fatalf("request the deletion: %d %.3000s", code, body)
	}
	if _, _, body = page(t, s, http.MethodGet, account, tm.asOwner, nil, nil); !strings.Contains(body, "s-pending") {
		t.Errorf("the pending request is not listed: %.3000s", body)
	}
	form := url.Values{"ws": {tm.ws}, "request_id": {m[1]}, "confirmation_token": {tok[1]}}
	if code, _, body = adminPost(t, s, tm.asOwner, account, "/dashboard/account/confirm-deletion", form); code != http.StatusBadRequest ||
		!strings.Contains(body, "Nothing was deleted") {
		t.Errorf("unconfirmed: %d %.2000s", code, body)
	}
	form.Set("understand", "1")
	form.Set("confirm_word", "DELETE")
	form.Set("confirmation_token", "wrong")
	if code, _, body = adminPost(t, s, tm.asOwner, account, "/dashboard/account/confirm-deletion", form); code != http.StatusNotFound ||
		!strings.Contains(body, "Nothing was deleted. Request the deletion again.") {
		t.Errorf("a wrong token: %d %.2000s", code, body)
	}
	form.Set("confirmation_token", tok[1])
	code, _, body = adminPost(t, s, tm.asOwner, account, "/dashboard/account/confirm-deletion", form)
	if code != http.StatusOK || !strings.Contains(body, `id="deleted"`) || strings.Contains(body, "Log out") {
		t.Fatalf("confirm: %d %.3000s", code, body)
	}
	if code, h, _ := page(t, s, http.MethodGet, "/dashboard/keys", tm.asOwner, nil, nil); code != http.StatusSeeOther ||
		!strings.HasPrefix(h.Get("Location"), "/dashboard/login") {
		t.Errorf("the deleted owner's session: %d %v", code, h)
	}
}
