package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"svc/domain/apikey"
)

// bodyFake is a fakeAPI that also records the JSON body of each call.
type bodyFake struct {
	*fakeAPI
	bodies map[string]string // "METHOD path": body
}

func (f *bodyFake) Call(r *http.Request, ws, method, path string, body any) Reply {
	if body != nil {
		raw, _ := json.Marshal(body)
		f.bodies[method+" "+path] = string(raw)
	}
	return f.fakeAPI.Call(r, ws, method, path, body)
}

func adminFake(role apikey.Role) *bodyFake {
	f := newFake(role, "completed")
	for k, v := range map[string]Reply{
		"GET /api/workspaces/w/api-keys": ok(`{"api_keys":[{"key_id":"k1","prefix":"svc_live_ab12cd","label":"deploy <bot>","role":"member",
			"created_at":"2026-11-20T10:00:00Z","last_used_at":null,"created_by":"user:u1"}]}`),
		"POST /api/workspaces/w/api-keys": {Status: 201, Body: []byte(`{"key_id":"k2","key":"svc_live_0123456789abcdef","prefix":"svc_live_012345",
			"label":"ci","role":"viewer","created_at":"2026-11-25T10:00:00Z"}`)},
		"DELETE /api/workspaces/w/api-keys/k1": ok(`{"success":true}`),
		"GET /api/workspaces/w/members":        ok(`{"members":[{"id":"u1","type":"user","email":"ann@example.com","role":"owner"}]}`),
		"GET /api/workspaces/w/webhooks": ok(`{"webhooks":[{"id":"h1","url":"https://example.com/hook","description":"Ops",
			"events":["workflow_completed"],"active":true,"created_at":"2026-11-20T10:00:00Z"}]}`),
		"POST /api/workspaces/w/webhooks": {Status: 201, Body: []byte(`{"id":"h2","url":"https://example.com/new","events":["step_failed"],
			"active":true,"created_at":"2026-11-25T10:00:00Z","secret":"whsec_0123456789"}`)},
		"POST /api/workspaces/w/webhooks/h1/test": ok(`{"ok":true,"delivered":true,"status_code":204}`),
		"PATCH /api/workspaces/w/webhooks/h1":     ok(`{"id":"h1"}`),
		"POST /api/workspaces/w/webhooks/h1/rotate-secret": ok(`{"ok":true,"id":"h1","secret":"whsec_rotated",
			"previous_secret_expires_at":"2026-11-26T10:00:00Z"}`),
		"GET /api/rigor/webhooks/deliveries": ok(`{"ok":true,"workflow_id":"wr_1","deliveries":[{"delivery_id":"dlv_1","event_type":"workflow_completed",
			"url":"https://example.com/r","status":"delivered","attempts":2,"last_status_code":200,"created_at":"2026-11-25T10:00:00Z",
			"delivered_at":"2026-11-25T10:01:00Z","log":[{"attempt":1,"attempted_at":"2026-11-25T10:00:00Z","status_code":500,"error":"HTTP 500",
			"delivered":false,"duration_ms":12},{"attempt":2,"attempted_at":"2026-11-25T10:01:00Z","status_code":200,"delivered":true,"duration_ms":9}]}]}`),
		"GET /api/workspaces/w/audit-log": ok(`{"events":[{"id":"e1","action":"api_key.created","actor":{"type":"user","id":"u1"},
			"resource_type":"api_key","resource_id":"k1","metadata":{"label":"deploy","role":"member"},"created_at":"2026-11-25T10:00:00Z"}],
			"next_cursor":"c2"}`),
		"GET /api/data/delete-request": ok(`{"requests":[{"id":"d1","status":"expired","requested_at":"2026-11-24T10:00:00Z",
			"expires_at":"2026-11-24T11:00:00Z"}]}`),
		"POST /api/data/delete-request": {Status: 202, Body: []byte(`{"request_id":"d2","confirmation_token":"tok_secret","status":"pending",
			"requested_at":"2026-11-25T10:00:00Z","expires_at":"2026-11-25T11:00:00Z","warning":"Permanent.","affected_data":["every workspace","every key"]}`)},
		"DELETE /api/data/confirm-deletion": ok(`{"ok":true,"status":"completed","message":"All of the organization's data was permanently deleted."}`),
	} {
		f.replies[k] = v
	}
	return &bodyFake{fakeAPI: f, bodies: map[string]string{}}
}

func adminToken() string { return derive("session", "sess") }

// adminCheck fails t for each want missing from body and each not in it.
func adminCheck(t *testing.T, what, body string, want, not []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("%s lacks %q", what, s)
		}
	}
	for _, s := range not {
		if strings.Contains(body, s) {
			t.Errorf("%s has %q", what, s)
		}
	}
}

func adminCalled(f *bodyFake, call string) bool {
	for _, c := range f.calls {
		if strings.HasPrefix(c, call) {
			return true
		}
	}
	return false
}

// TestKeysPage: a member sees the keys without create or revoke; an
// admin may create keys up to admin and revoke; a viewer is refused
// without a call; the raw key is on the answer page only; a revoke asks
// first, then says which key was revoked.
func TestKeysPage(t *testing.T) {
	w := serve(t, adminFake(apikey.Member), "GET", "/dashboard/keys", nil)
	adminCheck(t, "a member's keys", w.Body.String(), []string{"svc_live_ab12cd…", "deploy &lt;bot&gt;", "ann@example.com", "never"},
		[]string{`action="/dashboard/keys"`, "/revoke", "Create an API key"})
	if w.Code != 200 {
		t.Errorf("a member's keys: %d", w.Code)
	}
	w = serve(t, adminFake(apikey.Admin), "GET", "/dashboard/keys", nil)
	adminCheck(t, "an admin's keys", w.Body.String(), []string{`action="/dashboard/keys"`, `href="/dashboard/keys/k1/revoke"`, `value="admin"`},
		[]string{`value="owner"`})
	adminCheck(t, "an owner's keys", serve(t, adminFake(apikey.Owner), "GET", "/dashboard/keys?ws=w", nil).Body.String(),
		[]string{`value="owner"`, `href="/dashboard/keys/k1/revoke?ws=w"`}, nil)

	f := adminFake(apikey.Viewer)
	if w := serve(t, f, "GET", "/dashboard/keys", nil); w.Code != 403 || !strings.Contains(w.Body.String(), keysRefusal) ||
		strings.Contains(w.Body.String(), "svc_live_ab12cd") || adminCalled(f, "GET /api/workspaces/w/api-keys") {
		t.Errorf("a viewer: %d, calls %v", w.Code, f.calls)
	}

	f = adminFake(apikey.Admin)
	w = serve(t, f, "POST", "/dashboard/keys", url.Values{"label": {" ci "}, "role": {"viewer"}, csrfField: {adminToken()}})
	if w.Code != 201 || w.Header().Get("Location") != "" || f.bodies["POST /api/workspaces/w/api-keys"] != `{"label":"ci","role":"viewer"}` {
		t.Errorf("create: %d %q %v", w.Code, w.Header().Get("Location"), f.bodies)
	}
	adminCheck(t, "the new key's page", w.Body.String(), []string{`<code id="new-key">svc_live_0123456789abcdef</code>`, "shown only this once"}, nil)

	f = adminFake(apikey.Admin)
	f.replies["POST /api/workspaces/w/api-keys"] = Reply{Status: 402, Body: []byte(`{"error":{"code":"key_limit_reached","message":"Limit 5."}}`)}
	w = serve(t, f, "POST", "/dashboard/keys", url.Values{"label": {"ci"}, csrfField: {adminToken()}})
	if w.Code != 402 {
		t.Errorf("a refused key: %d", w.Code)
	}
	adminCheck(t, "a refused key", w.Body.String(), []string{sentences["key_limit_reached"], `value="ci"`, "svc_live_ab12cd…"}, nil)

	adminCheck(t, "the revoke confirmation", serve(t, adminFake(apikey.Admin), "GET", "/dashboard/keys/k1/revoke", nil).Body.String(),
		[]string{`action="/dashboard/keys/k1/revoke"`, `name="prefix" value="svc_live_ab12cd"`, "cannot be undone"}, nil)
	if w := serve(t, adminFake(apikey.Admin), "GET", "/dashboard/keys/nope/revoke", nil); w.Code != 404 {
		t.Errorf("revoking an unknown key: %d", w.Code)
	}
	if w := serve(t, adminFake(apikey.Member), "GET", "/dashboard/keys/k1/revoke", nil); w.Code != 403 {
		t.Errorf("a member's revoke confirmation: %d", w.Code)
	}
	f = adminFake(apikey.Admin)
	w = serve(t, f, "POST", "/dashboard/keys/k1/revoke", url.Values{"prefix": {"svc_live_ab12cd"}, csrfField: {adminToken()}, "ws": {"w"}})
	if w.Code != 303 || w.Header().Get("Location") != "/dashboard/keys?revoked=svc_live_ab12cd&ws=w" || !adminCalled(f, "DELETE /api/workspaces/w/api-keys/k1") {
		t.Errorf("revoke: %d %q %v", w.Code, w.Header().Get("Location"), f.calls)
	}
	adminCheck(t, "after the revoke", serve(t, adminFake(apikey.Admin), "GET", "/dashboard/keys?revoked=svc_live_ab12cd", nil).Body.String(),
		[]string{`id="revoked"`, "s-revoked"}, nil)
	adminCheck(t, "a forged notice", serve(t, adminFake(apikey.Admin), "GET", "/dashboard/keys?revoked=call+us", nil).Body.String(),
		nil, []string{`id="revoked"`, "call us"})

	f = adminFake(apikey.Admin)
	f.replies["DELETE /api/workspaces/w/api-keys/k1"] = Reply{Status: 403, Body: []byte(`{"error":{"code":"forbidden"}}`)}
	if w := serve(t, f, "POST", "/dashboard/keys/k1/revoke", url.Values{csrfField: {adminToken()}}); w.Code != 403 ||
		!strings.Contains(w.Body.String(), sentences["forbidden"]) {
		t.Errorf("a refused revoke: %d", w.Code)
	}
}

// TestWebhooksPage: members see the webhooks, admins their controls; a
// free plan reads as such; the secret is on the answer page only; the
// actions go to their routes; a run's delivery log and its refusal.
func TestWebhooksPage(t *testing.T) {
	adminCheck(t, "a member's webhooks", serve(t, adminFake(apikey.Member), "GET", "/dashboard/webhooks", nil).Body.String(),
		[]string{"https://example.com/hook", "A workflow completed", "Delivery log of a run"},
		[]string{"/dashboard/webhooks/h1/", "Add a webhook"})
	adminCheck(t, "an admin's webhooks", serve(t, adminFake(apikey.Admin), "GET", "/dashboard/webhooks", nil).Body.String(),
		[]string{`action="/dashboard/webhooks/h1/disable"`, `action="/dashboard/webhooks/h1/test"`, "/dashboard/webhooks/h1/delete",
			"/dashboard/webhooks/h1/rotate", `id="hook-ev-h1-workflow_completed" name="events" value="workflow_completed" checked`, "Add a webhook"}, nil)
	if w := serve(t, adminFake(apikey.Viewer), "GET", "/dashboard/webhooks", nil); w.Code != 403 {
		t.Errorf("a viewer's webhooks: %d", w.Code)
	}
	f := adminFake(apikey.Admin)
	f.replies["GET /api/workspaces/w/webhooks"] = Reply{Status: 403, Body: []byte(`{"error":{"code":"tier_required"}}`)}
	adminCheck(t, "a free plan", serve(t, f, "GET", "/dashboard/webhooks", nil).Body.String(), []string{`id="hooks-unavailable"`}, []string{"Add a webhook"})

	f = adminFake(apikey.Admin)
	w := serve(t, f, "POST", "/dashboard/webhooks", url.Values{"url": {"https://example.com/new"}, "events": {"step_failed", "timed_out"},
		"active": {"1"}, csrfField: {adminToken()}})
	if w.Code != 201 || f.bodies["POST /api/workspaces/w/webhooks"] != `{"active":true,"description":"","events":["step_failed","timed_out"],"url":"https://example.com/new"}` {
		t.Errorf("create: %d %v", w.Code, f.bodies)
	}
	adminCheck(t, "the secret's page", w.Body.String(), []string{`<code id="new-secret">whsec_0123456789</code>`, "shown only this once"}, nil)
	f.replies["POST /api/workspaces/w/webhooks"] = Reply{Status: 400, Body: []byte(`{"error":{"code":"invalid_body","message":"url: must be an https URL","details":{"field":"url"}}}`)}
	w = serve(t, f, "POST", "/dashboard/webhooks", url.Values{"url": {"http://x"}, csrfField: {adminToken()}})
	adminCheck(t, "a refused webhook", w.Body.String(), []string{"must be an https URL", `value="http://x"`, "Address (HTTPS URL)"}, nil)

	w = serve(t, f, "POST", "/dashboard/webhooks/h1/test", url.Values{csrfField: {adminToken()}})
	if loc := w.Header().Get("Location"); w.Code != 303 || !strings.Contains(loc, "done=tested") || !strings.Contains(loc, "code=204") {
		t.Errorf("test: %d %q", w.Code, loc)
	}
	adminCheck(t, "after the test", serve(t, f, "GET", "/dashboard/webhooks?done=tested&code=204&delivered=1", nil).Body.String(),
		[]string{"The test event was delivered: the receiver answered 204."}, nil)
	serve(t, f, "POST", "/dashboard/webhooks/h1/disable", url.Values{csrfField: {adminToken()}})
	if f.bodies["PATCH /api/workspaces/w/webhooks/h1"] != `{"active":false}` {
		t.Errorf("disable: %v", f.bodies)
	}
	w = serve(t, f, "POST", "/dashboard/webhooks/h1/rotate", url.Values{"overlap_hours": {"2"}, csrfField: {adminToken()}})
	if f.bodies["POST /api/workspaces/w/webhooks/h1/rotate-secret"] != `{"overlap_hours":2}` {
		t.Errorf("rotate: %v", f.bodies)
	}
	adminCheck(t, "the new secret's page", w.Body.String(), []string{"whsec_rotated", "keeps signing"}, nil)
	adminCheck(t, "the delete confirmation", serve(t, f, "GET", "/dashboard/webhooks/h1/delete", nil).Body.String(),
		[]string{`action="/dashboard/webhooks/h1/delete"`, "cannot be undone"}, nil)

	w = serve(t, adminFake(apikey.Member), "GET", "/dashboard/webhooks?workflow_id=wr_1", nil)
	adminCheck(t, "the delivery log", w.Body.String(), []string{"workflow_completed", "s-delivered", "HTTP 500", "12 ms"}, nil)
	f = adminFake(apikey.Member)
	f.replies["GET /api/rigor/webhooks/deliveries"] = Reply{Status: 404, Body: []byte(`{"error":{"code":"not_found"}}`)}
	adminCheck(t, "an unknown run's log", serve(t, f, "GET", "/dashboard/webhooks?workflow_id=wr_9", nil).Body.String(),
		[]string{"No workflow with this id exists", "https://example.com/hook"}, nil)
}

// TestAuditPage: the filters reach the route, actors read as people, the
// next page links on; a member is refused.
func TestAuditPage(t *testing.T) {
	f := adminFake(apikey.Admin)
	w := serve(t, f, "GET", "/dashboard/audit?action=api_key.created&limit=25&ws=w", nil)
	adminCheck(t, "the audit log", w.Body.String(), []string{"api_key.created", "ann@example.com", "cursor=c2", "deploy", `value="api_key.created" selected`,
		`href="/dashboard/audit?actor=u1&amp;ws=w"`}, nil)
	if !adminCalled(f, "GET /api/workspaces/w/audit-log?action=api_key.created&limit=25") {
		t.Errorf("calls %v", f.calls)
	}
	f.replies["GET /api/workspaces/w/audit-log"] = Reply{Status: 400, Body: []byte(`{"error":{"code":"invalid_body","message":"limit: an integer from 1 to 100","details":{"field":"limit"}}}`)}
	if w := serve(t, f, "GET", "/dashboard/audit?limit=500", nil); w.Code != 400 || !strings.Contains(w.Body.String(), "an integer from 1 to 100") {
		t.Errorf("a bad limit: %d", w.Code)
	}
	if w := serve(t, adminFake(apikey.Member), "GET", "/dashboard/audit", nil); w.Code != 403 {
		t.Errorf("a member's audit log: %d", w.Code)
	}
}

// TestAccountPage: only an owner; a request shows what is deleted and
// carries its token in the form; confirming needs the box and the word.
func TestAccountPage(t *testing.T) {
	if w := serve(t, adminFake(apikey.Admin), "GET", "/dashboard/account", nil); w.Code != 403 || !strings.Contains(w.Body.String(), "Only an owner") {
		t.Errorf("an admin's account page: %d", w.Code)
	}
	adminCheck(t, "the account page", serve(t, adminFake(apikey.Owner), "GET", "/dashboard/account", nil).Body.String(),
		[]string{"s-expired", `action="/dashboard/account/delete-request"`, "cannot be undone"}, nil)
	f := adminFake(apikey.Owner)
	w := serve(t, f, "POST", "/dashboard/account/delete-request", url.Values{csrfField: {adminToken()}})
	adminCheck(t, "the confirmation", w.Body.String(), []string{`name="confirmation_token" value="tok_secret"`, "<li>every workspace</li>", "Permanent.",
		`action="/dashboard/account/confirm-deletion"`}, nil)
	form := url.Values{"request_id": {"d2"}, "confirmation_token": {"tok_secret"}, "affected_data": {"every key"}, csrfField: {adminToken()}}
	w = serve(t, f, "POST", "/dashboard/account/confirm-deletion", form)
	if w.Code != 400 || adminCalled(f, "DELETE") || !strings.Contains(w.Body.String(), "<li>every key</li>") {
		t.Errorf("unconfirmed: %d %v", w.Code, f.calls)
	}
	form.Set("understand", "1")
	form.Set("confirm_word", "DELETE")
	w = serve(t, f, "POST", "/dashboard/account/confirm-deletion", form)
	if w.Code != 200 || f.bodies["DELETE /api/data/confirm-deletion"] != `{"confirmation_token":"tok_secret","request_id":"d2"}` ||
		!strings.Contains(w.Body.String(), "permanently deleted") || strings.Contains(w.Body.String(), "Log out") {
		t.Errorf("confirmed: %d %v %s", w.Code, f.bodies, w.Body)
	}
	// an owner looking at another organization's workspace: the page does not act there
	other := &otherOrg{adminFake(apikey.Owner)}
	if w := serve(t, other, "GET", "/dashboard/account?ws=x", nil); w.Code != 403 || !strings.Contains(w.Body.String(), "default workspace") {
		t.Errorf("another organization's workspace: %d", w.Code)
	}
	f = adminFake(apikey.Owner)
	f.replies["POST /api/data/delete-request"] = Reply{Status: 409, Body: []byte(`{"error":{"code":"deletion_already_pending"}}`)}
	if w := serve(t, f, "POST", "/dashboard/account/delete-request", url.Values{csrfField: {adminToken()}}); w.Code != 409 ||
		!strings.Contains(w.Body.String(), "already pending") {
		t.Errorf("a pending request: %d", w.Code)
	}
}

// otherOrg puts workspace x in another organization.
type otherOrg struct{ *bodyFake }

func (f *otherOrg) Identity(r *http.Request, ws string) (Identity, error) {
	id, err := f.bodyFake.Identity(r, ws)
	if ws == "x" {
		id.OrgID = "o2"
	}
	return id, err
}
