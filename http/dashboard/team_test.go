package dashboard

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"svc/domain/apikey"
	"svc/domain/org"
)

// teamFake is fakeAPI with the team pages' answers, recording the bodies
// sent.
type teamFake struct {
	*fakeAPI
	bodies map[string]string
}

func (f *teamFake) Call(r *http.Request, ws, method, path string, body any) Reply {
	raw, _ := json.Marshal(body)
	f.bodies[method+" "+path] = string(raw)
	return f.fakeAPI.Call(r, ws, method, path, body)
}

func newTeamFake(role apikey.Role, tier org.Tier) *teamFake {
	f := newFake(role, "completed")
	f.id.Tier = tier
	f.id.UserID = "u1"
	for k, v := range map[string]Reply{
		"GET /api/workspaces/w": ok(`{"id":"w","name":"Research","slug":"research","is_default":false,"archived_at":null,
			"created_at":"2026-11-01T10:00:00Z","account_tier":"` + string(tier) + `","llm_policy":null,"budget":null}`),
		"GET /api/workspaces/w/members": ok(`{"members":[
			{"id":"u1","type":"user","email":"ann@example.com","name":"Ann","role":"` + string(role) + `","created_at":"2026-11-01T10:00:00Z"},
			{"id":"u2","type":"user","email":"bob@example.com","role":"member","created_at":"2026-11-02T10:00:00Z"},
			{"id":"k1","type":"api_key","key_prefix":"svc_live_abc123","role":"viewer","created_at":"2026-11-03T10:00:00Z"}]}`),
		"POST /api/invites/preview": ok(teamOffer),
		"GET /api/workspaces/w/invites": ok(`{"ok":true,"invites":[{"invite_id":"i1","token":"i1.s","url":"http://x/dashboard/invite?token=i1.s",
			"role":"member","expires_at":"2099-01-01T00:00:00Z","max_uses":5,"uses_remaining":4,"created_at":"2026-11-01T10:00:00Z"}]}`),
		"GET /api/workspaces/w/budget": ok(`{"workspace_id":"w","monthly_credit_budget":50000,"current_month_spend":12500,
			"budget_utilization_pct":25,"reset_at":"2026-12-01T00:00:00Z"}`),
		"GET /api/workspaces/w/llm-policy": ok(`{"workspace_id":"w","allowed_models":["model-a"],"enforcement_status":"enforced",
			"updated_at":"2026-11-01T10:00:00Z","available_models":["model-a","model-b"]}`),
	} {
		f.replies[k] = v
	}
	return &teamFake{fakeAPI: f, bodies: map[string]string{}}
}

func teamRefusal(status int, code, msg string) Reply {
	return Reply{Status: status, Body: []byte(`{"error":{"code":"` + code + `","message":"` + msg + `","request_id":"req_9"}}`)}
}

var teamHTML = template.HTMLEscapeString

func teamForm(kv ...string) url.Values {
	v := url.Values{csrfField: {derive("session", "sess")}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// teamCheck checks that a page of the fake answers status and holds every
// want and none of not.
func teamCheck(t *testing.T, name string, w interface {
	Result() *http.Response
}, body string, status int, want, not []string) {
	t.Helper()
	if got := w.Result().StatusCode; got != status {
		t.Errorf("%s: status %d, want %d: %.2000s", name, got, status, body)
	}
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("%s lacks %q", name, s)
		}
	}
	for _, s := range not {
		if strings.Contains(body, s) {
			t.Errorf("%s holds %q", name, s)
		}
	}
}

// TestTeamPagesByRole: each page offers exactly what the role may do.
func TestTeamPagesByRole(t *testing.T) {
	for _, tc := range []struct {
		role      apikey.Role
		tier      org.Tier
		path      string
		want, not []string
	}{
		{apikey.Owner, org.Team, "/dashboard/workspace?ws=w", []string{"Workspace Research", `action="/dashboard/workspace/rename"`,
			`href="/dashboard/workspace/archive?ws=w"`, `action="/dashboard/workspace/create"`, "3 members", `href="/dashboard/workspace/members?ws=w"`,
			`href="/dashboard/workspace/settings?ws=w"`, `href="/dashboard/workspace?ws=x"`}, nil},
		{apikey.Viewer, org.Free, "/dashboard/workspace?ws=w", []string{"Workspace Research", "Team and Enterprise plans"},
			[]string{"/rename", "/archive", "/dashboard/workspace/create"}},
		{apikey.Owner, org.Team, "/dashboard/workspace/members?ws=w", []string{"Ann (ann@example.com)", "API key svc_live_abc123",
			`action="/dashboard/workspace/members/u2/role"`, `href="/dashboard/workspace/members/u2/remove?ws=w"`,
			`value="http://x/dashboard/invite?token=i1.s"`, "4 of 5 uses left", `action="/dashboard/workspace/invites/i1/revoke"`,
			`action="/dashboard/workspace/members"`, `action="/dashboard/workspace/invites"`},
			[]string{"/members/u1/role", "/members/u1/remove", "/members/k1/"}},
		{apikey.Admin, org.Team, "/dashboard/workspace/members?ws=w", []string{`/members/u2/remove`, `action="/dashboard/workspace/invites"`},
			[]string{"/role"}},
		{apikey.Viewer, org.Team, "/dashboard/workspace/members?ws=w", []string{"bob@example.com", "can see the members"},
			[]string{"/role", "/remove", "/invites", "<form method=\"post\" action=\"/dashboard/workspace/members\""}},
		{apikey.Admin, org.Team, "/dashboard/workspace/settings?ws=w", []string{"50,000 credits a month", "12,500 credits (25 %)",
			`name="monthly_credit_budget"`, `value="50000"`, `value="model-a" checked`, `value="model-b">`, "Remove the policy"}, nil},
		{apikey.Member, org.Team, "/dashboard/workspace/settings?ws=w", []string{"50,000 credits a month", "model-a", "can change the budget"},
			[]string{`name="monthly_credit_budget"`, `name="allowed_models"`}},
		{apikey.Admin, org.Free, "/dashboard/workspace/settings?ws=w", []string{"come with the Team and Enterprise plans"},
			[]string{`name="monthly_credit_budget"`, `name="allowed_models"`}},
	} {
		w := serve(t, newTeamFake(tc.role, tc.tier), "GET", tc.path, nil)
		teamCheck(t, string(tc.role)+" "+tc.path, w, w.Body.String(), 200, tc.want, tc.not)
	}
}

// TestTeamForms: each form calls its route with the body the API reads
// and comes back with a notice; a refusal reads as its sentence on the
// page, with what was entered.
func TestTeamForms(t *testing.T) {
	for _, tc := range []struct {
		path     string
		form     url.Values
		call     string
		body     string
		location string
	}{
		{"/dashboard/workspace/rename", teamForm("ws", "w", "name", " Lab "), "PUT /api/workspaces/w", `{"name":"Lab"}`, "/dashboard/workspace?ws=w&done=renamed"},
		{"/dashboard/workspace/archive", teamForm("ws", "w"), "DELETE /api/workspaces/w", "null", "/dashboard/workspace?done=archived"},
		{"/dashboard/workspace/members/u2/role", teamForm("ws", "w", "role", "admin"), "PATCH /api/workspaces/w/members/u2", `{"role":"admin"}`,
			"/dashboard/workspace/members?ws=w&done=role"},
		{"/dashboard/workspace/members/u2/remove", teamForm("ws", "w"), "DELETE /api/workspaces/w/members/u2", "null",
			"/dashboard/workspace/members?ws=w&done=removed"},
		{"/dashboard/workspace/invites", teamForm("ws", "w", "role", "viewer", "max_uses", "3", "expires_in_days", ""), "POST /api/workspaces/w/invites",
			`{"max_uses":3,"role":"viewer"}`, "/dashboard/workspace/members?ws=w&done=link&new=i9#invite-links"},
		{"/dashboard/workspace/invites/i1/revoke", teamForm("ws", "w"), "DELETE /api/workspaces/w/invites/i1", "null",
			"/dashboard/workspace/members?ws=w&done=revoked"},
		{"/dashboard/workspace/budget", teamForm("ws", "w", "monthly_credit_budget", ""), "PUT /api/workspaces/w/budget",
			`{"monthly_credit_budget":null}`, "/dashboard/workspace/settings?ws=w&done=budget"},
		{"/dashboard/workspace/budget", teamForm("ws", "w", "monthly_credit_budget", "20,000"), "PUT /api/workspaces/w/budget",
			`{"monthly_credit_budget":20000}`, "/dashboard/workspace/settings?ws=w&done=budget"},
		{"/dashboard/workspace/llm-policy", teamForm("ws", "w", "allowed_models", "model-a", "allowed_models", "model-b"),
			"PUT /api/workspaces/w/llm-policy", `{"allowed_models":["model-a","model-b"]}`, "/dashboard/workspace/settings?ws=w&done=policy"},
		{"/dashboard/workspace/llm-policy", teamForm("ws", "w", "allowed_models", "model-a", "remove", "1"),
			"PUT /api/workspaces/w/llm-policy", `{"allowed_models":null}`, "/dashboard/workspace/settings?ws=w&done=policy"},
		{"/dashboard/workspace/create", teamForm("name", "Lab"), "POST /api/workspaces", `{"name":"Lab"}`, "/dashboard/workspace?ws=w2&done=created"},
		{"/dashboard/workspace/restore?ws=w", teamForm("ws", "x"), "POST /api/workspaces/w/restore", "null", "/dashboard/workspace?ws=w&done=restored"},
		{"/dashboard/workspace/members", teamForm("ws", "w", "email", "cy@example.com", "role", "member"), "POST /api/workspaces/w/members",
			`{"email":"cy@example.com","role":"member"}`, "/dashboard/workspace/members?ws=w&done=invited&email=cy%40example.com"},
	} {
		f := newTeamFake(apikey.Owner, org.Team)
		ans := ok(`{"success":true,"ok":true}`)
		f.replies["POST /api/workspaces/w/invites"] = Reply{Status: 201, Body: []byte(`{"ok":true,"invite_id":"i9"}`)}
		f.replies["POST /api/workspaces/w/members"] = Reply{Status: 201, Body: []byte(`{"email":"cy@example.com","status":"invited"}`)}
		f.replies["POST /api/workspaces"] = Reply{Status: 201, Body: []byte(`{"id":"w2","name":"Lab"}`)}
		for _, k := range []string{"PUT /api/workspaces/w", "DELETE /api/workspaces/w", "PATCH /api/workspaces/w/members", "POST /api/workspaces/w/restore"} {
			f.replies[k] = ans
		}
		w := serve(t, f, "POST", tc.path, tc.form)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != tc.location {
			t.Errorf("%s: %d to %q, want %s: %.1000s", tc.path, w.Code, w.Header().Get("Location"), tc.location, w.Body)
		}
		if got := f.bodies[tc.call]; got != tc.body {
			t.Errorf("%s: %s sent %s, want %s (calls %v)", tc.path, tc.call, got, tc.body, f.calls)
		}
	}

	// refusals: the sentence, the API's detail, the values entered
	for _, tc := range []struct {
		path  string
		form  url.Values
		call  string
		reply Reply
		want  []string
	}{
		{"/dashboard/workspace/members", teamForm("ws", "w", "email", "bob@example.com", "role", "admin"), "POST /api/workspaces/w/members",
			teamRefusal(409, "already_member", "This user is already a member of the workspace."),
			[]string{teamSentences["already_member"], `value="bob@example.com"`, `<option value="admin" selected>`}},
		{"/dashboard/workspace/members", teamForm("ws", "w", "email", "nope", "role", "member"), "POST /api/workspaces/w/members",
			teamRefusal(400, "invalid_body", "email: not a valid email address"), []string{sentences["invalid_body"], "email: not a valid email address", `value="nope"`}},
		{"/dashboard/workspace/members/u2/role", teamForm("ws", "w", "role", "viewer"), "PATCH /api/workspaces/w/members/u2",
			teamRefusal(400, "cannot_remove_last_owner", "x"), []string{teamHTML(teamSentences["cannot_remove_last_owner"])}},
		{"/dashboard/workspace/create", teamForm("name", "Lab"), "POST /api/workspaces",
			teamRefusal(403, "workspace_limit_reached", "x"), []string{teamHTML(teamSentences["workspace_limit_reached"]), `value="Lab"`}},
		{"/dashboard/workspace/budget", teamForm("ws", "w", "monthly_credit_budget", "-5"), "PUT /api/workspaces/w/budget",
			teamRefusal(400, "invalid_body", "monthly_credit_budget: a positive integer"), []string{"monthly_credit_budget: a positive integer", `value="-5"`}},
	} {
		f := newTeamFake(apikey.Owner, org.Team)
		f.replies[tc.call] = tc.reply
		w := serve(t, f, "POST", tc.path, tc.form)
		teamCheck(t, tc.path, w, w.Body.String(), tc.reply.Status, tc.want, nil)
	}
}

// TestTeamArchived: an archived workspace offers its restore to an owner
// on the Team plan, on its page and on the others' (the form's action
// names it); to no one else.
func TestTeamArchived(t *testing.T) {
	for _, tc := range []struct {
		role    apikey.Role
		tier    org.Tier
		restore bool
	}{{apikey.Owner, org.Team, true}, {apikey.Admin, org.Team, false}, {apikey.Owner, org.Pro, false}} {
		f := newTeamFake(tc.role, tc.tier)
		f.replies["GET /api/workspaces/w"] = ok(`{"id":"w","name":"Old","slug":"old","archived_at":"2026-11-20T10:00:00Z","account_tier":"team"}`)
		f.replies["GET /api/workspaces?include_archived=true"] = ok(`{"workspaces":[{"id":"w","name":"Old","archived_at":"2026-11-20T10:00:00Z"},{"id":"x","name":"Team"}]}`)
		w := serve(t, f, "GET", "/dashboard/workspace?ws=x", nil)
		body := w.Body.String()
		if strings.Contains(body, `action="/dashboard/workspace/restore?ws=w"`) != tc.restore || strings.Contains(body, "Restore Old") != tc.restore {
			t.Errorf("%s on %s: restore offered %v: %.3000s", tc.role, tc.tier, !tc.restore, body)
		}
		w = serve(t, f, "GET", "/dashboard/workspace?ws=w", nil)
		body = w.Body.String()
		if !strings.Contains(body, "This workspace is archived") || strings.Contains(body, "Restore the workspace") != tc.restore ||
			strings.Contains(body, "/rename") || strings.Contains(body, "/dashboard/workspace/archive") {
			t.Errorf("%s on %s: the archived workspace's page: %.3000s", tc.role, tc.tier, body)
		}
	}
}

// TestTeamConfirmations: archiving and removing a member ask first, on a
// page of their own, and only a role that may.
func TestTeamConfirmations(t *testing.T) {
	w := serve(t, newTeamFake(apikey.Admin, org.Team), "GET", "/dashboard/workspace/archive?ws=w", nil)
	teamCheck(t, "archive", w, w.Body.String(), 200, []string{"Archive the workspace Research?", `action="/dashboard/workspace/archive"`,
		`name="ws" value="w"`, `href="/dashboard/workspace?ws=w"`}, nil)
	w = serve(t, newTeamFake(apikey.Admin, org.Team), "GET", "/dashboard/workspace/members/u2/remove?ws=w", nil)
	teamCheck(t, "remove", w, w.Body.String(), 200, []string{"Remove bob@example.com from Research?",
		`action="/dashboard/workspace/members/u2/remove"`}, nil)
	w = serve(t, newTeamFake(apikey.Member, org.Team), "GET", "/dashboard/workspace/members/u2/remove?ws=w", nil)
	teamCheck(t, "remove as a member", w, w.Body.String(), 403, []string{sentences["forbidden"]}, []string{"/remove\""})
	w = serve(t, newTeamFake(apikey.Admin, org.Team), "GET", "/dashboard/workspace/members/gone/remove?ws=w", nil)
	teamCheck(t, "remove a stranger", w, w.Body.String(), 404, []string{"no longer in this workspace"}, nil)
}

// TestTeamInvite: signed out, the invite page offers to log in (and come
// back) or sign up; signed in, accepting goes to the workspace joined; a
// refused invitation reads as its sentence.
func TestTeamInvite(t *testing.T) {
	out := &teamFake{fakeAPI: &fakeAPI{replies: map[string]Reply{"POST /api/invites/preview": ok(teamOffer)}}, bodies: map[string]string{}}
	w := serve(t, out, "GET", "/dashboard/invite?token=i1.s%2Bx", nil)
	teamCheck(t, "signed out", w, w.Body.String(), 200, []string{
		`href="/dashboard/login?next=%2Fdashboard%2Finvite%3Ftoken%3Di1.s%252Bx"`, `action="/dashboard/invite/signup"`, `name="token" value="i1.s&#43;x"`},
		[]string{`action="/dashboard/invite"`})

	out.replies["POST /api/auth/signup"] = Reply{Status: 201, Header: http.Header{"Set-Cookie": {"svc_session=new; Path=/"}}, Body: []byte(`{}`)}
	w = serve(t, out, "POST", "/dashboard/invite/signup", teamForm("token", "i1.s", "email", "cy@example.com", "password", "long enough"))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/dashboard/invite?token=i1.s" || w.Header().Get("Set-Cookie") == "" {
		t.Errorf("signup: %d %v", w.Code, w.Header())
	}
	out.replies["POST /api/auth/signup"] = teamRefusal(409, "email_already_registered", "x")
	w = serve(t, out, "POST", "/dashboard/invite/signup", teamForm("token", "i1.s", "email", "cy@example.com", "password", "long enough"))
	teamCheck(t, "signup refused", w, w.Body.String(), 409, []string{teamHTML(sentences["email_already_registered"]), `value="cy@example.com"`, `name="token" value="i1.s"`}, nil)

	f := newTeamFake(apikey.Owner, org.Free)
	w = serve(t, f, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "signed in", w, w.Body.String(), 200, []string{`action="/dashboard/invite"`, "ann@example.com", `name="token" value="i1.s"`},
		[]string{"/dashboard/invite/signup"})
	f.replies["POST /api/invites/accept"] = ok(`{"workspace_id":"w9","workspace_name":"Research","role":"member"}`)
	w = serve(t, f, "POST", "/dashboard/invite", teamForm("token", "i1.s"))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/dashboard/workspace?ws=w9&done=joined" || f.bodies["POST /api/invites/accept"] != `{"token":"i1.s"}` {
		t.Errorf("accept: %d %v %v", w.Code, w.Header(), f.bodies)
	}
	w = serve(t, newTeamFake(apikey.Member, org.Free), "GET", "/dashboard/workspace?ws=w9&done=joined", nil)
	teamCheck(t, "joined", w, w.Body.String(), 200, []string{"Welcome! You joined Research as member."}, nil)

	for code, tc := range map[string]struct {
		status int
		want   string
	}{"invite_expired": {410, sentences["invite_expired"]}, "invite_not_found": {404, sentences["invite_not_found"]},
		"already_member": {409, "You are already a member of this workspace."}} {
		f.replies["POST /api/invites/accept"] = teamRefusal(tc.status, code, "x")
		w = serve(t, f, "POST", "/dashboard/invite", teamForm("token", "i1.s"))
		teamCheck(t, code, w, w.Body.String(), tc.status, []string{teamHTML(tc.want), `name="token" value="i1.s"`}, nil)
	}
	w = serve(t, f, "GET", "/dashboard/invite", nil)
	teamCheck(t, "no token", w, w.Body.String(), 400, []string{"incomplete"}, nil)
}
