package dashboard

import (
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"svc/domain/apikey"
	"svc/domain/hook"
)

// The admin pages: API keys (the raw key shown once, revoke), webhooks
// with their delivery log, the audit log and data deletion
// (admin_keys.go, admin_webhooks.go, admin_audit.go, admin_account.go).

// adminRoutes are the API routes the admin pages call.
var adminRoutes = map[string]apikey.Role{
	"workspaces.keys.list": apikey.Member, "workspaces.keys.create": apikey.Admin, "workspaces.keys.revoke": apikey.Admin,
	"workspaces.members.list":  "",
	"workspaces.webhooks.list": apikey.Member, "workspaces.webhooks.create": apikey.Admin,
	"workspaces.webhooks.update": apikey.Admin, "workspaces.webhooks.delete": apikey.Admin,
	"workspaces.webhooks.test": apikey.Admin, "workspaces.webhooks.rotate_secret": apikey.Admin,
	"workspaces.webhooks.deliveries": apikey.Member,
	"rigor.webhooks.deliveries":      apikey.Viewer,
	"workspaces.audit_log":           apikey.Admin,
	"data.delete_requests":           apikey.Owner, "data.delete_request": apikey.Owner, "data.confirm_deletion": apikey.Owner,
}

// adminSentences are the error codes of adminRoutes not in coreSentences
// (the membership codes keys.create shares with the member routes are the
// team pages').
var adminSentences = map[string]string{
	"key_limit_reached": "The workspace has as many API keys as its plan allows. Revoke a key you no longer use, or upgrade the plan.",
	"deletion_already_pending": "A deletion request is already pending. Confirm it from the page that requested it, " +
		"or wait until it expires (one hour after it was made).",
	"deletion_rate_limited": "Your organization has made five deletion requests today, the most a day allows. Try again after midnight UTC.",
	"invalid_deletion_request": "This deletion request can no longer be confirmed: it expired, was already confirmed, " +
		"or the confirmation does not match. Nothing was deleted. Request the deletion again.",
	"deletion_failed": "The deletion stopped part way and is retried automatically. If it does not complete, " +
		"contact support and quote the reference below.",
}

// adminFuncs are the template functions of the admin pages.
var adminFuncs = template.FuncMap{
	"hookEvent":         hookEventLabel,
	"hookDeliveriesURL": hookDeliveriesURL,
	"actorFilter":       actorFilter,
	"hookFields": func(prefix string, hk hookRow) hookFields {
		return hookFields{Prefix: prefix, Hook: hk, Events: hook.Events}
	},
}

// adminPages registers the admin pages.
func (h *Handler) adminPages(m *http.ServeMux) {
	m.HandleFunc("GET /dashboard/keys", h.signedIn(h.keysPage))
	m.HandleFunc("POST /dashboard/keys", h.signedIn(h.createKey))
	m.HandleFunc("GET /dashboard/keys/{key}/revoke", h.signedIn(h.revokeKeyConfirm))
	m.HandleFunc("POST /dashboard/keys/{key}/revoke", h.signedIn(h.revokeKey))
	m.HandleFunc("GET /dashboard/webhooks", h.signedIn(h.webhooksPage))
	m.HandleFunc("POST /dashboard/webhooks", h.signedIn(h.createWebhook))
	m.HandleFunc("GET /dashboard/webhooks/{hook}/{action}", h.signedIn(h.webhookConfirm))
	m.HandleFunc("GET /dashboard/webhooks/{hook}/deliveries", h.signedIn(h.webhookDeliveriesPage))
	m.HandleFunc("POST /dashboard/webhooks/{hook}/{action}", h.signedIn(h.webhookAction))
	m.HandleFunc("GET /dashboard/audit", h.signedIn(h.auditPage))
	m.HandleFunc("GET /dashboard/account", h.signedIn(h.accountPage))
	m.HandleFunc("POST /dashboard/account/delete-request", h.signedIn(h.requestDeletion))
	m.HandleFunc("POST /dashboard/account/confirm-deletion", h.signedIn(h.confirmDeletion))
}

// adminBack sends the browser to page (in the workspace the form names)
// with query (nil for none).
func adminBack(w http.ResponseWriter, r *http.Request, page string, query url.Values) {
	target := page
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	http.Redirect(w, r, wsQuery(target, workspaceParam(r)), http.StatusSeeOther)
}

// people names the actors of a workspace (user:ID, key:ID, or a bare
// id): a member's email or name, a key's label and prefix.
type people map[string]string

// loadPeople reads the workspace's members and, unless the page has them
// (keys), its keys; what the API refuses is left out (the pages then show
// ids).
func (h *Handler) loadPeople(r *http.Request, id Identity, keys []keyRow) people {
	out := people{}
	var ms struct {
		Members []struct {
			ID        string `json:"id"`
			Type      string `json:"type"`
			Email     string `json:"email"`
			Name      string `json:"name"`
			KeyPrefix string `json:"key_prefix"`
		} `json:"members"`
	}
	if decode(h.api.Call(r, "", http.MethodGet, id.api("/members"), nil), &ms) {
		for _, m := range ms.Members {
			switch {
			case m.Type == "user" && m.Email != "":
				out["user:"+m.ID] = m.Email
			case m.Type == "user":
				out["user:"+m.ID] = m.Name
			case m.KeyPrefix != "":
				out["key:"+m.ID] = "key " + m.KeyPrefix + "…"
			}
		}
	}
	if keys == nil && id.may("workspaces.keys.list") {
		keys = h.listKeys(r, id)
	}
	for _, k := range keys {
		name := "key " + k.Prefix + "…"
		if k.Label != "" {
			name = "key “" + k.Label + "” (" + k.Prefix + "…)"
		}
		out["key:"+k.KeyID] = name
	}
	return out
}

// Name is the actor's name: who they are when known, else the actor as
// the API gives it.
func (p people) Name(actor string) string {
	if n, ok := p[actor]; ok && n != "" {
		return n
	}
	return actor
}

// prefixPattern is a key's display prefix (svc_live_ and 6 hex digits).
var prefixPattern = regexp.MustCompile(`^svc_live_[0-9a-f]{6}$`)

// hookEventLabel names a webhook event for people.
func hookEventLabel(e string) string {
	if l, ok := hookEventLabels[e]; ok {
		return l
	}
	return strings.ReplaceAll(e, "_", " ")
}

// hookFields are a webhook form's fields: Prefix makes their ids unique
// on the page.
type hookFields struct {
	Prefix string
	Hook   hookRow
	Events []string
}

// notFoundAs is p with sentence when p is not_found: the core sentence
// names workflows, folders and workspaces, these pages keys and webhooks.
func notFoundAs(p *problem, sentence string) *problem {
	if p != nil && p.Code == "not_found" {
		p.Sentence = sentence
	}
	return p
}
