package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/domain/workflow"
)

// The workflow MCP server (spec A, Workflow MCP server): POST
// /api/mcp/rigor, streamable HTTP through the go-sdk, stateless. Each tool
// is its REST route, served by the router itself with the caller's key, so
// validation, roles, credits, budgets, the llm policy, idempotency and
// errors are the route's; a refusal is a tool error carrying the route's
// error envelope. rigor_execute, given a progress token, follows the run
// and reports its steps as progress notifications.

// rigorTool is a tool of the workflow server: the route it calls.
type rigorTool struct {
	name, route, method, desc string
	// path is the route's path for the arguments (status takes its
	// workflow_id in the path).
	path func(args map[string]any) string
	// listed tools are in tools/list; the others are callable by name.
	listed, readOnly bool
}

// rigorTools are spec A's tools: three listed, the others callable by
// name.
var rigorTools = []rigorTool{
	{name: "rigor_plan", route: "rigor.plan", method: http.MethodPost, listed: true,
		desc: "Classify a task and build its costed plan (free). Arguments: POST /api/rigor/plan's body. " +
			"Without x-api-key: planned in a demo organization, 30 per minute and 500 per day per address, no connections; running it needs a key."},
	{name: "rigor_execute", route: "rigor.execute", method: http.MethodPost, listed: true,
		desc: "Execute a plan or a task (charged per step). Arguments: POST /api/rigor/execute's body; delivery defaults to polling. " +
			"With a progress token the call follows the run to its end, reporting each step, and answers its final status."},
	{name: "rigor_status", route: "rigor.status", method: http.MethodGet, listed: true, readOnly: true,
		desc: "A workflow's status, and its deliverable once completed. Arguments: {workflow_id}.",
		path: func(a map[string]any) string {
			s, _ := a["workflow_id"].(string)
			return "/api/rigor/status/" + url.PathEscape(s)
		}},
	{name: "rigor_resume", route: "rigor.resume", method: http.MethodPost, desc: "Resume a halted workflow (POST /api/rigor/resume)."},
	{name: "rigor_approve", route: "rigor.approve", method: http.MethodPost, desc: "Decide an approval gate (POST /api/rigor/approve)."},
	{name: "rigor_step", route: "rigor.step", method: http.MethodPost, desc: "Drive an interactive workflow (POST /api/rigor/step)."},
	{name: "rigor_connections", route: "rigor.connections", method: http.MethodGet, readOnly: true, desc: "The caller's context-server connections and the providers on offer (GET /api/rigor/connections; no arguments)."},
}

// rigorFollow bounds how long rigor_execute follows a run.
const rigorFollow = 10 * time.Minute

// newRigorMCP builds the workflow server's handler.
func (s *Server) newRigorMCP() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "svc-rigor", Version: s.cfg.Version}, nil)
	schemas := newReflector(map[string]jsonSchema{}, map[string]bool{}, true)
	ops := apiOps()
	for _, t := range rigorTools {
		op := ops[t.route]
		schema := jsonSchema{"type": "object"}
		if op.body != nil {
			schema = schemas.schemaOf(op.body)
			if len(op.required) > 0 {
				schema["required"] = op.required
			}
		} else if t.path != nil {
			schema = jsonSchema{"type": "object", "required": []string{"workflow_id"},
				"properties": jsonSchema{"workflow_id": jsonSchema{"type": "string"}}}
		}
		f := false
		server.AddTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, DestructiveHint: &f, OpenWorldHint: &f}}, s.rigorToolHandler(t))
	}
	// tools/list shows the listed tools only (spec A); the others answer
	// a call by name
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !rigorListed(t.Name) })
			}
			return res, err
		}
	})
	// a client that accepts an event stream gets one (it carries the
	// progress notifications); a plain JSON-RPC client gets JSON
	get := func(*http.Request) *mcp.Server { return server }
	return rigorHandlers{
		stream: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true}),
		json:   mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true}),
	}
}

// rigorHandlers serve the workflow MCP server as event streams or as JSON.
type rigorHandlers struct{ stream, json http.Handler }

func (h rigorHandlers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		h.stream.ServeHTTP(w, r)
		return
	}
	r.Header.Set("Accept", "application/json, text/event-stream")
	h.json.ServeHTTP(w, r)
}

func rigorListed(name string) bool {
	for _, t := range rigorTools {
		if t.name == name {
			return t.listed
		}
	}
	return false
}

// mcpRigor is POST /api/mcp/rigor: a key first when one is sent (401
// invalid_api_key in spec A's envelope), then the SDK. Without a key the
// tools answer as anonymous calls (mcp_rigor_anon.go).
func (s *Server) mcpRigor(w http.ResponseWriter, r *http.Request) error {
	// each tool call is a request of its own route, which waits for the
	// caller's writes it reads (withReads)
	if key := r.Header.Get("x-api-key"); key != "" {
		if _, err := s.keyPrincipal(withReads(r.Context(), []string{}), key); err != nil {
			return err
		}
	}
	return serveJSONRPC(w, r, s.rigorMCP)
}

// rigorToolHandler calls t's route with the arguments, as the caller.
func (s *Server) rigorToolHandler(t rigorTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args == nil {
				return rigorToolError(newError(http.StatusBadRequest, "invalid_body", "The arguments must be a JSON object.")), nil
			}
		}
		if t.name == "rigor_execute" {
			if _, ok := args["delivery"]; !ok {
				args["delivery"] = map[string]any{"method": "polling"} // a tool call cannot hold an event stream
			}
		}
		var header http.Header
		if req.Extra != nil {
			header = req.Extra.Header
		}
		call := s.subRequest
		if header.Get("x-api-key") == "" {
			call = s.anonymousCall // mcp_rigor_anon.go
		}
		status, body := call(ctx, t, header, args)
		if status >= 400 {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body), IsError: true}, nil
		}
		if t.name == "rigor_execute" && req.Params.GetProgressToken() != nil {
			if final, ok := s.followRun(ctx, req, header, body); ok {
				body = final
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: json.RawMessage(body)}, nil
	}
}

// subRequest serves t's route through the router with the caller's
// headers (the key, the agent) and the context of the MCP request (its
// request id and client address).
func (s *Server) subRequest(ctx context.Context, t rigorTool, header http.Header, args map[string]any) (int, []byte) {
	path := "/api/rigor/" + strings.TrimPrefix(t.route, "rigor.")
	if t.path != nil {
		path = t.path(args)
	}
	var body []byte
	if t.method != http.MethodGet {
		body, _ = json.Marshal(args)
	}
	r := httptest.NewRequestWithContext(ctx, t.method, path, bytes.NewReader(body))
	for _, h := range []string{"x-api-key", "X-Agent-Id", "Idempotency-Key"} {
		if v := header.Get(h); v != "" {
			r.Header.Set(h, v)
		}
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	w := httptest.NewRecorder()
	s.router.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// followRun polls the queued run's status until it ends, sending a
// progress notification per change; it answers the final status (false
// when it could not follow).
func (s *Server) followRun(ctx context.Context, req *mcp.CallToolRequest, header http.Header, queued []byte) ([]byte, bool) {
	var q struct {
		WorkflowID string `json:"workflow_id"`
	}
	if json.Unmarshal(queued, &q) != nil || q.WorkflowID == "" {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, rigorFollow)
	defer cancel()
	status := rigorTools[2]
	last := -1.0
	for {
		code, body := s.subRequest(ctx, status, header, map[string]any{"workflow_id": q.WorkflowID})
		if code >= 400 {
			return body, true
		}
		var st statusResponse
		_ = json.Unmarshal(body, &st)
		done := float64(st.Workflow.ActualStepsExecuted)
		if done != last {
			last = done
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
				Progress: done, Total: float64(st.Workflow.TotalSteps), Message: st.Workflow.Status})
		}
		switch st.Workflow.Status {
		case workflow.StatusInteractiveWaiting, workflow.StatusPendingApproval, workflow.StatusPendingHumanReview:
			return body, true // a person decides next
		}
		if !workflow.Active(st.Workflow.Status) && st.Workflow.Status != workflow.StatusPlanned {
			return body, true
		}
		select {
		case <-ctx.Done():
			return body, true
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// rigorToolError is a refusal before the route was called.
func rigorToolError(e *apiError) *mcp.CallToolResult {
	raw, _ := json.Marshal(errorResponse{Error: errorEnvelope{Code: e.Code, Message: e.Message}})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw), IsError: true}
}
