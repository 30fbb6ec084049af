package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/domain/apikey"
)

// keyHeader adds x-api-key to every request of an MCP client.
type keyHeader struct {
	key  string
	base http.RoundTripper
}

func (k keyHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("x-api-key", k.key)
	return k.base.RoundTrip(r)
}

// mcpSession connects the go-sdk's client to the tool server with key.
func mcpSession(t *testing.T, f *fixture, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: f.ts.URL + "/api/mcp",
		HTTPClient: &http.Client{Transport: keyHeader{key: key, base: http.DefaultTransport}}}
	session, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// structured is a tool result's structured content as an object.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	return out
}

// TestSuiteMCPManifest: GET /api/mcp is the manifest, public; a client
// asking for an event stream is told 405 (the server is stateless).
func TestSuiteMCPManifest(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	code, body := f.call(t, "GET", "/api/mcp", "", nil)
	if code != 200 || body["protocol"] != "mcp" || body["version"] == "" {
		t.Fatalf("manifest: %d %v", code, body)
	}
	tools, _ := body["tools"].([]any)
	var names []string
	for _, raw := range tools {
		tool := raw.(map[string]any)
		names = append(names, tool["name"].(string))
		schema, _ := tool["inputSchema"].(map[string]any)
		if schema["type"] != "object" || tool["annotations"] == nil || tool["description"] == "" {
			t.Errorf("tool %v: want an object input schema, annotations and a description", tool)
		}
	}
	if !slices.Contains(names, "svc") {
		t.Errorf("tools %v lack svc", names)
	}
	// every operation of spec C's manifest has its tool
	for _, r := range f.srv.SuiteRoutes() {
		if manifestAction(r.Name) && !slices.Contains(names, strings.ReplaceAll(r.Name, ".", "_")) {
			t.Errorf("operation %s has no tool in the manifest %v", r.Name, names)
		}
	}

	req, _ := http.NewRequest("GET", f.ts.URL+"/api/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET with Accept: text/event-stream: %d (Allow %q), want 405", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// manifestAction reports whether spec C's manifest has a tool for action.
func manifestAction(action string) bool {
	return slices.Contains([]string{"dedupq.check", "dedupq.complete", "burnrate.estimate", "burnrate.track", "burnrate.optimize",
		"burnrate.budget", "qualitygate.validate", "qualitygate.trends", "guardrail.check", "guardrail.create_policy",
		"guardrail.list_policies", "pitfalldb.query", "pitfalldb.report", "pitfalldb.stats"}, action)
}

// TestSuiteMCPRefusals: a call without a valid key is 401 in the suite's
// envelope; malformed JSON-RPC gets JSON-RPC's error codes.
func TestSuiteMCPRefusals(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	ping := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}
	if code, body := f.call(t, "POST", "/api/mcp", "", ping); code != 401 || body["error"] != "missing_api_key" || body["status"] != float64(401) {
		t.Errorf("without a key: %d %v", code, body)
	}
	if code, body := f.call(t, "POST", "/api/mcp", "svc_live_"+strings.Repeat("0", 48), ping); code != 401 || body["error"] != "invalid_api_key" {
		t.Errorf("with an unknown key: %d %v", code, body)
	}
	for _, c := range []struct {
		body string
		code float64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
		{`{"id":1,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, -32601},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"svc"}}`, -32600},
	} {
		req, _ := http.NewRequest("POST", f.ts.URL+"/api/mcp", strings.NewReader(c.body))
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code float64 `json:"code"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != 200 || out.JSONRPC != "2.0" || out.Error.Code != c.code {
			t.Errorf("%s: %d %+v, want JSON-RPC error %v", c.body, resp.StatusCode, out, c.code)
		}
	}
}

// TestSuiteMCPClient drives the tool server with the go-sdk's client:
// initialize, ping, tools/list, and calls through svc and a product's own
// tool, charged and answered as the REST route is.
func TestSuiteMCPClient(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	session := mcpSession(t, f, key)
	ctx := context.Background()
	if err := session.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, manifest := f.call(t, "GET", "/api/mcp", "", nil)
	if len(list.Tools) != len(manifest["tools"].([]any)) {
		t.Errorf("tools/list has %d tools, the manifest %d", len(list.Tools), len(manifest["tools"].([]any)))
	}

	// svc with an action: the REST answer, metadata included
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "svc", Arguments: map[string]any{"action": "dedupq.stats"}})
	if err != nil || res.IsError {
		t.Fatalf("svc dedupq.stats: %v %+v", err, res)
	}
	stats := structured(t, res)
	if !strings.HasPrefix(stats["request_id"].(string), "req_") || stats["credits_used"] != float64(0) || stats["fallback_behavior"] != "none" {
		t.Errorf("dedupq.stats through svc: %v", stats)
	}
	before := stats["credits_remaining"].(float64)

	// a product's own tool is charged as its route is
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "dedupq_check", Arguments: map[string]any{"content": "summarize the Q3 board deck"}})
	if err != nil || res.IsError {
		t.Fatalf("dedupq_check: %v %+v", err, res)
	}
	check := structured(t, res)
	if check["credits_used"] != float64(1) || check["credits_remaining"] != before-1 || check["duplicate"] != false {
		t.Errorf("dedupq_check: %v (balance before %v)", check, before)
	}
	// dedupq_complete as the manifest has it: content and result, no task_id
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "dedupq_complete",
		Arguments: map[string]any{"content": "summarize the Q3 board deck", "result": map[string]any{"summary": "ok"}}})
	if err != nil || res.IsError {
		t.Fatalf("dedupq_complete without task_id: %v %+v", err, structured(t, res))
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "dedupq_check", Arguments: map[string]any{"content": "summarize the Q3 board deck"}})
	if err != nil || res.IsError || structured(t, res)["duplicate"] != true {
		t.Errorf("a check after a completion through the tools: %v %+v", err, structured(t, res))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"duplicate":true`) {
		t.Errorf("the text content is not the JSON answer: %s", text)
	}

	// refusals are tool errors in the suite's envelope
	for _, c := range []struct {
		args map[string]any
		tool string
		code string
	}{
		{map[string]any{"action": "nope.nothing"}, "svc", "invalid_request"},
		{map[string]any{}, "svc", "invalid_request"},
		{map[string]any{"action": "dedupq.check", "params": map[string]any{}}, "svc", "invalid_request"},
		{map[string]any{"task_id": 5}, "dedupq_check", "invalid_request"},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		body := structured(t, res)
		if !res.IsError || body["error"] != c.code || body["status"] != float64(400) || body["request_id"] == "" {
			t.Errorf("%s %v: %+v, want isError %s", c.tool, c.args, body, c.code)
		}
	}
}
