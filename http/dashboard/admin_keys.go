package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"svc/domain/apikey"
)

// The API keys page: GET /api/workspaces/{id}/api-keys (member), a new
// key (POST, admin: label and role; the raw key is on the answer page
// only, never in a URL, never again), and revoking one (DELETE, admin)
// after a confirmation page.

// keyRow is an API key as the workspace lists it (never the key itself).
type keyRow struct {
	KeyID      string     `json:"key_id"`
	Prefix     string     `json:"prefix"`
	Label      string     `json:"label"`
	Role       string     `json:"role"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	CreatedBy  string     `json:"created_by"`
}

// keyCreated is the answer of POST .../api-keys: the raw key, this once.
type keyCreated struct {
	KeyID     string    `json:"key_id"`
	Key       string    `json:"key"`
	Prefix    string    `json:"prefix"`
	Label     string    `json:"label"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// keysView is the keys page's data.
type keysView struct {
	Keys      []keyRow
	People    people
	CanCreate bool
	CanRevoke bool
	// Roles are the roles a new key may have: up to the caller's.
	Roles []option
	// Label and Role are the form's values shown back after a refusal.
	Label, Role string
	// Revoked is the prefix of the key just revoked.
	Revoked string
}

// keyRoles are the roles of keys, lowest first.
var keyRoles = []option{{"viewer", "Viewer"}, {"member", "Member"}, {"admin", "Admin"}, {"owner", "Owner"}}

// rolesUpTo are the key roles role reaches.
func rolesUpTo(role apikey.Role) []option {
	var out []option
	for _, o := range keyRoles {
		if role.AtLeast(apikey.Role(o.Value)) {
			out = append(out, o)
		}
	}
	return out
}

// noSuchKey is not_found on the keys pages.
const noSuchKey = "This API key does not exist in this workspace: it may have been revoked already."

const keysRefusal = "API keys are shown to the members, admins and owners of a workspace; your role here does not include them."

// listKeys is the workspace's keys (nil when the API refuses them).
func (h *Handler) listKeys(r *http.Request, id Identity) []keyRow {
	var out struct {
		APIKeys []keyRow `json:"api_keys"`
	}
	decode(h.api.Call(r, "", http.MethodGet, id.api("/api-keys"), nil), &out)
	return out.APIKeys
}

// keysPage is GET /dashboard/keys.
func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, id Identity) {
	kv := &keysView{Role: "member"}
	if p := r.URL.Query().Get("revoked"); prefixPattern.MatchString(p) {
		kv.Revoked = p
	}
	h.renderKeys(w, r, id, kv, nil)
}

// renderKeys shows the keys page with kv's form values and p (nil: none),
// answering p's status.
func (h *Handler) renderKeys(w http.ResponseWriter, r *http.Request, id Identity, kv *keysView, p *problem) {
	me := h.loadChrome(r, id)
	if !id.may("workspaces.keys.list") {
		h.errorPage(w, r, me, http.StatusForbidden, keysRefusal)
		return
	}
	rep := h.api.Call(r, "", http.MethodGet, id.api("/api-keys"), nil)
	if q, bad := failed(rep); bad {
		h.problemPage(w, r, me, q)
		return
	}
	var out struct {
		APIKeys []keyRow `json:"api_keys"`
	}
	if !decode(rep, &out) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	kv.Keys, kv.People = out.APIKeys, h.loadPeople(r, id, out.APIKeys)
	kv.CanCreate, kv.CanRevoke = id.may("workspaces.keys.create"), id.may("workspaces.keys.revoke")
	kv.Roles = rolesUpTo(id.Role)
	status := http.StatusOK
	if p != nil {
		status = p.Status
	}
	h.render(w, r, status, "admin_keys", view{Title: "API keys", Me: me, Problem: p, Data: kv})
}

// createKey is POST /dashboard/keys: POST .../api-keys with the form's
// label and role; the answer page shows the raw key, this once.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, id Identity) {
	label, role := strings.TrimSpace(r.PostFormValue("label")), r.PostFormValue("role")
	body := map[string]any{}
	if label != "" {
		body["label"] = label
	}
	if role != "" {
		body["role"] = role
	}
	rep := h.api.Call(r, "", http.MethodPost, id.api("/api-keys"), body)
	if p, bad := failed(rep); bad {
		h.renderKeys(w, r, id, &keysView{Label: label, Role: role}, p)
		return
	}
	var k keyCreated
	me := h.loadChrome(r, id)
	if !decode(rep, &k) || k.Key == "" {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	h.render(w, r, http.StatusCreated, "admin_key_created", view{Title: "Your new API key", Me: me, Data: k})
}

// revokeKeyConfirm is GET /dashboard/keys/{key}/revoke: what revoking
// the key does, and the button that does it.
func (h *Handler) revokeKeyConfirm(w http.ResponseWriter, r *http.Request, id Identity) {
	me := h.loadChrome(r, id)
	if !id.may("workspaces.keys.revoke") {
		h.errorPage(w, r, me, http.StatusForbidden, "Only the admins and owners of a workspace may revoke its API keys.")
		return
	}
	keys := h.listKeys(r, id)
	i := slices.IndexFunc(keys, func(k keyRow) bool { return k.KeyID == r.PathValue("key") })
	if i < 0 {
		h.errorPage(w, r, me, http.StatusNotFound, noSuchKey)
		return
	}
	h.render(w, r, http.StatusOK, "admin_key_revoke", view{Title: "Revoke an API key", Me: me,
		Data: struct {
			Key    keyRow
			People people
		}{keys[i], h.loadPeople(r, id, keys)}})
}

// revokeKey is POST /dashboard/keys/{key}/revoke: DELETE
// .../api-keys/{key}, then the keys, saying which key was revoked.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, "", http.MethodDelete, id.api("/api-keys/"+url.PathEscape(r.PathValue("key"))), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), notFoundAs(p, noSuchKey))
		return
	}
	q := url.Values{}
	if p := r.PostFormValue("prefix"); prefixPattern.MatchString(p) {
		q.Set("revoked", p)
	}
	adminBack(w, r, "/dashboard/keys", q)
}
