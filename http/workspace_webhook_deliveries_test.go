package httpapi_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"svc/domain/delivery"
	"svc/eventstore/event"
)

// proWebhook creates a webhook in a Team workspace (budgetWorkspace) and
// returns the key, the workspace, its organization and the webhook's path.
func proWebhook(t *testing.T, f *fixture) (key, wsID, orgID, hookPath string) {
	t.Helper()
	key, wsID = budgetWorkspace(t, f)
	code, body := f.call(t, "GET", "/api/keys/verify", key, nil)
	if code != 200 {
		t.Fatalf("verify: %d %v", code, body)
	}
	orgID = body["org_id"].(string)
	base := "/api/workspaces/" + wsID + "/webhooks"
	code, body = f.call(t, "POST", base, key, map[string]any{"url": "https://127.0.0.1:1/hook", "events": []string{"workflow_completed"}})
	if code != 201 {
		t.Fatalf("create webhook: %d %v", code, body)
	}
	return key, wsID, orgID, base + "/" + body["id"].(string)
}

// scheduleDeliveries appends n deliveries to webhook endpointID of
// workspace wsID (one after the other: each is newer), the first of them
// with one failed attempt, and waits for the read model. It returns their
// ids, oldest first.
func scheduleDeliveries(t *testing.T, f *fixture, orgID, wsID, endpointID string, n int) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	var last event.Position
	for i := range n {
		src := "evt-" + endpointID + "-" + strconv.Itoa(i) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		id := delivery.ID(src, endpointID)
		evs := []event.New{{Data: delivery.Scheduled{DeliveryID: id, OrgID: orgID, WorkflowID: "wr_test" + strconv.Itoa(i), Event: "workflow_completed",
			URL: "https://127.0.0.1:1/hook", WebhookID: "hook-" + endpointID, EndpointID: endpointID, WorkspaceID: wsID, SourceEventID: src,
			Body: "{}", NextAttemptAt: time.Now()}, Metadata: event.Metadata{OrgID: orgID}}}
		if i == 0 {
			code, msg, next := 500, "receiver answered 500", time.Now().Add(time.Hour)
			evs = append(evs, event.New{Data: delivery.Attempted{Attempt: 1, AttemptedAt: time.Now(), StatusCode: &code, Error: &msg,
				NextAttemptAt: &next}, Metadata: event.Metadata{OrgID: orgID}})
		}
		pos, err := store.Append(ctx, delivery.Stream(id), event.NewStream, evs...)
		if err != nil {
			t.Fatal(err)
		}
		ids, last = append(ids, id), pos
		time.Sleep(2 * time.Millisecond) // distinct creation times
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, last, "webhook_deliveries"); err != nil {
		t.Fatal(err)
	}
	return ids
}

// readWebhookDeliveries is TestNoNullLists' read of a webhook's
// deliveries, empty and with one delivery.
func readWebhookDeliveries(t *testing.T, f *fixture) {
	key, wsID, orgID, hook := proWebhook(t, f)
	code, body := f.call(t, "GET", hook+"/deliveries", key, nil)
	if list, ok := body["deliveries"].([]any); code != 200 || !ok || len(list) != 0 || body["next_cursor"] != nil {
		t.Fatalf("no deliveries: %d %v", code, body)
	}
	scheduleDeliveries(t, f, orgID, wsID, hook[len(hook)-36:], 1)
	code, body = f.call(t, "GET", hook+"/deliveries", key, nil)
	if list, ok := body["deliveries"].([]any); code != 200 || !ok || len(list) != 1 {
		t.Fatalf("one delivery: %d %v", code, body)
	}
}

// TestWebhookDeliveriesRoute: a webhook's deliveries, newest first, each
// with its state, attempts, last answer and attempt log, paged by limit
// and next_cursor to the last page (next_cursor null); a bad limit or
// cursor is 400 invalid_body naming it; an unknown webhook, or another
// workspace's, is 404; below Pro it is 403 tier_required.
func TestWebhookDeliveriesRoute(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, wsID, orgID, hook := proWebhook(t, f)
	ids := scheduleDeliveries(t, f, orgID, wsID, hook[len(hook)-36:], 5)

	var seen []string
	path := hook + "/deliveries?limit=2"
	for page := 0; ; page++ {
		code, body := f.call(t, "GET", path, key, nil)
		if code != 200 {
			t.Fatalf("page %d: %d %v", page, code, body)
		}
		for _, raw := range body["deliveries"].([]any) {
			d := raw.(map[string]any)
			seen = append(seen, d["delivery_id"].(string))
			if d["workflow_id"] == nil || d["event_type"] != "workflow_completed" || d["url"] == nil || d["created_at"] == nil || d["log"] == nil {
				t.Fatalf("delivery %v", d)
			}
			if d["delivery_id"] == ids[0] && (d["status"] != "pending" || d["attempts"] != 1.0 || d["last_status_code"] != 500.0 ||
				d["last_error"] != "receiver answered 500" || d["next_attempt_at"] == nil || len(d["log"].([]any)) != 1) {
				t.Fatalf("the attempted delivery: %v", d)
			}
			if d["delivery_id"] != ids[0] && (d["status"] != "pending" || d["attempts"] != 0.0 || d["last_status_code"] != nil) {
				t.Fatalf("a delivery not attempted: %v", d)
			}
		}
		next, _ := body["next_cursor"].(string)
		if next == "" {
			if page != 2 {
				t.Fatalf("last page is page %d, want 2", page)
			}
			break
		}
		path = hook + "/deliveries?limit=2&cursor=" + url.QueryEscape(next)
	}
	if len(seen) != 5 {
		t.Fatalf("paged %d deliveries, want 5: %v", len(seen), seen)
	}
	for i, id := range seen {
		if id != ids[4-i] {
			t.Fatalf("order %v, want newest first of %v", seen, ids)
		}
	}
	if code, body := f.call(t, "GET", hook+"/deliveries", key, nil); code != 200 || len(body["deliveries"].([]any)) != 5 {
		t.Fatalf("default limit: %d %v", code, body)
	}

	for _, q := range []string{"limit=0", "limit=101", "limit=x", "cursor=nope", "cursor=MTIzLng"} {
		code, body := f.call(t, "GET", hook+"/deliveries?"+q, key, nil)
		details, _ := body["error"].(map[string]any)["details"].(map[string]any)
		if code != 400 || errorCode(body) != "invalid_body" || details["field"] == nil {
			t.Errorf("%s: %d %v", q, code, body)
		}
	}
	for _, p := range []string{"/api/workspaces/" + wsID + noWebhook + "/deliveries", "/api/workspaces/" + wsID + "/webhooks/x/deliveries"} {
		if code, body := f.call(t, "GET", p, key, nil); code != 404 || errorCode(body) != "not_found" {
			t.Errorf("%s: %d %v", p, code, body)
		}
	}
	// another workspace's webhook, through the caller's own workspace
	otherKey, _, _, otherHook := proWebhook(t, f)
	if code, body := f.call(t, "GET", "/api/workspaces/"+wsID+"/webhooks/"+otherHook[len(otherHook)-36:]+"/deliveries", key, nil); code != 404 ||
		errorCode(body) != "not_found" {
		t.Errorf("another workspace's webhook: %d %v", code, body)
	}
	if code, body := f.call(t, "GET", otherHook+"/deliveries", otherKey, nil); code != 200 || len(body["deliveries"].([]any)) != 0 {
		t.Errorf("the other webhook's own, empty: %d %v", code, body)
	}
	// a deleted webhook's deliveries are gone with it
	if code, body := f.call(t, "DELETE", hook, key, nil); code != 200 {
		t.Fatalf("delete: %d %v", code, body)
	}
	if code, body := f.call(t, "GET", hook+"/deliveries", key, nil); code != 404 {
		t.Errorf("deleted webhook: %d %v", code, body)
	}

	// below Pro
	free, _ := keyWithRole(t, "owner")
	waitKey(t, f, free)
	_, me := f.call(t, "GET", "/api/workspaces", free, nil)
	freeWS := me["workspaces"].([]any)[0].(map[string]any)["id"].(string)
	if code, body := f.call(t, "GET", "/api/workspaces/"+freeWS+noWebhook+"/deliveries", free, nil); code != 403 || errorCode(body) != "tier_required" {
		t.Errorf("free tier: %d %v", code, body)
	}
}
