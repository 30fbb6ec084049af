package blackbox

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardConnections: an admin adds a context server from the
// connections page (a refused URL reads as a sentence, the form kept),
// tests it, relabels it and removes it; the credential never shows; a
// failing test says why; a viewer sees the list without the controls.
func TestDashboardConnections(t *testing.T) {
	t.Parallel()
	cs := newContextServer(t, true)
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": cs.CA})
	owner := s.signUpPerson(t, "conn-owner")
	viewer := s.signUpPerson(t, "conn-viewer")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": viewer.Email, "role": "viewer"}}), http.StatusCreated)
	session := "svc_session=" + owner.Access

	code, _, body := page(t, s, http.MethodGet, "/dashboard/connections", session, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "No connection yet.") || !strings.Contains(body, `action="/dashboard/connections"`) {
		t.Fatalf("no connection yet: %d %.3000s", code, body)
	}
	token := csrfOf(t, body)
	add := func(name, server, scope, auth, secret string) (int, http.Header, string) {
		return page(t, s, http.MethodPost, "/dashboard/connections", session, url.Values{"csrf_token": {token}, "display_name": {name},
			"server_url": {server}, "scope": {scope}, "transport": {"streamable-http"}, "auth_type": {auth}, "secret": {secret}}, nil)
	}
	code, _, body = add("handbook", "http://example.com/mcp", "workspace", "bearer_token", "bb-ctx-secret")
	if code != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, `value="http://example.com/mcp"`) ||
		strings.Contains(body, "bb-ctx-secret") {
		t.Fatalf("an http URL: %d %.3000s", code, body)
	}
	if code, h, _ := add("handbook", cs.URL, "workspace", "bearer_token", "bb-ctx-secret"); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/connections?added=1" {
		t.Fatalf("add: %d %v", code, h)
	}
	if code, _, body := add("again", cs.URL+"/", "workspace", "none", ""); code != http.StatusConflict || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("the same server twice in the workspace: %d %.2000s", code, body)
	}
	if code, _, _ := add("open", cs.URL+"/", "org", "none", ""); code != http.StatusSeeOther { // the same server without its token
		t.Fatalf("add without auth: %d", code)
	}
	_, _, body = page(t, s, http.MethodGet, "/dashboard/connections?added=1", session, nil, nil)
	ids := regexp.MustCompile(`action="/dashboard/connections/([0-9a-f-]{36})/test"`).FindAllStringSubmatch(body, -1)
	if len(ids) != 2 || !strings.Contains(body, "The connection is added.") || strings.Contains(body, "bb-ctx-secret") {
		t.Fatalf("two added: %.4000s", body)
	}
	byLabel := map[string]string{}
	for _, m := range ids {
		i := strings.Index(body, m[0])
		label := regexp.MustCompile(`name="label" value="([^"]+)"`).FindStringSubmatch(body[i:])[1]
		byLabel[label] = m[1]
	}
	act := func(id, action string, form url.Values) (int, http.Header, string) {
		form.Set("csrf_token", token)
		return page(t, s, http.MethodPost, "/dashboard/connections/"+id+"/"+action, session, form, nil)
	}
	code, _, body = act(byLabel["handbook"], "test", url.Values{"label": {"handbook"}})
	if code != http.StatusOK || !strings.Contains(body, "The test of handbook passed.") || !strings.Contains(body, "answered MCP initialize") {
		t.Errorf("test: %d %.3000s", code, body)
	}
	code, _, body = act(byLabel["open"], "test", url.Values{"label": {"open"}})
	if code != http.StatusOK || !strings.Contains(body, "The test of open failed.") {
		t.Errorf("a failing test: %d %.3000s", code, body)
	}
	if code, h, _ := act(byLabel["handbook"], "save", url.Values{"label": {"Company handbook"}, "auth_type": {"bearer_token"}}); code != http.StatusSeeOther ||
		h.Get("Location") != "/dashboard/connections?saved=1" {
		t.Errorf("save: %d %v", code, h)
	}
	if _, _, body = page(t, s, http.MethodGet, "/dashboard/connections", session, nil, nil); !strings.Contains(body, "<strong>Company handbook</strong>") {
		t.Errorf("after the save: %.3000s", body)
	}

	// the viewer: the list, no control
	_, _, body = page(t, s, http.MethodGet, "/dashboard/connections?ws="+owner.WorkspaceID, "svc_session="+viewer.Access, nil, nil)
	if !strings.Contains(body, "Company handbook") || strings.Contains(body, "/test\"") || strings.Contains(body, "/remove\"") ||
		strings.Contains(body, "Add a context server") {
		t.Errorf("the viewer's page: %.4000s", body)
	}

	if code, h, _ := act(byLabel["open"], "remove", url.Values{}); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/connections?removed=1" {
		t.Fatalf("remove: %d %v", code, h)
	}
	_, _, body = page(t, s, http.MethodGet, "/dashboard/connections?removed=1", session, nil, nil)
	if !strings.Contains(body, "1 removed connection not shown.") || strings.Count(body, `/test"`) != 1 {
		t.Errorf("after the removal: %.4000s", body)
	}
	if code, _, body := act("00000000-0000-4000-8000-000000000000", "remove", url.Values{}); code != http.StatusNotFound || !strings.Contains(body, `role="alert"`) {
		t.Errorf("an unknown connection: %d %.2000s", code, body)
	}
}

// TestDashboardConnectionsOff: with the gateway off the page says so.
func TestDashboardConnectionsOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"SVC_CONNECTIONS": "off"})
	p := s.signUpPerson(t, "conn-off")
	code, _, body := page(t, s, http.MethodGet, "/dashboard/connections", "svc_session="+p.Access, nil, nil)
	if code != http.StatusNotImplemented || !strings.Contains(body, "This feature is not enabled on this service.") {
		t.Errorf("the gateway off: %d %.2000s", code, body)
	}
}
