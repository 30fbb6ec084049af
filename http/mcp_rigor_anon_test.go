package httpapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/workflow"
	httpapi "svc/http"
)

// anonSession connects the go-sdk's client to the workflow MCP server
// without a key.
func anonSession(t *testing.T, f *fixture) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-anon", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.ts.URL + "/api/mcp/rigor"}, nil)
	if err != nil {
		t.Fatalf("connect without a key: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func anonPlan(t *testing.T, s *mcp.ClientSession, desc string) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "rigor_plan", Arguments: map[string]any{"task_description": desc}})
	if err != nil {
		t.Fatalf("rigor_plan: %v", err)
	}
	return res, structured(t, res)
}

// TestRigorMCPAnonymous: without a key a client initializes, lists the
// tools and plans, in the demo organization; every other tool answers
// missing_api_key, the demo organization's workflows included; a keyed
// caller cannot read them either; anonymous plans reach no context server.
func TestRigorMCPAnonymous(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	owner, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, owner)
	ctx := context.Background()

	if code, body := f.call(t, "POST", "/api/mcp/rigor", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}); code != 200 || body["error"] != nil {
		t.Errorf("ping without a key: %d %v", code, body)
	}
	session := anonSession(t, f)
	if names := toolNames(t, session); !slices.Equal(names, []string{"rigor_execute", "rigor_plan", "rigor_status"}) {
		t.Errorf("tools/list without a key: %v", names)
	}

	res, body := anonPlan(t, session, "compare our pricing with three competitors")
	plan, _ := body["plan"].(map[string]any)
	id, _ := plan["workflow_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("anonymous rigor_plan: %v", body)
	}
	events, err := store.Load(ctx, workflow.Stream(id))
	if err != nil || len(events) == 0 || events[0].Metadata.OrgID != commands.DemoOrgID || events[0].Metadata.Actor != "key:"+commands.DemoKeyID {
		t.Fatalf("the anonymous plan's events: %+v %v", events, err)
	}

	for _, call := range []mcp.CallToolParams{
		{Name: "rigor_status", Arguments: map[string]any{"workflow_id": id}},
		{Name: "rigor_execute", Arguments: map[string]any{"workflow_id": id}},
		{Name: "rigor_execute", Arguments: map[string]any{"task_description": "compare our pricing with three competitors"}},
		{Name: "rigor_resume", Arguments: map[string]any{"workflow_id": id}},
		{Name: "rigor_approve", Arguments: map[string]any{"workflow_id": id, "decision": "approve"}},
		{Name: "rigor_step", Arguments: map[string]any{"workflow_id": id, "action": "next"}},
	} {
		res, err := session.CallTool(ctx, &call)
		if err != nil {
			t.Fatalf("%s: %v", call.Name, err)
		}
		if body := structured(t, res); !res.IsError || errorCode(body) != "missing_api_key" {
			t.Errorf("%s without a key: %v", call.Name, body)
		}
	}
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_plan", Arguments: map[string]any{"task_description": "audit our repository",
		"available_mcp_connections": []any{map[string]any{"id": "r", "label": "r", "server_url": "https://example.com/mcp"}}}})
	if body := structured(t, res); !res.IsError || errorCode(body) != "invalid_field" {
		t.Errorf("an anonymous plan with connections: %v", body)
	}

	// the demo organization's workflow is another organization's to a key
	keyed := rigorSession(t, f, owner)
	res, _ = keyed.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_status", Arguments: map[string]any{"workflow_id": id}})
	if body := structured(t, res); !res.IsError || errorCode(body) != "not_found" {
		t.Errorf("the demo workflow read with a key: %v", body)
	}
}

// TestRigorMCPAnonymousLimits: 30 anonymous plans a minute per address,
// counted by the real limiter; the 31st is a tool error with spec A's 429
// envelope and its retry hint, while a keyed caller plans on. The daily
// limit (500) is checked with a limiter that lowers it to 2.
func TestRigorMCPAnonymousLimits(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	owner, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, owner)
	session := anonSession(t, f)
	for i := range 30 {
		if res, body := anonPlan(t, session, "draft a launch plan for our mobile app"); res.IsError {
			t.Fatalf("anonymous plan %d: %v", i+1, body)
		}
	}
	res, body := anonPlan(t, session, "draft a launch plan for our mobile app")
	e, _ := body["error"].(map[string]any)
	details, _ := e["details"].(map[string]any)
	if !res.IsError || errorCode(body) != "rate_limit_exceeded" || details["limit"] != float64(30) ||
		body["retry_after"] == nil || details["retry_after"] == nil || e["request_id"] == nil || !strings.Contains(e["fix"].(string), "x-api-key") {
		t.Fatalf("the 31st anonymous plan: %v", body)
	}
	if secs, _ := body["retry_after"].(float64); secs < 1 || secs > 60 {
		t.Errorf("retry_after %v", body["retry_after"])
	}
	if res, body := anonPlan(t, rigorSession(t, f, owner), "draft a launch plan for our mobile app"); res.IsError {
		t.Errorf("a keyed plan after the anonymous limit: %v", body)
	}

	g := newFixture(t, tinyDay{apiLimiter: memoryLimiter().(apiLimiter), day: 2}, nil)
	g.start(t)
	day := anonSession(t, g)
	for range 2 {
		if res, body := anonPlan(t, day, "draft a launch plan for our mobile app"); res.IsError {
			t.Fatalf("anonymous plan under the day's limit: %v", body)
		}
	}
	res, body = anonPlan(t, day, "draft a launch plan for our mobile app")
	e, _ = body["error"].(map[string]any)
	if secs, _ := body["retry_after"].(float64); !res.IsError || errorCode(body) != "rate_limit_exceeded" ||
		!strings.Contains(e["message"].(string), "per UTC day") || secs < 1 || secs > 86400 {
		t.Fatalf("past the day's limit: %v", body)
	}
}

// tinyDay lowers the anonymous daily limit to day.
type tinyDay struct {
	apiLimiter
	day int
}

func (l tinyDay) AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (httpapi.LimitDecision, error) {
	if strings.HasPrefix(key, "anon-day:") {
		limit = l.day
	}
	return l.apiLimiter.AllowUntil(ctx, key, limit, reset)
}
