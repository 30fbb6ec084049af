package blackbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// sign is X-Svc-Signature's scheme, written again from the README:
// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t "." body)>.
func sign(secret string, at time.Time, body string) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts + "." + body))
	return "t=" + ts + ",v1=" + hex.EncodeToString(h.Sum(nil))
}

// TestWorkspaceWebhooks walks spec B's workspace webhook routes against a
// server allowed to reach a local receiver: the tier gate, create (the
// secret once), list, patch, verify, test (a real signed delivery),
// delete, the 400s, a member's 403 and another organization's 404.
func TestWorkspaceWebhooks(t *testing.T) {
	t.Parallel()
	rc, ca := newReceiver(t, false)
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": ca})
	p := s.signUpPerson(t, "hooks")
	base := "/api/workspaces/" + p.WorkspaceID + "/webhooks"
	create := map[string]any{"url": rc.srv.URL + "/hook", "events": []any{"workflow_failed", "step_completed", "step_completed"}, "description": "ops"}

	// free tier: 403 tier_required, reads included
	wantError(t, s.do(t, req{Path: base, Header: p.cookie()}), http.StatusForbidden, "tier_required")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(), Body: create}), http.StatusForbidden, "tier_required")
	setTier(t, s, p, "pro")

	res := s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(), Body: create})
	wantStatus(t, res, http.StatusCreated)
	id, secret := str(t, res.Body, "id"), str(t, res.Body, "secret")
	if len(secret) != 64 || res.Body["active"] != true || res.Body["description"] != "ops" ||
		!reflect.DeepEqual(res.Body["events"], []any{"step_completed", "workflow_failed"}) || res.Body["created_at"] == nil {
		t.Fatalf("created %s", res.Raw)
	}

	res = s.do(t, req{Path: base, Header: p.cookie()})
	wantStatus(t, res, http.StatusOK)
	list, _ := res.Body["webhooks"].([]any)
	if len(list) != 1 {
		t.Fatalf("list %s", res.Raw)
	}
	if w := list[0].(map[string]any); w["id"] != id || w["secret"] != nil || w["url"] != create["url"] {
		t.Fatalf("listed %v", w)
	}

	res = s.do(t, req{Method: http.MethodPatch, Path: base + "/" + id, Header: p.cookie(), Body: map[string]any{"active": false, "events": []any{"timed_out"}}})
	wantStatus(t, res, http.StatusOK)
	if res.Body["active"] != false || !reflect.DeepEqual(res.Body["events"], []any{"timed_out"}) || res.Body["secret"] != nil || res.Body["description"] != "ops" {
		t.Fatalf("patched %s", res.Raw)
	}

	// verify: the secret given once signs; another secret or body does not
	payload := `{"id":"evt_1","type":"workflow_failed"}`
	for _, tc := range []struct {
		sig, body string
		valid     bool
	}{
		{sign(secret, time.Now(), payload), payload, true},
		{sign(secret, time.Now(), payload), payload + " ", false},
		{sign("another", time.Now(), payload), payload, false},
		{sign(secret, time.Now().Add(-time.Hour), payload), payload, false},
		{"garbage", payload, false},
	} {
		res = s.do(t, req{Method: http.MethodPost, Path: base + "/" + id + "/verify", Header: p.cookie(), Body: map[string]any{"payload": tc.body, "signature": tc.sig}})
		wantStatus(t, res, http.StatusOK)
		if res.Body["ok"] != true || res.Body["valid"] != tc.valid {
			t.Fatalf("verify %q: %s, want valid %v", tc.sig, res.Raw, tc.valid)
		}
	}

	// test: one signed delivery of a test event, even to an inactive webhook
	res = s.do(t, req{Method: http.MethodPost, Path: base + "/" + id + "/test", Header: p.cookie()})
	wantStatus(t, res, http.StatusOK)
	if res.Body["ok"] != true || res.Body["delivered"] != true || res.Body["status_code"] != json.Number("204") {
		t.Fatalf("test %s", res.Raw)
	}
	got := rc.deliveries()
	if len(got) != 1 || got[0].Header.Get("X-Svc-Event") != "test" || got[0].Event["type"] != "test" || got[0].Event["webhook_id"] != id {
		t.Fatalf("receiver got %+v", got)
	}
	verify(t, secret, got[0])

	// 400s
	for _, body := range []map[string]any{
		{"events": []any{"step_failed"}},
		{"url": "https://example.com/h"},
		{"url": "http://example.com/h", "events": []any{"step_failed"}},
		{"url": "https://example.com/h", "events": []any{}},
		{"url": "https://example.com/h", "events": []any{"nope"}},
		{"url": "https://example.com/h", "events": "step_failed"},
	} {
		wantError(t, s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(), Body: body}), http.StatusBadRequest, "invalid_body")
	}
	wantError(t, s.do(t, req{Method: http.MethodPatch, Path: base + "/" + id, Header: p.cookie(), Body: map[string]any{"url": "http://example.com"}}),
		http.StatusBadRequest, "invalid_body")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: base + "/" + id + "/verify", Header: p.cookie(), Body: map[string]any{"payload": "{}"}}),
		http.StatusBadRequest, "invalid_body")

	// a member reads and verifies, but may not create
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantStatus(t, s.do(t, req{Path: base, Key: member}), http.StatusOK)
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: base, Key: member, Body: create}), http.StatusForbidden, "forbidden")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: base + "/" + id + "/test", Key: member}), http.StatusForbidden, "forbidden")

	// another organization (Pro too) sees none of it
	q := s.signUpPerson(t, "hooks-other")
	setTier(t, s, q, "pro")
	theirs := "/api/workspaces/" + q.WorkspaceID + "/webhooks/" + id
	wantError(t, s.do(t, req{Path: base, Header: q.cookie()}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPatch, Path: theirs, Header: q.cookie(), Body: map[string]any{"active": true}}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodDelete, Path: theirs, Header: q.cookie()}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: theirs + "/test", Header: q.cookie()}), http.StatusNotFound, "not_found")

	res = s.do(t, req{Method: http.MethodDelete, Path: base + "/" + id, Header: p.cookie()})
	wantStatus(t, res, http.StatusOK)
	if res.Body["ok"] != true {
		t.Fatalf("delete %s", res.Raw)
	}
	wantError(t, s.do(t, req{Method: http.MethodDelete, Path: base + "/" + id, Header: p.cookie()}), http.StatusNotFound, "not_found")
	res = s.do(t, req{Path: base, Header: p.cookie()})
	if list, _ := res.Body["webhooks"].([]any); res.Status != http.StatusOK || list == nil || len(list) != 0 {
		t.Fatalf("list after delete %s", res.Raw)
	}
}

// TestWorkspaceWebhookPrivateAddress: without SVC_ALLOW_PRIVATE_URLS a
// webhook to a loopback address is accepted (the address is checked at
// connect time), and its test is refused: delivered false, status_code 0.
func TestWorkspaceWebhookPrivateAddress(t *testing.T) {
	t.Parallel()
	rc, _ := newReceiver(t, false)
	s := sharedServer(t)
	p := s.signUpPerson(t, "hooks-private")
	setTier(t, s, p, "team")
	base := "/api/workspaces/" + p.WorkspaceID + "/webhooks"
	res := s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(), Body: map[string]any{"url": rc.srv.URL + "/hook", "events": []any{"step_failed"}}})
	wantStatus(t, res, http.StatusCreated)
	res = s.do(t, req{Method: http.MethodPost, Path: base + "/" + str(t, res.Body, "id") + "/test", Header: p.cookie()})
	wantStatus(t, res, http.StatusOK)
	if res.Body["delivered"] != false || res.Body["status_code"] != json.Number("0") {
		t.Fatalf("test to a loopback address: %s", res.Raw)
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Fatalf("%d deliveries reached a loopback receiver", n)
	}
}
