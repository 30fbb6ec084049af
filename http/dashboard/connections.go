package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The connections page: the organization's external context servers
// (spec A, Connection endpoints), adding a self-hosted one, testing,
// relabelling and removing them, connecting a registry provider through
// its OAuth flow (POST /api/auth/mcp/initiate), and where that flow
// returns (provider, status connected or error, reason).

// conn is a connection as spec A lists it.
type conn struct {
	ID           string     `json:"id"`
	Label        string     `json:"label"`
	DisplayName  string     `json:"display_name"`
	Provider     string     `json:"provider"`
	Scope        string     `json:"scope"`
	ServerURL    string     `json:"server_url"`
	AuthType     string     `json:"auth_type"`
	Status       string     `json:"status"`
	LastTestedAt *time.Time `json:"last_tested_at"`
}

// provider is a registry entry: connectable, or coming soon.
type provider struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AuthType    string `json:"auth_type"`
	Category    string `json:"category"`
}

type connectionsPage struct {
	Provider, Status, Reason string // an OAuth flow's return
	Connections              []conn
	Removed                  int
	Available, ComingSoon    []provider
	Form                     connForm
	Tested                   *testResult
}

// connForm is the add form as it was sent (shown back on a refusal).
type connForm struct {
	DisplayName, Scope, ServerURL, AuthType, Transport, Header string
}

type testResult struct {
	Label, Message string
	OK             bool
}

// connections is GET /dashboard/connections.
func (h *Handler) connections(w http.ResponseWriter, r *http.Request, id Identity) {
	q := r.URL.Query()
	d := connectionsPage{Provider: q.Get("provider"), Status: q.Get("status"), Reason: q.Get("reason"),
		Form: connForm{Scope: "workspace", AuthType: "bearer_token", Transport: "streamable-http"}}
	v := view{Title: "Connections", Me: h.loadChrome(r, id)}
	switch {
	case q.Get("added") != "":
		v.Notice = "The connection is added. Test it to check the service can reach it."
	case q.Get("removed") != "":
		v.Notice = "The connection is removed; its credentials are erased."
	case q.Get("saved") != "":
		v.Notice = "The connection is saved."
	}
	h.showConnections(w, r, v, &d)
}

// showConnections renders the page with the API's list, and v.Problem
// (a refusal of the form) when set.
func (h *Handler) showConnections(w http.ResponseWriter, r *http.Request, v view, d *connectionsPage) {
	var list struct {
		Connections []conn     `json:"connections"`
		Available   []provider `json:"available_providers"`
		ComingSoon  []provider `json:"coming_soon_providers"`
	}
	rep := h.api.Call(r, workspaceParam(r), http.MethodGet, "/api/rigor/connections", nil)
	if p, bad := failed(rep); bad && v.Problem == nil {
		v.Problem = p
	}
	decode(rep, &list)
	for _, c := range list.Connections {
		if c.Status == "revoked" {
			d.Removed++
			continue
		}
		d.Connections = append(d.Connections, c)
	}
	d.Available, d.ComingSoon = list.Available, list.ComingSoon
	v.Data = d
	status := http.StatusOK
	if v.Problem != nil {
		status = v.Problem.Status
	}
	h.render(w, r, status, "connections", v)
}

// addConnection is POST /dashboard/connections (admin): a self-hosted
// context server.
func (h *Handler) addConnection(w http.ResponseWriter, r *http.Request, id Identity) {
	f := connForm{DisplayName: strings.TrimSpace(r.PostFormValue("display_name")), Scope: r.PostFormValue("scope"),
		ServerURL: strings.TrimSpace(r.PostFormValue("server_url")), AuthType: r.PostFormValue("auth_type"),
		Transport: r.PostFormValue("transport"), Header: strings.TrimSpace(r.PostFormValue("header"))}
	body := map[string]any{"display_name": f.DisplayName, "scope": f.Scope, "server_url": f.ServerURL,
		"auth_type": f.AuthType, "transport": f.Transport}
	if f.Scope == "workspace" {
		body["workspace_id"] = id.WorkspaceID
	}
	if cred := credentialOf(r, f.AuthType, f.Header); cred != nil {
		body["auth_credential"] = cred
	}
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/rigor/connections", body)
	if p, bad := failed(rep); bad {
		h.showConnections(w, r, view{Title: "Connections", Me: h.loadChrome(r, id), Problem: p}, &connectionsPage{Form: f})
		return
	}
	h.backToConnections(w, r, "added=1")
}

// credentialOf is the auth_credential of a form's secret for auth type
// typ: nil when none was typed (the API says which field is missing).
func credentialOf(r *http.Request, typ, header string) map[string]string {
	secret := r.PostFormValue("secret")
	if secret == "" {
		return nil
	}
	switch typ {
	case "api_key":
		c := map[string]string{"key": secret}
		if header != "" {
			c["header"] = header
		}
		return c
	case "oauth":
		return map[string]string{"access_token": secret}
	}
	return map[string]string{"token": secret}
}

// connectionAction is POST /dashboard/connections/{id}/{action}: test
// (member), save (label or credential; admin) or remove (admin).
func (h *Handler) connectionAction(w http.ResponseWriter, r *http.Request, id Identity) {
	cid, ws := url.PathEscape(r.PathValue("id")), workspaceParam(r)
	var rep Reply
	switch r.PathValue("action") {
	case "test":
		rep = h.api.Call(r, ws, http.MethodPost, "/api/rigor/connections/"+cid+"/test", nil)
		h.testedConnection(w, r, id, rep)
		return
	case "save":
		body := map[string]any{}
		if l := strings.TrimSpace(r.PostFormValue("label")); l != "" {
			body["label"] = l
		}
		if cred := credentialOf(r, r.PostFormValue("auth_type"), strings.TrimSpace(r.PostFormValue("header"))); cred != nil {
			body["auth_credential"] = cred
		}
		rep = h.api.Call(r, ws, http.MethodPatch, "/api/rigor/connections/"+cid, body)
	case "remove":
		rep = h.api.Call(r, ws, http.MethodDelete, "/api/rigor/connections/"+cid, nil)
	default:
		h.errorPage(w, r, h.loadChrome(r, id), http.StatusNotFound, "There is no such page.")
		return
	}
	if p, bad := failed(rep); bad {
		h.showConnections(w, r, view{Title: "Connections", Me: h.loadChrome(r, id), Problem: p}, &connectionsPage{Form: connForm{Scope: "workspace", AuthType: "bearer_token"}})
		return
	}
	if r.PathValue("action") == "remove" {
		h.backToConnections(w, r, "removed=1")
		return
	}
	h.backToConnections(w, r, "saved=1")
}

// testedConnection shows the page with a test's outcome: the API answers
// a failed check as 400 {error}, which is the test's result, not a
// refusal of the page.
func (h *Handler) testedConnection(w http.ResponseWriter, r *http.Request, id Identity, rep Reply) {
	var res struct {
		Message string `json:"message"`
	}
	var failure struct {
		Error string `json:"error"` // a failed check: a sentence, not spec A's envelope
	}
	label := r.PostFormValue("label")
	d := &connectionsPage{Form: connForm{Scope: "workspace", AuthType: "bearer_token", Transport: "streamable-http"}}
	v := view{Title: "Connections", Me: h.loadChrome(r, id)}
	switch p, bad := failed(rep); {
	case !bad:
		decode(rep, &res)
		d.Tested = &testResult{Label: label, OK: true, Message: res.Message}
	case rep.Status == http.StatusBadRequest && json.Unmarshal(rep.Body, &failure) == nil && failure.Error != "":
		d.Tested = &testResult{Label: label, Message: failure.Error}
	default:
		v.Problem = p
	}
	h.showConnections(w, r, v, d)
}

// connectProvider is POST /dashboard/connections/connect (admin): a
// registry provider's OAuth flow, which returns to this page.
func (h *Handler) connectProvider(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/auth/mcp/initiate",
		map[string]string{"provider": r.PostFormValue("provider")})
	var out struct {
		URL string `json:"authorization_url"`
	}
	if p, bad := failed(rep); bad || !decode(rep, &out) || out.URL == "" {
		if p == nil {
			p = &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}
		}
		h.showConnections(w, r, view{Title: "Connections", Me: h.loadChrome(r, id), Problem: p}, &connectionsPage{Form: connForm{Scope: "workspace", AuthType: "bearer_token"}})
		return
	}
	http.Redirect(w, r, out.URL, http.StatusSeeOther)
}

func (h *Handler) backToConnections(w http.ResponseWriter, r *http.Request, flag string) {
	http.Redirect(w, r, wsQuery("/dashboard/connections?"+flag, workspaceParam(r)), http.StatusSeeOther)
}
