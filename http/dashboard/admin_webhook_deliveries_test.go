package dashboard

import (
	"net/http"
	"testing"

	"svc/domain/apikey"
)

// hookDeliveriesReply is a page of h1's deliveries: one failed, one
// pending with its next try, one delivered; next_cursor as given.
func hookDeliveriesReply(next string) Reply {
	cursor := "null"
	if next != "" {
		cursor = `"` + next + `"`
	}
	return ok(`{"deliveries":[
		{"delivery_id":"dlv_3","workflow_id":"wr_3","event_type":"workflow_failed","url":"https://example.com/hook","status":"failed","attempts":1,
		 "last_status_code":410,"last_error":"receiver answered 410","next_attempt_at":null,"created_at":"2026-11-25T10:03:00Z","delivered_at":null,
		 "log":[{"attempt":1,"attempted_at":"2026-11-25T10:03:00Z","status_code":410,"error":"receiver answered 410","delivered":false,"duration_ms":7}]},
		{"delivery_id":"dlv_2","workflow_id":"wr_2","event_type":"step_completed","url":"https://example.com/hook","status":"pending","attempts":1,
		 "last_status_code":null,"last_error":"connection refused","next_attempt_at":"2026-11-25T10:05:00Z","created_at":"2026-11-25T10:02:00Z",
		 "delivered_at":null,"log":[]},
		{"delivery_id":"dlv_1","workflow_id":"wr_1","event_type":"workflow_completed","url":"https://example.com/hook","status":"delivered","attempts":1,
		 "last_status_code":204,"last_error":null,"next_attempt_at":null,"created_at":"2026-11-25T10:01:00Z","delivered_at":"2026-11-25T10:01:01Z","log":[]}],
		"next_cursor":` + cursor + `}`)
}

// TestWebhookDeliveriesPages: the webhooks page shows each webhook's
// latest deliveries (state, attempts, last answer or error, time, the
// run) with a link to older ones; a webhook's delivery page pages through
// them by cursor; an unknown webhook, a stale cursor and a plan without
// webhooks read as their sentences; a viewer is refused.
func TestWebhookDeliveriesPages(t *testing.T) {
	f := adminFake(apikey.Member)
	f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = hookDeliveriesReply("c5")
	body := serve(t, f, "GET", "/dashboard/webhooks", nil).Body.String()
	adminCheck(t, "recent deliveries", body, []string{"Recent deliveries", "A workflow failed", "HTTP 410", "receiver answered 410",
		"connection refused", "next try", "given up", "s-delivered", `href="/dashboard/workflows/wr_3"`,
		`href="/dashboard/webhooks/h1/deliveries?cursor=c5"`, "Older deliveries"}, nil)
	if !adminCalled(f, "GET /api/workspaces/w/webhooks/h1/deliveries?limit=5") {
		t.Errorf("the page did not read 5 recent deliveries: %v", f.calls)
	}
	f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = ok(`{"deliveries":[],"next_cursor":null}`)
	adminCheck(t, "no deliveries", serve(t, f, "GET", "/dashboard/webhooks", nil).Body.String(), []string{"No delivery yet"}, []string{"Older deliveries"})

	// the delivery page, from a cursor, in a workspace named in the URL
	f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = hookDeliveriesReply("c9")
	w := serve(t, f, "GET", "/dashboard/webhooks/h1/deliveries?cursor=c5", nil)
	adminCheck(t, "a page of deliveries", w.Body.String(), []string{"Deliveries to", "https://example.com/hook", "dlv_2", "Each attempt",
		`href="/dashboard/webhooks/h1/deliveries"`, "Newest deliveries", `href="/dashboard/webhooks/h1/deliveries?cursor=c9"`}, nil)
	if w.Code != 200 || !adminCalled(f, "GET /api/workspaces/w/webhooks/h1/deliveries?cursor=c5&limit=20") {
		t.Errorf("delivery page: %d %v", w.Code, f.calls)
	}
	f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = ok(`{"deliveries":[],"next_cursor":null}`)
	adminCheck(t, "past the last page", serve(t, f, "GET", "/dashboard/webhooks/h1/deliveries?cursor=c9", nil).Body.String(),
		[]string{"No older delivery."}, []string{"Older deliveries"})

	for _, tc := range []struct {
		reply  Reply
		status int
		want   string
	}{
		{Reply{Status: 404, Body: []byte(`{"error":{"code":"not_found"}}`)}, 404, noSuchHook},
		{Reply{Status: 400, Body: []byte(`{"error":{"code":"invalid_body","message":"Field cursor is invalid","details":{"field":"cursor"}}}`)}, 400,
			"This page of deliveries no longer exists."},
		{Reply{Status: 403, Body: []byte(`{"error":{"code":"tier_required","message":"x"}}`)}, 403, "Workspace webhooks need the Pro plan or above."},
	} {
		f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = tc.reply
		w := serve(t, f, "GET", "/dashboard/webhooks/h1/deliveries?cursor=zz", nil)
		if w.Code != tc.status {
			t.Errorf("refusal %s: %d", tc.want, w.Code)
		}
		adminCheck(t, "refusal", w.Body.String(), []string{teamHTML(tc.want)}, nil)
	}
	// a webhook the recent read cannot find says so in its place
	f.replies["GET /api/workspaces/w/webhooks/h1/deliveries"] = Reply{Status: 404, Body: []byte(`{"error":{"code":"not_found"}}`)}
	adminCheck(t, "recent refused", serve(t, f, "GET", "/dashboard/webhooks", nil).Body.String(), []string{teamHTML(noSuchHook)}, nil)

	if w := serve(t, adminFake(apikey.Viewer), "GET", "/dashboard/webhooks/h1/deliveries", nil); w.Code != http.StatusForbidden {
		t.Errorf("a viewer's delivery page: %d", w.Code)
	}
}
