package dashboard

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"svc/domain/apikey"
	"svc/domain/org"
)

// fakeAPI answers the dashboard's calls from canned bodies, by "METHOD
// path" prefix, and records them.
type fakeAPI struct {
	id      Identity
	signed  bool
	replies map[string]Reply
	calls   []string
}

func (f *fakeAPI) Identity(_ *http.Request, ws string) (Identity, error) {
	if !f.signed {
		return Identity{}, ErrSignedOut
	}
	id := f.id
	if ws != "" {
		id.WorkspaceID = ws
	}
	return id, nil
}

func (f *fakeAPI) Call(_ *http.Request, _, method, path string, _ any) Reply {
	f.calls = append(f.calls, method+" "+path)
	best := ""
	for k := range f.replies {
		if strings.HasPrefix(method+" "+path, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return Reply{Status: 404, Body: []byte(`{"error":{"code":"not_found","message":"No.","request_id":"req_1"}}`)}
	}
	return f.replies[best]
}

func (f *fakeAPI) Stream(w http.ResponseWriter, _ *http.Request, _, _ string) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, "event: processing\ndata: {}\n\n")
}

func ok(body string) Reply { return Reply{Status: 200, Header: http.Header{}, Body: []byte(body)} }

const completed = `{"ok":true,"workflow":{"workflow_id":"wr_1","status":"completed","task_type":"blog_post","title":"A <b>post</b>",
"total_steps":2,"actual_steps_executed":2,"completed_step_summaries":[{"step":1,"framework":"Outline","summary":"Did **it**"}],
"quality_score":87,"quality_review":{"score":87,"summary":"Good.","path_to_100":["More data"]},
"deliverable":{"title":"Post","sections":[{"heading":"Intro","content":"- one\n- <script>two</script>"}]},
"credits_used":900,"estimated_credits":1000,"created_at":"2026-11-25T10:00:00Z"}}`

func newFake(role apikey.Role, status string) *fakeAPI {
	wf := strings.Replace(completed, `"status":"completed"`, `"status":"`+status+`"`, 1)
	return &fakeAPI{signed: true, id: Identity{UserID: "u", OrgID: "o", WorkspaceID: "w", Role: role, Tier: org.Free},
		replies: map[string]Reply{
			"GET /api/user/me":          ok(`{"email":"ann@example.com","display_name":"Ann"}`),
			"GET /api/workspaces":       ok(`{"workspaces":[{"id":"w","name":"Default"},{"id":"x","name":"Team"}]}`),
			"GET /api/workspaces/":      ok(`{"folders":[{"id":"f1","name":"Q4"}]}`),
			"GET /api/billing/balance":  ok(`{"balance":12345}`),
			"GET /api/rigor/task-types": ok(`{"task_types":[{"id":"blog_post","label":"Blog post"}]}`),
			"GET /api/rigor/workflows": ok(`{"workflows":[{"workflow_id":"wr_1","status":"executing","task_type":"blog_post","current_step":1,"total_steps":3,
				"credits_charged":10,"created_at":"2026-11-25T10:00:00Z","generated_title":"Launch post"}],
				"pagination":{"cursor":"c2","total_count":30},"concurrent_summary":{"active":1,"limit":1}}`),
			"GET /api/rigor/status/": ok(wf),
			"POST /api/rigor/plan": ok(`{"ok":true,"generated_title":"Launch post","plan":{"workflow_id":"wr_2","classification":{"task_type":"blog_post"},
				"sequence":[{"step":1,"name":"Outline","estimated_credits":100},{"step":2,"name":"Synthesis","estimated_credits":530}],
				"cost":{"credits":630,"usd":0.63},"alternatives":{"quick":{"steps":1,"cost":{"credits":300},"tradeoff":"Less."}},
				"warnings":[{"code":"x","message":"Careful.","suggestion":"Be."}],"rigor_level":"standard"}}`),
		}}
}

func serve(t *testing.T, api API, method, target string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	h := New(api, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "sess"})
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestPagesRender: every page renders for each role, offers exactly the
// actions the role may take, and escapes what the API says.
func TestPagesRender(t *testing.T) {
	for _, tc := range []struct {
		role, status string
		want, not    []string
	}{
		{"viewer", "pending_approval", []string{"A &lt;b&gt;post&lt;/b&gt;"}, []string{"/approve", "/cancel", "Move to folder"}},
		{"admin", "pending_approval", []string{`action="/dashboard/workflows/wr_1/approve"`, "/cancel", "Move to folder"}, nil},
		{"member", "interactive_waiting", []string{"/next", "/skip", "/abort", "Move to folder"}, []string{"/cancel"}},
		{"member", "failed", []string{"/resume"}, []string{"approve"}},
		{"member", "executing", []string{`id="live"`, "/events"}, []string{"/resume", "/cancel"}},
		{"owner", "executing", []string{"Stop and cancel the run"}, nil},
		{"viewer", "completed", []string{"<li>one</li>", "&lt;script&gt;", "<strong>it</strong>", "87</strong> / 100", "More data"}, []string{"<script>two", `id="live"`}},
	} {
		w := serve(t, newFake(apikey.Role(tc.role), tc.status), "GET", "/dashboard/workflows/wr_1", nil)
		body := w.Body.String()
		if w.Code != 200 {
			t.Fatalf("%s %s: %d %s", tc.role, tc.status, w.Code, body)
		}
		for _, s := range tc.want {
			if !strings.Contains(body, s) {
				t.Errorf("%s at %s: the page lacks %q", tc.role, tc.status, s)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(body, s) {
				t.Errorf("%s at %s: the page offers %q", tc.role, tc.status, s)
			}
		}
	}

	list := serve(t, newFake(apikey.Viewer, "completed"), "GET", "/dashboard/workflows?q=post&ws=x", nil).Body.String()
	for _, s := range []string{"Launch post", "30 workflows", "12,345 credits", `href="/dashboard/workflows/wr_1?ws=x"`, "cursor=c2", `value="x" selected`} {
		if !strings.Contains(list, s) {
			t.Errorf("the listing lacks %q", s)
		}
	}
	if strings.Contains(list, "New folder") {
		t.Error("a viewer is offered a new folder")
	}

	for role, run := range map[string]bool{"viewer": false, "member": true} {
		f := newFake(apikey.Role(role), "completed")
		form := url.Values{"task_description": {"write a launch post"}, csrfField: {derive("session", "sess")}}
		page := serve(t, f, "POST", "/dashboard/plan", form).Body.String()
		if !strings.Contains(page, "630 credits") || !strings.Contains(page, "Careful.") || strings.Contains(page, "Run this plan") != run {
			t.Errorf("%s: the plan page: %s", role, page)
		}
	}
}

// TestRefusals: a form without the token, or from another site, is
// refused; signed out, a page sends to the login page and back; an API
// refusal reads as its sentence.
func TestRefusals(t *testing.T) {
	f := newFake(apikey.Owner, "completed")
	if w := serve(t, f, "POST", "/dashboard/workflows/wr_1/cancel", url.Values{"csrf_token": {"forged"}}); w.Code != 403 || len(f.calls) != 0 {
		t.Errorf("a forged token: %d, calls %v", w.Code, f.calls)
	}
	h := New(f, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r := httptest.NewRequest("POST", "/dashboard/logout", strings.NewReader("csrf_token="+derive("session", "sess")))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "sess"})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 403 || len(f.calls) != 0 {
		t.Errorf("a cross-site post: %d, calls %v", w.Code, f.calls)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") ||
		w.Header().Get("X-Frame-Options") != "DENY" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", w.Header())
	}

	out := &fakeAPI{}
	w = serve(t, out, "GET", "/dashboard/workflows?q=a", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/dashboard/login?next=%2Fdashboard%2Fworkflows%3Fq%3Da" {
		t.Errorf("signed out: %d %q", w.Code, w.Header().Get("Location"))
	}

	f = newFake(apikey.Member, "completed")
	f.replies["POST /api/rigor/execute"] = Reply{Status: 402, Body: []byte(`{"error":{"code":"insufficient_credits","message":"Need 630, have 10.","request_id":"req_2"}}`)}
	w = serve(t, f, "POST", "/dashboard/run", url.Values{"workflow_id": {"wr_2"}, csrfField: {derive("session", "sess")}})
	if w.Code != 402 || !strings.Contains(w.Body.String(), sentences["insufficient_credits"]) || !strings.Contains(w.Body.String(), "Need 630") {
		t.Errorf("a refused run: %d %s", w.Code, w.Body)
	}
}

func TestNextPath(t *testing.T) {
	for in, want := range map[string]string{
		"/dashboard/workflows/wr_1?ws=x": "/dashboard/workflows/wr_1?ws=x", "": "/dashboard/workflows",
		"https://evil.example/dashboard": "/dashboard/workflows", "//evil.example/dashboard": "/dashboard/workflows",
		"/dashboardx": "/dashboard/workflows", "/api/keys": "/dashboard/workflows", "/dashboard/\\evil": "/dashboard/workflows",
	} {
		if got := nextPath(in); got != want {
			t.Errorf("nextPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatInt(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := formatInt(n); got != want {
			t.Errorf("formatInt(%d) = %q", n, got)
		}
	}
}
