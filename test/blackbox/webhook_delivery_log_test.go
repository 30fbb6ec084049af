package blackbox

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// hookLogServer is a server whose workspace webhook receiver answers 500
// to each delivery's first attempt and 204 to the next, an owner on the
// Pro plan with a member and a viewer key, and two webhooks: one of
// steps and completions (hook), one of failures (quiet).
type hookLogServer struct {
	s                   *server
	owner               person
	member, viewer      string
	hook, quiet         string
	hookURL, workflowID string
	steps               int
	receiverURL         string
}

// newHookLogServer starts it and runs one workflow to completion, whose
// events the hook receives.
func newHookLogServer(t *testing.T, tag string) *hookLogServer {
	t.Helper()
	rc, ca := newHookReceiver(t, func(_ *http.Request, n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	h := &hookLogServer{s: startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": ca,
		"SVC_WEBHOOK_BACKOFF_SCALE": "0.01"}), receiverURL: rc.srv.URL}
	s := h.s
	h.owner = s.signUpPerson(t, tag)
	setTier(t, s, h.owner, "pro")
	if r := cli(t, s.dbURL, "credits", "grant", "--org", h.owner.OrgID, "--credits", "20000", "--reason", "a run"); r.Code != 0 {
		t.Fatalf("svc credits grant: %s", r)
	}
	base := "/api/workspaces/" + h.owner.WorkspaceID + "/webhooks"
	res := s.do(t, req{Method: http.MethodPost, Path: base, Header: h.owner.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/log", "events": []any{"step_completed", "workflow_completed"}}})
	wantStatus(t, res, http.StatusCreated)
	h.hook, h.hookURL = str(t, res.Body, "id"), rc.srv.URL+"/log"
	res = s.do(t, req{Method: http.MethodPost, Path: base, Header: h.owner.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/quiet", "events": []any{"workflow_failed"}}})
	wantStatus(t, res, http.StatusCreated)
	h.quiet = str(t, res.Body, "id")
	h.member = s.keyWithRole(t, h.owner, h.owner.WorkspaceID, "member")
	h.viewer = s.keyWithRole(t, h.owner, h.owner.WorkspaceID, "viewer")

	id, wf := runWorkflow(t, s, h.member, tag)
	if wf["status"] != "completed" {
		t.Fatalf("workflow %s: %v", id, wf["status"])
	}
	h.workflowID, h.steps = id, len(wf["completed_step_summaries"].([]any))
	want := h.steps + 1
	s.poll(t, req{Path: base + "/" + h.hook + "/deliveries?limit=100", Key: h.member}, 60*time.Second, func(res *response) bool {
		list, _ := res.Body["deliveries"].([]any)
		if res.Status != http.StatusOK || len(list) != want {
			return false
		}
		for _, d := range list {
			if d.(map[string]any)["status"] != "delivered" {
				return false
			}
		}
		return true
	}, func(res *response) string { return "the deliveries were never all delivered: " + string(res.Raw) })
	return h
}

// TestWebhookDeliveryLogRoute: GET .../webhooks/{webhook_id}/deliveries
// lists a webhook's deliveries newest first, each with its state, the
// workflow whose event it carried, its attempts (a 500, then 204) and
// their log; limit and next_cursor page through all of them exactly once;
// a webhook of other events has none ([]); a viewer is refused, a member
// reads it; an unknown webhook or another workspace's is 404 not_found; a
// bad limit or cursor is 400 invalid_body.
func TestWebhookDeliveryLogRoute(t *testing.T) {
	t.Parallel()
	h := newHookLogServer(t, "delivery-log")
	s := h.s
	base := "/api/workspaces/" + h.owner.WorkspaceID + "/webhooks/"
	all := s.do(t, req{Path: base + h.hook + "/deliveries?limit=100", Key: h.member})
	wantStatus(t, all, http.StatusOK)
	list := all.Body["deliveries"].([]any)
	if all.Body["next_cursor"] != nil || len(list) != h.steps+1 {
		t.Fatalf("all deliveries: %s", all.Raw)
	}
	var prev time.Time
	types := map[string]int{}
	for i, raw := range list {
		d := raw.(map[string]any)
		created, err := time.Parse(time.RFC3339Nano, str(t, d, "created_at"))
		if err != nil || (i > 0 && created.After(prev)) {
			t.Fatalf("not newest first at %d: %s", i, all.Raw)
		}
		prev = created
		types[str(t, d, "event_type")]++
		log, _ := d["log"].([]any)
		first, _ := log[0].(map[string]any)
		if d["workflow_id"] != h.workflowID || d["url"] != h.hookURL || d["status"] != "delivered" || d["attempts"] != json.Number("2") ||
			d["last_status_code"] != json.Number("204") || d["last_error"] != nil || d["delivered_at"] == nil || len(log) != 2 ||
			first["status_code"] != json.Number("500") {
			t.Fatalf("delivery %d: %v", i, d)
		}
	}
	if types["step_completed"] != h.steps || types["workflow_completed"] != 1 {
		t.Fatalf("event types %v", types)
	}

	// pages of 2 give each delivery once, in the same order
	var paged []any
	path := base + h.hook + "/deliveries?limit=2"
	for range len(list) + 1 {
		res := s.do(t, req{Path: path, Header: h.owner.cookie()})
		wantStatus(t, res, http.StatusOK)
		paged = append(paged, res.Body["deliveries"].([]any)...)
		next, _ := res.Body["next_cursor"].(string)
		if next == "" {
			break
		}
		path = base + h.hook + "/deliveries?limit=2&cursor=" + url.QueryEscape(next)
	}
	if len(paged) != len(list) {
		t.Fatalf("paged %d deliveries, want %d", len(paged), len(list))
	}
	for i := range paged {
		if paged[i].(map[string]any)["delivery_id"] != list[i].(map[string]any)["delivery_id"] {
			t.Fatalf("page order differs at %d", i)
		}
	}
	// the default page is 20
	if res := s.do(t, req{Path: base + h.hook + "/deliveries", Key: h.member}); len(res.Body["deliveries"].([]any)) != min(20, len(list)) {
		t.Fatalf("default limit: %s", res.Raw)
	}

	quiet := s.do(t, req{Path: base + h.quiet + "/deliveries", Key: h.member})
	wantStatus(t, quiet, http.StatusOK)
	if l, ok := quiet.Body["deliveries"].([]any); !ok || len(l) != 0 || quiet.Body["next_cursor"] != nil {
		t.Fatalf("a webhook of other events: %s", quiet.Raw)
	}
	wantError(t, s.do(t, req{Path: base + h.hook + "/deliveries", Key: h.viewer}), http.StatusForbidden, "forbidden")
	wantError(t, s.do(t, req{Path: base + "00000000-0000-4000-8000-000000000000/deliveries", Key: h.member}), http.StatusNotFound, "not_found")
	for _, q := range []string{"limit=0", "limit=101", "limit=ten", "cursor=not-a-cursor"} {
		wantError(t, s.do(t, req{Path: base + h.hook + "/deliveries?" + q, Key: h.member}), http.StatusBadRequest, "invalid_body")
	}

	// another organization's webhook, through this workspace, and the reverse
	stranger := s.signUpPerson(t, "delivery-log-stranger")
	setTier(t, s, stranger, "pro")
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + stranger.WorkspaceID + "/webhooks", Header: stranger.cookie(),
		Body: map[string]any{"url": h.receiverURL + "/stranger", "events": []any{"timed_out"}}})
	wantStatus(t, res, http.StatusCreated)
	wantError(t, s.do(t, req{Path: base + str(t, res.Body, "id") + "/deliveries", Key: h.member}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Path: "/api/workspaces/" + stranger.WorkspaceID + "/webhooks/" + h.hook + "/deliveries", Header: stranger.cookie()}),
		http.StatusNotFound, "not_found")
}
