package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/domain/apikey"
)

// rigorSession connects the go-sdk's client to the workflow MCP server.
func rigorSession(t *testing.T, f *fixture, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: f.ts.URL + "/api/mcp/rigor",
		HTTPClient: &http.Client{Transport: keyHeader{key: key, base: http.DefaultTransport}}}
	session, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// TestRigorMCP: the workflow MCP server lists rigor_plan, rigor_execute
// and rigor_status; each tool answers what its REST route answers, with
// the route's roles and refusals; the unlisted tools answer a call.
func TestRigorMCP(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	owner, _ := keyWithRole(t, apikey.Owner)
	viewer, _ := keyWithRole(t, apikey.Viewer)
	waitKey(t, f, owner)
	waitKey(t, f, viewer)
	ping := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}
	if code, body := f.call(t, "POST", "/api/mcp/rigor", "svc_live_"+strings.Repeat("0", 48), ping); code != 401 || errorCode(body) != "invalid_api_key" {
		t.Errorf("with an unknown key: %d %v", code, body)
	}

	session := rigorSession(t, f, owner)
	ctx := context.Background()
	if names := toolNames(t, session); !slices.Equal(names, []string{"rigor_execute", "rigor_plan", "rigor_status"}) {
		t.Errorf("tools/list: %v", names)
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_plan", Arguments: map[string]any{"task_description": "compare our pricing with three competitors"}})
	if err != nil || res.IsError {
		t.Fatalf("rigor_plan: %v %+v", err, res)
	}
	plan, _ := structured(t, res)["plan"].(map[string]any)
	id, _ := plan["workflow_id"].(string)
	if id == "" {
		t.Fatalf("rigor_plan: %v", structured(t, res))
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_status", Arguments: map[string]any{"workflow_id": id}})
	if err != nil || res.IsError {
		t.Fatalf("rigor_status: %v %+v", err, res)
	}
	if wf, _ := structured(t, res)["workflow"].(map[string]any); wf["status"] != "planned" {
		t.Errorf("rigor_status: %v", structured(t, res))
	}

	// refusals are the routes' own, as tool errors
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_plan", Arguments: map[string]any{}})
	if body := structured(t, res); !res.IsError || errorCode(body) != "missing_field" {
		t.Errorf("rigor_plan without a description: %+v", body)
	}
	res, _ = session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_step", Arguments: map[string]any{"workflow_id": "wr_nope", "action": "next"}})
	if body := structured(t, res); !res.IsError || errorCode(body) == "" {
		t.Errorf("the unlisted rigor_step answers a call with the route's refusal: %+v", body)
	}
	viewerSession := rigorSession(t, f, viewer)
	res, _ = viewerSession.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_execute", Arguments: map[string]any{"workflow_id": id}})
	if body := structured(t, res); !res.IsError || errorCode(body) != "insufficient_permissions" {
		t.Errorf("rigor_execute as a viewer: %+v", body)
	}
	// execute queues the plan (delivery defaults to polling)
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_execute", Arguments: map[string]any{"workflow_id": id}})
	if err != nil || res.IsError {
		t.Fatalf("rigor_execute: %v %+v", err, structured(t, res))
	}
	if body := structured(t, res); body["workflow_id"] != id {
		t.Errorf("rigor_execute: %v", body)
	}
}

// toolNames lists the names of session's tools, sorted.
func toolNames(t *testing.T, session *mcp.ClientSession) []string {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}
