package blackbox

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"

	"svc/test/fakellm"
)

// pageClient fetches the dashboard's pages: HTML, outside the JSON API's
// document (so not through the checking transport), redirects not
// followed.
var pageClient = &http.Client{Timeout: 60 * time.Second, Transport: baseTransport,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// page sends a dashboard request with cookie (a Cookie header, "" for
// none) and form (nil for none); it returns the status, headers and body.
func page(t *testing.T, s *server, method, path, cookie string, form url.Values, header map[string]string) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	r.Header.Set("X-Forwarded-For", nextIP())
	for k, v := range header {
		r.Header.Set(k, v)
	}
	res, err := pageClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(raw)
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrfOf is the token of the first form of a page.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token in the page: %.2000s", body)
	}
	return m[1]
}

// TestDashboardRolesAndForms: the dashboard's pages carry a strict
// Content-Security-Policy and are neither framed nor cached; a form
// without its token, or sent from another site, is refused before the
// API is called; a viewer of another organization's workspace sees its
// workflows and may plan, is not offered a run, and a run posted anyway
// is refused by the API's role check; a workspace one is not in is not
// found; a wrong password reads as a sentence.
func TestDashboardRolesAndForms(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "dash-owner")
	viewer := s.signUpPerson(t, "dash-viewer")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": viewer.Email, "role": "viewer"}}), http.StatusCreated)
	asViewer, asOwner := "svc_session="+viewer.Access, "svc_session="+owner.Access
	ws := owner.WorkspaceID

	code, h, body := page(t, s, http.MethodGet, "/dashboard/workflows?ws="+ws, asViewer, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, `<span class="role" title="Your role in this workspace">viewer</span>`) {
		t.Fatalf("the viewer's listing: %d %.3000s", code, body)
	}
	if strings.Contains(body, "New folder") {
		t.Error("a viewer is offered a new folder")
	}
	csp := h.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") ||
		h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a page's headers: %v", h)
	}
	if inline := regexp.MustCompile(`<script>|<style|\sstyle=|\son[a-z]+=`).FindString(body); inline != "" {
		t.Errorf("a page holds an inline script, style or handler: %q", inline)
	}
	token := csrfOf(t, body)

	// the viewer plans: the plan and its cost, no run
	plan := url.Values{"csrf_token": {token}, "ws": {ws}, "task_description": {"draft a launch plan for our mobile app in Germany"}}
	code, _, body = page(t, s, http.MethodPost, "/dashboard/plan", asViewer, plan, nil)
	m := regexp.MustCompile(`id="plan-(wr_[0-9a-f]{32})"`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil || !strings.Contains(body, "can plan but not run") || strings.Contains(body, "Run this plan") {
		t.Fatalf("the viewer's plan: %d %.3000s", code, body)
	}
	run := url.Values{"csrf_token": {token}, "ws": {ws}, "workflow_id": {m[1]}}
	code, _, body = page(t, s, http.MethodPost, "/dashboard/run", asViewer, run, nil)
	if code != http.StatusForbidden || !strings.Contains(body, "Your role in this workspace does not allow this.") {
		t.Errorf("a viewer's forged run: %d %.2000s", code, body)
	}
	wf := s.do(t, req{Path: "/api/rigor/status/" + m[1], Key: s.keyWithRole(t, owner, ws, "viewer")})
	if wantStatus(t, wf, http.StatusOK); object(t, wf.Body, "workflow")["status"] != "planned" {
		t.Errorf("after the refused run the workflow is %v", object(t, wf.Body, "workflow")["status"])
	}

	// refused before the API: no token, a wrong one, another site
	for name, tc := range map[string]struct {
		form   url.Values
		header map[string]string
	}{
		"no token":     {url.Values{"ws": {ws}, "workflow_id": {m[1]}}, nil},
		"wrong token":  {url.Values{"csrf_token": {token + "x"}, "ws": {ws}, "workflow_id": {m[1]}}, nil},
		"cross-site":   {run, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"other origin": {run, map[string]string{"Origin": "https://evil.example"}},
	} {
		code, _, body := page(t, s, http.MethodPost, "/dashboard/run", asOwner, tc.form, tc.header)
		if code != http.StatusForbidden || !strings.Contains(body, "did not come from this dashboard") {
			t.Errorf("%s: %d %.1000s", name, code, body)
		}
	}
	// the viewer's token is not the owner's
	if code, _, _ := page(t, s, http.MethodPost, "/dashboard/run", asOwner, run, nil); code != http.StatusForbidden {
		t.Errorf("another session's token: %d", code)
	}

	if code, _, _ := page(t, s, http.MethodGet, "/dashboard/workflows?ws="+uuid.NewString(), asViewer, nil, nil); code != http.StatusNotFound {
		t.Errorf("a workspace the viewer is not in: %d", code)
	}
	if code, h, _ := page(t, s, http.MethodGet, "/dashboard/new", "", nil, nil); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/login?next=%2Fdashboard%2Fnew" {
		t.Errorf("signed out: %d %v", code, h)
	}

	// a wrong password, through the login form and its nonce cookie
	_, h, body = page(t, s, http.MethodGet, "/dashboard/login", "", nil, nil)
	nonce := (&http.Response{Header: h}).Cookies()
	if len(nonce) != 1 || nonce[0].Name != "svc_csrf" || !nonce[0].HttpOnly || nonce[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("the login page's cookie: %v", h.Values("Set-Cookie"))
	}
	login := url.Values{"csrf_token": {csrfOf(t, body)}, "email": {owner.Email}, "password": {"not the password"}}
	code, _, body = page(t, s, http.MethodPost, "/dashboard/login", "svc_csrf="+nonce[0].Value, login, nil)
	if code != http.StatusUnauthorized || !strings.Contains(body, "The email or the password is wrong.") || !strings.Contains(body, `value="`+owner.Email+`"`) {
		t.Errorf("a wrong password: %d %.2000s", code, body)
	}
}

// TestDashboardInBrowser drives the dashboard in headless Chromium:
// sign up, confirm the email from the mailed link, plan a task and see
// its cost, run it and watch it complete live over the event stream,
// read the deliverable, its quality review and step outputs, find it in
// the listing, read the pages at 360 px and by keyboard, and log out.
// The main pages are written to docs/screenshots/. Skipped, saying so,
// where no Chromium is installed.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Match: "kind=step", Delay: 700 * time.Millisecond}) // a run takes seconds: long enough to watch
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	email := uniqueEmail("browser")

	// signed out, the dashboard asks to log in; sign up from there
	b.do("open the dashboard", chromedp.Navigate(s.base+"/dashboard"))
	b.waitText("h1", "Log in", 30*time.Second)
	b.checkPage("login")
	b.do("sign up", chromedp.Click(chromedp.CSS(`a[href="/dashboard/signup"]`)))
	b.waitText("h1", "Sign up", 30*time.Second)
	b.checkPage("signup")
	b.do("fill the signup form",
		chromedp.SendKeys(chromedp.ID("name"), "Ann Browser"),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"),
		chromedp.Submit(chromedp.ID("password")))
	b.waitText(".notice", "open it to confirm your email", 30*time.Second)
	b.waitText(".balance", "2,500 credits", 5*time.Second)

	// by keyboard: the first Tab reaches the skip link, Enter skips to the content
	b.do("tab", chromedp.KeyEvent(kb.Tab))
	if cls := eval[string](b, `document.activeElement.className`); cls != "skip" {
		t.Errorf("the first Tab focuses %q, not the skip link", cls)
	}
	b.do("enter", chromedp.KeyEvent(kb.Enter))
	b.waitFor("the skip link moves the focus to the content", `document.activeElement && document.activeElement.id === "main"`, 5*time.Second)

	// the mailed link confirms the email (2,500 more credits) and comes back signed in
	link := mailedLink(t, email, regexp.MustCompile(`^Confirm your email`), regexp.MustCompile(`https?://\S+/api/auth/callback\?code=\S+`))
	b.do("open the mailed link", chromedp.Navigate(s.base+link[strings.Index(link, "/api/auth/callback"):]))
	b.waitText(".balance", "5,000 credits", 30*time.Second)
	b.waitText("h1", "Workflows", 5*time.Second)
	b.checkPage("workflows, empty")

	// a new task: its plan and cost before anything runs
	b.do("new task", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/new"]`)))
	b.waitText("h1", "New task", 30*time.Second)
	b.checkPage("new task")
	b.do("describe the task",
		chromedp.SendKeys(chromedp.ID("task_description"), "Write a process improvement plan for our support ticket triage"),
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/plan"] button[type=submit]`)))
	b.waitText(".plan h2", "credits", 30*time.Second)
	b.checkPage("plan")
	if steps := eval[int](b, `document.querySelectorAll('.plan .steps li').length`); steps < 3 {
		t.Errorf("the plan shows %d steps", steps)
	}
	b.screenshot("dashboard-plan")

	// run it, and watch it live: steps complete on the page before the run ends
	b.do("run", chromedp.Click(chromedp.CSS(`form[action="/dashboard/run"] button[type=submit]`)))
	b.waitFor("the workflow page follows the run", `!!document.getElementById("live")`, 30*time.Second)
	b.waitFor("a step completes live", `document.querySelectorAll('#live-log li.done').length >= 1 && !!document.getElementById("live")`, 60*time.Second)
	b.screenshot("dashboard-workflow-live")
	b.waitFor("the run completes and the page shows the deliverable", `!!document.getElementById("deliverable-h")`, 130*time.Second)
	b.waitText(".facts", "completed", 5*time.Second)
	b.checkPage("workflow")
	for sel, what := range map[string]string{".deliverable .prose": "deliverable", ".score": "quality score", ".outputs li": "step output"} {
		if n := eval[int](b, `document.querySelectorAll(`+jsString(sel)+`).length`); n == 0 {
			t.Errorf("the completed workflow's page has no %s", what)
		}
	}
	if eval[bool](b, `!!document.querySelector('form[action$="/cancel"]')`) {
		t.Error("a completed workflow offers cancel")
	}
	b.screenshot("dashboard-workflow")
	workflowURL := eval[string](b, `location.href`)

	// at 360 px the pages fit the width
	b.do("narrow", chromedp.EmulateViewport(360, 780))
	b.do("reload", chromedp.Reload())
	b.waitFor("the page reloads", `!!document.getElementById("deliverable-h")`, 30*time.Second)
	b.checkPage("workflow at 360 px")
	b.screenshot("dashboard-workflow-360")

	// the listing finds it by search
	b.do("search", chromedp.Navigate(s.base+"/dashboard/workflows?q=triage"))
	listed := `(document.querySelector("table.list") || {textContent: ""}).textContent.indexOf("completed") >= 0`
	b.reloadUntil("the listing shows the workflow completed", listed, 60*time.Second)
	b.checkPage("workflows at 360 px")
	b.do("wide", chromedp.EmulateViewport(1440, 900))
	b.do("reload", chromedp.Reload())
	b.waitFor("the listing reloads", listed, 30*time.Second)
	b.checkPage("workflows")
	if n := eval[int](b, `document.querySelectorAll('table.list tbody tr').length`); n != 1 {
		t.Errorf("searching for triage lists %d workflows", n)
	}
	b.screenshot("dashboard-workflows")

	// log out: the pages ask to log in again
	b.do("log out", chromedp.Click(chromedp.CSS(`form[action="/dashboard/logout"] button`)))
	b.waitText(".notice", "You are signed out.", 30*time.Second)
	b.do("open the workflow signed out", chromedp.Navigate(workflowURL))
	b.waitText("h1", "Log in", 30*time.Second)
	b.noConsoleErrors()
}

// TestDashboardControls: the workflow page's actions through its forms,
// against a real run: approve at an approval gate, drive a step-by-step
// run (next, skip, end), cancel a running one, file a workflow into a new
// folder and filter the listing by it.
func TestDashboardControls(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Match: "kind=step", Delay: 300 * time.Millisecond})
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	owner := s.signUpPerson(t, "dash-controls")
	setTier(t, s, owner, "pro") // step-by-step runs need a paid tier
	s.grant(t, account{OrgID: owner.OrgID, Key: s.keyWithRole(t, owner, owner.WorkspaceID, "owner")}, 50000)
	cookie := "svc_session=" + owner.Access
	_, _, body := page(t, s, http.MethodGet, "/dashboard/new", cookie, nil, nil)
	token := csrfOf(t, body)
	post := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf_token", token)
		code, h, body := page(t, s, http.MethodPost, path, cookie, form, nil)
		if code != http.StatusSeeOther {
			t.Fatalf("POST %s: %d %.2000s", path, code, body)
		}
		return h.Get("Location")
	}
	planned := func(form url.Values) string {
		t.Helper()
		form.Set("csrf_token", token)
		_, _, body := page(t, s, http.MethodPost, "/dashboard/plan", cookie, form, nil)
		m := regexp.MustCompile(`id="plan-(wr_[0-9a-f]{32})"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no plan: %.3000s", body)
		}
		return m[1]
	}
	// waitPage waits until the workflow's page holds every want.
	waitPage := func(id string, want ...string) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, _, body := page(t, s, http.MethodGet, "/dashboard/workflows/"+id, cookie, nil, nil)
			missing := ""
			for _, w := range want {
				if !strings.Contains(body, w) {
					missing = w
				}
			}
			if missing == "" {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page of %s does not show %q within 60 s: %.3000s", id, missing, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// an approval gate: the page offers approve to an owner; approved, the run completes
	gated := planned(url.Values{"task_description": {"Write a process improvement plan for our invoice approvals"}, "require_approval": {"1"}})
	post("/dashboard/run", url.Values{"workflow_id": {gated}})
	waitPage(gated, `action="/dashboard/workflows/`+gated+`/approve"`, "/reject")
	if loc := post("/dashboard/workflows/"+gated+"/approve", url.Values{"notes": {"Keep it short."}}); !strings.Contains(loc, "done=approve") {
		t.Errorf("approve went to %s", loc)
	}
	waitPage(gated, "s-completed", `id="deliverable-h"`)

	// step by step: next runs one step, skip passes one, end stops the session
	stepped := planned(url.Values{"task_description": {"Write a process improvement plan for our warehouse returns"}, "rigor_level": {"quick"}})
	post("/dashboard/run", url.Values{"workflow_id": {stepped}, "mode": {"interactive"}})
	waitPage(stepped, "/next", "/skip", "/abort")
	post("/dashboard/workflows/"+stepped+"/next", url.Values{"feedback": {"Focus on refunds."}})
	waitPage(stepped, "/next", ">1 of ")
	post("/dashboard/workflows/"+stepped+"/skip", url.Values{})
	post("/dashboard/workflows/"+stepped+"/abort", url.Values{})
	if body := waitPage(stepped, "s-aborted"); strings.Contains(body, "/next") {
		t.Error("an ended session still offers the next step")
	}

	// cancel a run while it runs (forced when a step is under way)
	running := planned(url.Values{"task_description": {"Write a process improvement plan for our hiring pipeline"}, "rigor_level": {"thorough"}})
	post("/dashboard/run", url.Values{"workflow_id": {running}})
	waitPage(running, `/cancel"`)
	post("/dashboard/workflows/"+running+"/cancel", url.Values{})
	waitPage(running, "s-cancelled")

	// a new folder, the workflow filed into it, the listing filtered by it
	loc := post("/dashboard/folders", url.Values{"name": {"Launches"}})
	folder := regexp.MustCompile(`folder=([0-9a-f-]{36})`).FindStringSubmatch(loc)
	if folder == nil {
		t.Fatalf("creating a folder went to %s", loc)
	}
	post("/dashboard/workflows/"+gated+"/file", url.Values{"folder_id": {folder[1]}})
	_, _, body = page(t, s, http.MethodGet, "/dashboard/workflows?folder="+folder[1], cookie, nil, nil)
	if !strings.Contains(body, "/dashboard/workflows/"+gated) || strings.Contains(body, "/dashboard/workflows/"+running) {
		t.Errorf("the folder's listing: %.3000s", body)
	}
}
