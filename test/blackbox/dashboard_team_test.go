package blackbox

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardTeam: the workspace pages against svc serve. An owner on
// the Team plan renames the workspace, creates another, archives it
// (after a confirmation page) and restores it, adds a member by email (an invitation is
// mailed, whose link is the dashboard's invite page), creates an invite
// link, sets the budget and the model policy; the API's refusals (a
// duplicate member, an invalid email, a bad budget) read as their
// sentences; a viewer is offered none of it, and a form posted anyway is
// refused by the route; a signed-out invitee is offered to log in or sign
// up, and accepting lands in the workspace.
func TestDashboardTeam(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "team-owner")
	viewer := s.signUpPerson(t, "team-viewer")
	setTier(t, s, owner, "team")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": viewer.Email, "role": "viewer"}}), http.StatusCreated)
	asOwner, asViewer, ws := "svc_session="+owner.Access, "svc_session="+viewer.Access, owner.WorkspaceID
	get := func(cookie, path string, status int, want ...string) string {
		t.Helper()
		code, _, body := page(t, s, http.MethodGet, path, cookie, nil, nil)
		if code != status {
			t.Fatalf("GET %s: %d, want %d: %.3000s", path, code, status, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q: %.3000s", path, w, body)
			}
		}
		return body
	}
	ownerToken := csrfOf(t, get(asOwner, "/dashboard/workspace?ws="+ws, http.StatusOK))
	post := func(path string, form url.Values, status int, want ...string) (string, string) {
		t.Helper()
		form.Set("csrf_token", ownerToken)
		form.Set("ws", ws)
		code, h, body := page(t, s, http.MethodPost, path, asOwner, form, nil)
		if code != status {
			t.Fatalf("POST %s: %d, want %d: %.3000s", path, code, status, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) && !strings.Contains(body, html.EscapeString(w)) {
				t.Errorf("POST %s lacks %q: %.3000s", path, w, body)
			}
		}
		return h.Get("Location"), body
	}

	// the workspace: rename, a new one, archive it after confirming, restore it
	get(asOwner, "/dashboard/workspace?ws="+ws, http.StatusOK, "Workspace Default", `action="/dashboard/workspace/rename"`,
		`action="/dashboard/workspace/create"`, "2 members")
	if loc, _ := post("/dashboard/workspace/rename", url.Values{"name": {"Research"}}, http.StatusSeeOther); !strings.Contains(loc, "done=renamed") {
		t.Errorf("rename went to %s", loc)
	}
	get(asOwner, "/dashboard/workspace?ws="+ws+"&done=renamed", http.StatusOK, "Workspace Research", "The workspace was renamed.")
	post("/dashboard/workspace/rename", url.Values{"name": {strings.Repeat("x", 101)}}, http.StatusBadRequest, "Some of what you entered is not valid.")
	loc, _ := post("/dashboard/workspace/create", url.Values{"name": {"Side project"}}, http.StatusSeeOther)
	m := regexp.MustCompile(`ws=([0-9a-f-]{36})&done=created`).FindStringSubmatch(loc)
	if m == nil {
		t.Fatalf("a new workspace went to %s", loc)
	}
	side := m[1]
	body := get(asOwner, "/dashboard/workspace/archive?ws="+side, http.StatusOK, "Archive the workspace Side project?", `action="/dashboard/workspace/archive"`)
	form := url.Values{"csrf_token": {csrfOf(t, body)}, "ws": {side}}
	if code, h, body := page(t, s, http.MethodPost, "/dashboard/workspace/archive", asOwner, form, nil); code != http.StatusSeeOther ||
		h.Get("Location") != "/dashboard/workspace?done=archived" {
		t.Fatalf("archive: %d %v %.2000s", code, h, body)
	}
	listed := s.do(t, req{Path: "/api/workspaces", Header: owner.cookie()})
	if strings.Contains(string(listed.Raw), side) {
		t.Errorf("the archived workspace is still listed: %s", listed.Raw)
	}
	body = get(asOwner, "/dashboard/workspace?ws="+ws, http.StatusOK, `action="/dashboard/workspace/restore?ws=`+side+`"`)
	if strings.Contains(body, "/dashboard/workspace/archive") {
		t.Error("the default workspace offers to be archived")
	}
	if loc, _ := post("/dashboard/workspace/restore?ws="+side, url.Values{}, http.StatusSeeOther); loc != "/dashboard/workspace?ws="+side+"&done=restored" {
		t.Errorf("restore went to %s", loc)
	}
	get(asOwner, "/dashboard/workspace?ws="+side+"&done=restored", http.StatusOK, "The workspace was restored.", "/dashboard/workspace/archive?ws="+side)
	post("/dashboard/workspace/restore?ws="+side, url.Values{}, http.StatusBadRequest, "This workspace is not archived.")

	// members: refusals with their sentences, an email invite, an invite link
	members := "/dashboard/workspace/members"
	post(members, url.Values{"email": {viewer.Email}, "role": {"member"}}, http.StatusConflict, "This person is already a member of the workspace.")
	post(members, url.Values{"email": {"not-an-address"}, "role": {"member"}}, http.StatusBadRequest, "Some of what you entered is not valid.",
		`value="not-an-address"`)
	invitee := uniqueEmail("team-invitee")
	if loc, _ := post(members, url.Values{"email": {invitee}, "role": {"admin"}}, http.StatusSeeOther); !strings.Contains(loc, "done=invited") {
		t.Errorf("an invitation went to %s", loc)
	}
	link := mailedLink(t, invitee, regexp.MustCompile(`invited to the workspace`), regexp.MustCompile(`https?://\S+/dashboard/invite\?token=\S+`))
	loc, _ = post("/dashboard/workspace/invites", url.Values{"role": {"viewer"}, "max_uses": {"2"}}, http.StatusSeeOther)
	if !strings.Contains(loc, "done=link&new=") {
		t.Errorf("a new invite link went to %s", loc)
	}
	get(asOwner, members+"?ws="+ws, http.StatusOK, viewer.Email, `/dashboard/invite?token=`, "2 of 2 uses left", "/revoke\"",
		`/members/`+viewer.UserID+`/role"`, `/members/`+viewer.UserID+`/remove?ws=`)
	post("/dashboard/workspace/invites", url.Values{"role": {"viewer"}, "max_uses": {"0"}}, http.StatusBadRequest, "Some of what you entered is not valid.")

	// settings: the budget and the model policy
	settings := "/dashboard/workspace/settings"
	post("/dashboard/workspace/budget", url.Values{"monthly_credit_budget": {"20000"}}, http.StatusSeeOther)
	body = get(asOwner, settings+"?ws="+ws, http.StatusOK, "20,000 credits a month", `name="allowed_models"`)
	post("/dashboard/workspace/budget", url.Values{"monthly_credit_budget": {"-5"}}, http.StatusBadRequest, "Some of what you entered is not valid.")
	model := regexp.MustCompile(`name="allowed_models" value="([^"]+)"`).FindStringSubmatch(body)
	if model == nil {
		t.Fatalf("no model to allow: %.3000s", body)
	}
	post("/dashboard/workspace/llm-policy", url.Values{"allowed_models": {model[1]}}, http.StatusSeeOther)
	get(asOwner, settings+"?ws="+ws, http.StatusOK, "use only: <strong>"+model[1]+"</strong>", "Remove the policy")
	post("/dashboard/workspace/llm-policy", url.Values{}, http.StatusBadRequest, "Some of what you entered is not valid.")

	// a viewer sees, and is offered nothing
	for path, not := range map[string][]string{
		"/dashboard/workspace": {"/rename", "/archive", "Workspace name"},
		members:                {"/role\"", "/remove", `action="/dashboard/workspace/invites"`, `action="/dashboard/workspace/members"`, "/dashboard/invite?token="},
		settings:               {`name="monthly_credit_budget"`, `name="allowed_models"`},
	} {
		body := get(asViewer, path+"?ws="+ws, http.StatusOK, "Research")
		for _, n := range not {
			if strings.Contains(body, n) {
				t.Errorf("the viewer's %s offers %q", path, n)
			}
		}
	}
	viewerForm := url.Values{"csrf_token": {csrfOf(t, get(asViewer, members+"?ws="+ws, http.StatusOK))}, "ws": {ws},
		"email": {uniqueEmail("x")}, "role": {"admin"}}
	if code, _, body := page(t, s, http.MethodPost, members, asViewer, viewerForm, nil); code != http.StatusForbidden ||
		!strings.Contains(body, "Your role in this workspace does not allow this.") {
		t.Errorf("a viewer's forged invitation: %d %.2000s", code, body)
	}

	// the mailed link: signed out, log in or sign up; signed in, accept
	path := link[strings.Index(link, "/dashboard/invite"):]
	get("", path, http.StatusOK, "/dashboard/login?next=%2Fdashboard%2Finvite%3Ftoken%3D", `action="/dashboard/invite/signup"`)
	joiner := s.signUpPersonWith(t, "joiner", invitee)
	// "Log in to accept": the login page, and back to the invite
	_, h, body := page(t, s, http.MethodGet, "/dashboard/login?next="+url.QueryEscape(path), "", nil, nil)
	nonce := (&http.Response{Header: h}).Cookies()
	login := url.Values{"csrf_token": {csrfOf(t, body)}, "email": {invitee}, "password": {joiner.Password}, "next": {path}}
	code, h, body := page(t, s, http.MethodPost, "/dashboard/login", "svc_csrf="+nonce[0].Value, login, nil)
	if code != http.StatusSeeOther || h.Get("Location") != path {
		t.Fatalf("logging in to accept: %d %v %.2000s", code, h, body)
	}
	body = get("svc_session="+joiner.Access, path, http.StatusOK, `action="/dashboard/invite"`, invitee)
	token, _ := url.ParseQuery(path[strings.Index(path, "?")+1:])
	accept := url.Values{"csrf_token": {csrfOf(t, body)}, "token": {token.Get("token")}}
	code, h, body = page(t, s, http.MethodPost, "/dashboard/invite", "svc_session="+joiner.Access, accept, nil)
	if code != http.StatusSeeOther || h.Get("Location") != "/dashboard/workspace?ws="+ws+"&done=joined" {
		t.Fatalf("accept: %d %v %.2000s", code, h, body)
	}
	get("svc_session="+joiner.Access, h.Get("Location"), http.StatusOK, "You joined Research as admin.")
	code, _, body = page(t, s, http.MethodPost, "/dashboard/invite", "svc_session="+joiner.Access, accept, nil)
	if code != http.StatusConflict || !strings.Contains(body, "You are already a member of this workspace.") {
		t.Errorf("accepting twice: %d %.2000s", code, body)
	}
}
