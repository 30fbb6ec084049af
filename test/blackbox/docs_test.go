package blackbox

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIServed: the binary serves its OpenAPI 3.1 document, valid,
// and GET /docs answers the rendered reference to a browser, the route
// index as JSON when asked, and the renderer's scripts from the binary.
func TestOpenAPIServed(t *testing.T) {
	s := sharedServer(t)
	res := s.do(t, req{Path: "/openapi.json"})
	wantStatus(t, res, http.StatusOK)
	doc, err := openapi3.NewLoader().LoadFromData(res.Raw)
	if err != nil {
		t.Fatalf("GET /openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("GET /openapi.json: OpenAPI %s: %v", doc.OpenAPI, err)
	}
	if doc.Servers[0].URL != s.base {
		t.Errorf("servers[0] is %q, want SVC_BASE_URL %q", doc.Servers[0].URL, s.base)
	}
	for _, p := range []string{"/api/rigor/plan", "/api/rigor/execute", "/api/rigor/status/{workflow_id}", "/api/keys", "/api/workspaces/{id}/members"} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("the document lacks %s", p)
		}
	}

	page := s.do(t, req{Path: "/docs", Header: map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}})
	wantStatus(t, page, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET /docs for a browser: Content-Type %q", ct)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("GET /docs: Content-Security-Policy %q keeps nothing on this origin", csp)
	}
	srcs := regexp.MustCompile(`src="([^"]+)"`).FindAllStringSubmatch(string(page.Raw), -1)
	if len(srcs) == 0 {
		t.Fatalf("GET /docs: no script: %s", page.Raw)
	}
	for _, m := range srcs {
		if !strings.HasPrefix(m[1], "/docs/") {
			t.Errorf("GET /docs loads %s, not from this binary", m[1])
		}
		script := s.do(t, req{Path: strings.SplitN(m[1], "?", 2)[0]})
		wantStatus(t, script, http.StatusOK)
		if ct := script.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") || len(script.Raw) < 100 {
			t.Errorf("%s: %q, %d bytes", m[1], ct, len(script.Raw))
		}
	}
	wantError(t, s.do(t, req{Path: "/docs/nothing.js"}), http.StatusNotFound, "not_found")

	index := s.do(t, req{Path: "/docs", Header: map[string]string{"Accept": "application/json"}})
	wantStatus(t, index, http.StatusOK)
	if eps, _ := index.Body["endpoints"].([]any); len(eps) < 70 {
		t.Errorf("GET /docs as JSON lists %d endpoints", len(eps))
	}
}

// chromium is the headless browser of this machine, "" when none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestDocsRender opens GET /docs in headless Chromium, with every host but
// the server's address unresolvable (so a renderer loading anything from a
// CDN would not render), and requires the reference rendered from the
// document: its tag groups, an operation, the search, the API key
// authentication (x-api-key) and the request example "Test Request" sends,
// x-api-key included. Skipped, saying so, where no Chromium is installed.
func TestDocsRender(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("SKIPPED: no chromium, chromium-browser or google-chrome on PATH: GET /docs was not rendered in a browser (apt-get install chromium)")
	}
	s := sharedServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless=new", "--disable-gpu", "--no-first-run", "--disable-extensions", "--user-data-dir=" + t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--virtual-time-budget=20000",
		"--dump-dom", s.base + "/docs#tag/planning/POST/api/rigor/plan"}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...) // Chromium refuses to run as root with its sandbox
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, browser, args...)
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.Bytes())
	}
	text := visibleText(dom)
	for _, want := range []string{
		"svc API reference", "Workflow API (spec A)", "Platform (spec B)", // the title and tag groups
		"Plan a task", "POST", "task_description", // an operation from the document
		"Search",    // the search
		"x-api-key", // the API key scheme under Authentication
		"--header 'x-api-key: YOUR_SECRET_TOKEN'", // the key in the request Test Request sends
		"Test Request",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered /docs lacks %q:\n%.3000s", want, text)
		}
	}
	if t.Failed() {
		raw, _ := json.Marshal(stderr.String())
		t.Logf("chromium stderr: %.2000s", raw)
	}
}

var (
	domNoise = regexp.MustCompile(`(?s)<(style|script)[^>]*>.*?</(style|script)>`)
	domTag   = regexp.MustCompile(`<[^>]+>`)
	domSpace = regexp.MustCompile(`\s+`)
)

// visibleText is the text of a dumped DOM, tags, styles and scripts
// removed, runs of white space one space.
func visibleText(dom []byte) string {
	s := domNoise.ReplaceAllString(string(dom), " ")
	s = domTag.ReplaceAllString(s, " ")
	s = strings.NewReplacer("&nbsp;", " ", "&#39;", "'", "&quot;", `"`, "&amp;", "&").Replace(s)
	return domSpace.ReplaceAllString(s, " ")
}
