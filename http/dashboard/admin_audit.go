package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"time"
)

// The audit log page: GET /api/workspaces/{id}/audit-log (admin), newest
// first, with the route's filters (action, actor, resource_type), its
// page size (limit) and its cursor paging (next_cursor).

// auditRow is an audit event as spec B shows it.
type auditRow struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Actor  struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"actor"`
	ResourceType string          `json:"resource_type"`
	ResourceID   string          `json:"resource_id"`
	Metadata     json.RawMessage `json:"metadata"`
	CreatedAt    time.Time       `json:"created_at"`
}

// ActorKey is the actor as people names it (user:ID, key:ID).
func (a auditRow) ActorKey() string {
	if a.Actor.Type == "user" || a.Actor.Type == "key" {
		return a.Actor.Type + ":" + a.Actor.ID
	}
	return a.Actor.Type
}

// Details are the event's metadata as sorted "name: value" pairs.
func (a auditRow) Details() []option {
	var m map[string]any
	if json.Unmarshal(a.Metadata, &m) != nil {
		return nil
	}
	out := make([]option, 0, len(m))
	for k, v := range m {
		val := "none"
		switch x := v.(type) {
		case nil:
		case string:
			val = x
		default:
			raw, _ := json.Marshal(x)
			val = string(raw)
		}
		out = append(out, option{Value: k, Label: val})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

// auditView is the audit page's data.
type auditView struct {
	Action, Actor, ResourceType, Limit string
	Actions, ResourceTypes, Limits     []option
	Events                             []auditRow
	People                             people
	// Next is the next (older) page's URL, "" on the last; First the
	// first page's, "" on it.
	Next, First string
}

// auditActions and auditResourceTypes are the values the route's action
// and resource_type filters take (the API lists them as details.allowed
// when refusing another; a black-box test holds these lists to it).
var (
	auditActions = []string{"api_key.created", "api_key.revoked", "connection.created", "connection.revoked", "connection.updated",
		"credits.granted", "folder.created", "folder.deleted", "folder.renamed", "invite.accepted", "invite.created", "invite.revoked",
		"mcp_connection.authorized", "member.added", "member.removed", "member.role_changed", "organization.created",
		"organization.email_verified", "organization.tier_changed", "workspace.archived", "workspace.budget_updated",
		"workspace.created", "workspace.llm_policy_updated", "workspace.renamed", "workspace.restored"}
	auditResourceTypes = []string{"api_key", "connection", "folder", "invite", "mcp_connection", "member", "organization", "workspace"}
)

// auditLimits are the page sizes offered (the route takes 1-100).
var auditLimits = []option{{"25", "25"}, {"50", "50"}, {"100", "100"}}

// options is a filter's list: "any" first, then values.
func options(anyLabel string, values []string) []option {
	out := []option{{"", anyLabel}}
	sorted := slices.Clone(values)
	sort.Strings(sorted)
	for _, v := range sorted {
		out = append(out, option{v, v})
	}
	return out
}

// auditPage is GET /dashboard/audit.
func (h *Handler) auditPage(w http.ResponseWriter, r *http.Request, id Identity) {
	me := h.loadChrome(r, id)
	if !id.may("workspaces.audit_log") {
		h.errorPage(w, r, me, http.StatusForbidden, "The audit log is shown to the admins and owners of a workspace; your role here does not include it.")
		return
	}
	q := r.URL.Query()
	av := &auditView{Action: q.Get("action"), Actor: q.Get("actor"), ResourceType: q.Get("resource_type"), Limit: q.Get("limit"),
		Actions: options("Any action", auditActions), ResourceTypes: options("Any resource", auditResourceTypes),
		Limits: auditLimits}
	if av.Limit == "" {
		av.Limit = "50"
	}
	query := url.Values{"limit": {av.Limit}}
	for k, v := range map[string]string{"action": av.Action, "actor": av.Actor, "resource_type": av.ResourceType, "cursor": q.Get("cursor")} {
		if v != "" {
			query.Set(k, v)
		}
	}
	v := view{Title: "Audit log", Me: me, Data: av}
	rep := h.api.Call(r, "", http.MethodGet, id.api("/audit-log?"+query.Encode()), nil)
	if p, bad := failed(rep); bad {
		v.Problem = p
		h.render(w, r, p.Status, "admin_audit", v)
		return
	}
	var page struct {
		Events     []auditRow `json:"events"`
		NextCursor *string    `json:"next_cursor"`
	}
	if !decode(rep, &page) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	av.Events, av.People = page.Events, h.loadPeople(r, id, nil)
	if c := page.NextCursor; c != nil && *c != "" {
		next := r.URL.Query()
		next.Set("cursor", *c)
		av.Next = "/dashboard/audit?" + next.Encode()
	}
	if q.Get("cursor") != "" {
		first := r.URL.Query()
		first.Del("cursor")
		av.First = "/dashboard/audit?" + first.Encode()
	}
	h.render(w, r, http.StatusOK, "admin_audit", v)
}

// actorFilter is the audit page's URL filtered by actor (an actor's id).
func actorFilter(actorID, ws string) string {
	return wsQuery(fmt.Sprintf("/dashboard/audit?actor=%s", url.QueryEscape(actorID)), ws)
}
