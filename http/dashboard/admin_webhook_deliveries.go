package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The deliveries of a workspace webhook (GET
// /api/workspaces/{id}/webhooks/{webhook_id}/deliveries, member): the
// webhooks page shows each webhook's latest few, and a page of its own
// pages through them all, newest first.

// Page sizes of a webhook's deliveries.
const (
	hookRecent    = 5  // on the webhooks page, per webhook
	hookPageLimit = 20 // on a webhook's delivery page
)

// hookDeliveries is a page of a webhook's deliveries as the route answers.
type hookDeliveries struct {
	Deliveries []deliveryRow `json:"deliveries"`
	NextCursor *string       `json:"next_cursor"`
}

// hookDeliveriesPath is the route's path for webhook hookID of id's
// workspace, limit and cursor ("" for the newest).
func hookDeliveriesPath(id Identity, hookID string, limit int, cursor string) string {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return id.api("/webhooks/" + url.PathEscape(hookID) + "/deliveries?" + q.Encode())
}

// hookDeliveriesURL is the delivery page of webhook hookID from cursor
// ("": the newest) in workspace ws ("": the default).
func hookDeliveriesURL(hookID, cursor, ws string) string {
	q := url.Values{}
	if ws != "" {
		q.Set("ws", ws)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	u := "/dashboard/webhooks/" + url.PathEscape(hookID) + "/deliveries"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// recentDeliveries reads hk's latest deliveries into it; a refusal is
// kept beside them.
func (h *Handler) recentDeliveries(r *http.Request, id Identity, hk *hookRow) {
	rep := h.api.Call(r, "", http.MethodGet, hookDeliveriesPath(id, hk.ID, hookRecent, ""), nil)
	var out hookDeliveries
	if p, bad := failed(rep); bad {
		hk.RecentProblem = notFoundAs(p, noSuchHook)
		return
	}
	if !decode(rep, &out) {
		hk.RecentProblem = &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}
		return
	}
	hk.Recent = out.Deliveries
	if out.NextCursor != nil {
		hk.Older = *out.NextCursor
	}
}

// hookDeliveriesView is a webhook's delivery page.
type hookDeliveriesView struct {
	Hook       hookRow
	Deliveries []deliveryRow
	// Cursor is the page's own cursor ("": the newest), Next the older
	// page's ("" on the last).
	Cursor, Next string
}

// webhookDeliveriesPage is GET /dashboard/webhooks/{hook}/deliveries
// (cursor: next_cursor of the page before): a page of the webhook's
// deliveries, newest first, each with every attempt.
func (h *Handler) webhookDeliveriesPage(w http.ResponseWriter, r *http.Request, id Identity) {
	me := h.loadChrome(r, id)
	if !id.may("workspaces.webhooks.deliveries") {
		h.errorPage(w, r, me, http.StatusForbidden, "Webhook deliveries are shown to the members, admins and owners of a workspace; your role here does not include them.")
		return
	}
	hookID := r.PathValue("hook")
	cursor := strings.TrimSpace(r.URL.Query().Get("cursor"))
	rep := h.api.Call(r, "", http.MethodGet, hookDeliveriesPath(id, hookID, hookPageLimit, cursor), nil)
	var out hookDeliveries
	if p, bad := failed(rep); bad {
		if p.Code == "invalid_body" && p.Field == "cursor" {
			p.Sentence, p.Detail, p.Field = "This page of deliveries no longer exists. Start again from the newest deliveries.", "", ""
		}
		if p.Code == "tier_required" {
			p.Sentence, p.Detail = "Workspace webhooks need the Pro plan or above.", ""
		}
		h.problemPage(w, r, me, notFoundAs(p, noSuchHook))
		return
	}
	if !decode(rep, &out) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	hk, _ := h.hookOf(r, id, hookID)
	if hk.ID == "" {
		hk.ID = hookID
	}
	v := &hookDeliveriesView{Hook: hk, Deliveries: out.Deliveries, Cursor: cursor}
	if out.NextCursor != nil {
		v.Next = *out.NextCursor
	}
	h.render(w, r, http.StatusOK, "admin_webhook_deliveries", view{Title: "Webhook deliveries", Me: me, Data: v})
}
