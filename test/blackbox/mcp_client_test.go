package blackbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mcpSDK is the directory of the official MCP TypeScript SDK that make
// tools installs (MCP_CLIENT_DIR), or "" with the reason it is missing.
func mcpSDK(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCP_CLIENT_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "bin", "mcpclient")
	}
	sdk, _ := filepath.Abs(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIPPED: node is not installed, so the MCP TypeScript SDK's client cannot run")
	}
	if _, err := os.Stat(filepath.Join(sdk, "package.json")); err != nil {
		t.Skipf("SKIPPED: the MCP TypeScript SDK is not installed at %s: run make tools (it needs npm)", sdk)
	}
	return sdk
}

// runClient runs the TypeScript client script of testdata/mcpclient with
// env and returns what it printed.
func runClient(t *testing.T, script string, env ...string) []byte {
	t.Helper()
	cmd := exec.Command("node", filepath.Join("testdata", "mcpclient", script))
	cmd.Env = append(os.Environ(), env...)
	raw, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("the TypeScript client %s failed: %v\n%s", script, err, stderr)
	}
	return raw
}

// toolCall is what the TypeScript client saw of one tool call.
type toolCall struct {
	IsError    bool           `json:"isError"`
	Structured map[string]any `json:"structured"`
	Text       string         `json:"text"`
}

// TestSuiteToolServerTypeScriptClient drives POST /api/mcp with the
// official TypeScript SDK's client over streamable HTTP: initialize, ping,
// tools/list, and tool calls of two products charged as their REST routes.
func TestSuiteToolServerTypeScriptClient(t *testing.T) {
	t.Parallel()
	sdk := mcpSDK(t)
	s := sharedServer(t)
	a := s.signup(t, nil)
	raw := runClient(t, "suite.mjs", "MCP_URL="+s.base+"/api/mcp", "MCP_KEY="+a.Key, "MCP_SDK="+sdk)
	var out struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Tools []struct {
			Name     string `json:"name"`
			ReadOnly *bool  `json:"readOnly"`
		} `json:"tools"`
		Stats, Check, Estimate, Refused toolCall
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("client output %s: %v", raw, err)
	}
	if out.Server.Name != "svc" {
		t.Errorf("server %+v", out.Server)
	}
	names := map[string]bool{}
	for _, tool := range out.Tools {
		names[tool.Name] = true
		if tool.Name == "burnrate_budget" && (tool.ReadOnly == nil || !*tool.ReadOnly) {
			t.Errorf("burnrate_budget is not read-only: %+v", tool)
		}
	}
	for _, want := range []string{"svc", "dedupq_check", "dedupq_complete", "burnrate_estimate", "guardrail_check", "pitfalldb_query", "qualitygate_validate"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if out.Stats.IsError || out.Stats.Structured["credits_used"] != float64(0) || !strings.HasPrefix(str(t, out.Stats.Structured, "request_id"), "req_") {
		t.Errorf("svc dedupq.stats: %+v", out.Stats)
	}
	balance := out.Stats.Structured["credits_remaining"].(float64)
	if out.Check.IsError || out.Check.Structured["credits_used"] != float64(1) || out.Check.Structured["credits_remaining"] != balance-1 ||
		out.Check.Structured["duplicate"] != false {
		t.Errorf("dedupq_check: %+v (balance before %v)", out.Check, balance)
	}
	if out.Estimate.IsError || out.Estimate.Structured["credits_used"] != float64(1) || out.Estimate.Structured["estimate"] == nil {
		t.Errorf("burnrate_estimate: %+v", out.Estimate)
	}
	if !out.Refused.IsError || out.Refused.Structured["error"] != "invalid_request" || out.Refused.Structured["status"] != float64(400) {
		t.Errorf("an unknown action: %+v", out.Refused)
	}
	// the tool's text is the same answer as JSON
	var text map[string]any
	if err := json.Unmarshal([]byte(out.Check.Text), &text); err != nil || text["request_id"] != out.Check.Structured["request_id"] {
		t.Errorf("dedupq_check's text content %q is not its answer", out.Check.Text)
	}
	// and the REST route reads the checks made through the tools at once
	res := s.do(t, req{Method: "GET", Path: "/api/dedupq/stats", Key: a.Key})
	wantStatus(t, res, 200)
	if integer(t, res.Body, "total_checks") != 1 {
		t.Errorf("stats after a check through the tool server: %v", res.Body)
	}
}

// TestSuiteToolManifest: GET /api/mcp is public and lists the tools with
// input schemas and hints; a client asking for an event stream gets 405.
func TestSuiteToolManifest(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	res := s.do(t, req{Path: "/api/mcp"})
	wantStatus(t, res, 200)
	if str(t, res.Body, "protocol") != "mcp" || str(t, res.Body, "endpoint") != s.base+"/api/mcp" {
		t.Errorf("manifest %v", res.Body)
	}
	tools, _ := res.Body["tools"].([]any)
	if len(tools) != 15 {
		t.Errorf("%d tools, want spec C's 14 and svc", len(tools))
	}
	res = s.do(t, req{Path: "/api/mcp", Header: map[string]string{"Accept": "text/event-stream"}})
	wantError(t, res, 405, "method_not_allowed")
}

// TestWorkflowMCPTypeScriptClient drives POST /api/mcp/rigor with the
// official TypeScript SDK's client: the listed tools, a plan, its run
// followed through progress notifications to the end, and the status
// with the deliverable as structured content.
func TestWorkflowMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	sdk := mcpSDK(t)
	s := sharedServer(t)
	a := s.signup(t, nil)
	raw := runClient(t, "rigor.mjs", "MCP_URL="+s.base+"/api/mcp/rigor", "MCP_KEY="+a.Key, "MCP_SDK="+sdk)
	var out struct {
		Tools []string `json:"tools"`
		Plan  struct {
			IsError    bool   `json:"isError"`
			WorkflowID string `json:"workflow_id"`
		} `json:"plan"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
		} `json:"progress"`
		Run struct {
			IsError bool   `json:"isError"`
			Status  string `json:"status"`
		} `json:"run"`
		Status struct {
			Status      string `json:"status"`
			Deliverable bool   `json:"deliverable"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("client output %s: %v", raw, err)
	}
	if strings.Join(out.Tools, ",") != "rigor_execute,rigor_plan,rigor_status" {
		t.Errorf("tools/list: %v", out.Tools)
	}
	if out.Plan.IsError || out.Plan.WorkflowID == "" {
		t.Fatalf("rigor_plan: %+v (%s)", out.Plan, raw)
	}
	if out.Run.IsError || out.Run.Status != "completed" || out.Status.Status != "completed" || !out.Status.Deliverable {
		t.Errorf("the run through the tools: %s", raw)
	}
	if len(out.Progress) == 0 || out.Progress[len(out.Progress)-1].Total == 0 {
		t.Errorf("no progress notifications with a total: %s", raw)
	}
}

// TestWorkflowMCPAnonymousTypeScriptClient: without a key the TypeScript
// SDK's client lists the tools and plans (in the demo organization);
// reading the plan back needs a key (401 missing_api_key as a tool error).
func TestWorkflowMCPAnonymousTypeScriptClient(t *testing.T) {
	t.Parallel()
	sdk := mcpSDK(t)
	s := sharedServer(t)
	raw := runClient(t, "rigor_anon.mjs", "MCP_URL="+s.base+"/api/mcp/rigor", "MCP_SDK="+sdk, "MCP_IP="+nextIP())
	var out struct {
		Tools []string `json:"tools"`
		Plan  struct {
			IsError    bool   `json:"isError"`
			WorkflowID string `json:"workflow_id"`
		} `json:"plan"`
		Status struct {
			IsError bool   `json:"isError"`
			Code    string `json:"code"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("client output %s: %v", raw, err)
	}
	if strings.Join(out.Tools, ",") != "rigor_execute,rigor_plan,rigor_status" {
		t.Errorf("tools/list without a key: %v", out.Tools)
	}
	if out.Plan.IsError || !workflowID.MatchString(out.Plan.WorkflowID) {
		t.Fatalf("anonymous rigor_plan: %s", raw)
	}
	if !out.Status.IsError || out.Status.Code != "missing_api_key" {
		t.Errorf("rigor_status without a key: %s", raw)
	}
}

// TestMCPInspectorCLI: the MCP Inspector's CLI mode (pinned in the
// Makefile, make tools installs it) lists and calls the tools of both MCP
// servers with an API key header.
func TestMCPInspectorCLI(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MCP_INSPECTOR_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "bin", "mcpinspector")
	}
	bin, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", "mcp-inspector"))
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("SKIPPED: node is not installed, so the MCP Inspector cannot run")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SKIPPED: the MCP Inspector is not installed at %s: run make tools (it needs npm)", bin)
	}
	s := sharedServer(t)
	a := s.signup(t, nil)
	inspect := func(path string, args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--cli", s.base + path, "--transport", "http", "--header", "x-api-key: " + a.Key}, args...)...)
		cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"))
		raw, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("mcp-inspector %v: %v\n%s\n%s", args, err, raw, stderr)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("mcp-inspector %v printed %s: %v", args, raw, err)
		}
		return out
	}
	tools, _ := inspect("/api/mcp", "--method", "tools/list")["tools"].([]any)
	if len(tools) != 15 {
		t.Errorf("tools/list of /api/mcp: %d tools, want 15", len(tools))
	}
	text := func(res map[string]any) string {
		content, _ := res["content"].([]any)
		if len(content) == 0 {
			return ""
		}
		first, _ := content[0].(map[string]any)
		s, _ := first["text"].(string)
		return s
	}
	if got := text(inspect("/api/mcp", "--method", "tools/call", "--tool-name", "svc", "--tool-arg", "action=dedupq.stats")); !strings.Contains(got, `"credits_used":0`) {
		t.Errorf("svc dedupq.stats through the Inspector: %s", got)
	}
	tools, _ = inspect("/api/mcp/rigor", "--method", "tools/list")["tools"].([]any)
	if len(tools) != 3 {
		t.Errorf("tools/list of /api/mcp/rigor: %d tools, want 3", len(tools))
	}
	if got := text(inspect("/api/mcp/rigor", "--method", "tools/call", "--tool-name", "rigor_plan",
		"--tool-arg", "task_description=compare our pricing with three competitors")); !strings.Contains(got, `"workflow_id":"wr_`) {
		t.Errorf("rigor_plan through the Inspector: %s", got)
	}
}
