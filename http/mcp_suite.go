package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/projections"
)

// The suite's tool server (spec C, Public and infrastructure): GET
// /api/mcp answers the tool manifest; POST /api/mcp is JSON-RPC 2.0
// (initialize, ping, tools/list, tools/call) served by the MCP go-sdk's
// streamable HTTP handler, stateless and answering JSON. Its tools are the
// manifest's per-product tools and `svc`, which takes {action, params};
// every one calls the same suiteOp.run as the REST route, so credits,
// validation and metadata are the same.

// mcpProtocol is the manifest's protocol; the MCP revision is the SDK's.
const mcpProtocol = "mcp"

// suiteTool is a tool of the manifest: its name, the operation it runs,
// its hints, and its required inputs where spec C's manifest names other
// ones than the REST body (nil: the REST body's).
type suiteTool struct {
	name, action string
	readOnly     bool
	idempotent   bool
	required     []string
}

// suiteTools are spec C's tool manifest, in its order.
var suiteTools = []suiteTool{
	{"dedupq_check", "dedupq.check", false, true, []string{"content"}},
	{"dedupq_complete", "dedupq.complete", false, true, []string{"content", "result"}},
	{"burnrate_estimate", "burnrate.estimate", false, true, []string{"plan"}},
	{"burnrate_track", "burnrate.track", false, false, []string{"provider", "model", "input_tokens", "output_tokens"}},
	{"burnrate_optimize", "burnrate.optimize", false, true, []string{"plan"}},
	{"burnrate_budget", "burnrate.budget", true, true, nil},
	{"qualitygate_validate", "qualitygate.validate", false, true, []string{"output"}},
	{"qualitygate_trends", "qualitygate.trends", true, true, nil},
	{"guardrail_check", "guardrail.check", false, true, []string{"agent_id", "proposed_action"}},
	{"guardrail_create_policy", "guardrail.create_policy", false, false, []string{"name", "rules"}},
	{"guardrail_list_policies", "guardrail.list_policies", true, true, nil},
	{"pitfalldb_query", "pitfalldb.query", false, true, []string{"task_type"}},
	{"pitfalldb_report", "pitfalldb.report", false, false, []string{"task_type", "task_description", "failure"}},
	{"pitfalldb_stats", "pitfalldb.stats", true, true, nil},
}

// toolParams adapts a manifest tool's arguments to its operation's REST
// parameters: dedupq_complete's task_id is optional in the manifest
// ("used as row id"), so a call without one is given an id derived from
// its content, the same for the same content.
func toolParams(tool string, args json.RawMessage) json.RawMessage {
	if tool != "dedupq_complete" {
		return args
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(args, &p) != nil || p == nil || len(p["task_id"]) > 0 {
		return args
	}
	var content string
	if json.Unmarshal(p["content"], &content) != nil || content == "" {
		return args
	}
	sum := sha256.Sum256([]byte(content))
	p["task_id"], _ = json.Marshal("content-" + hex.EncodeToString(sum[:8]))
	out, _ := json.Marshal(p)
	return out
}

// svcTool is the tool that runs any operation by its action.
const svcTool = "svc"

// manifestResponse is GET /api/mcp.
type manifestResponse struct {
	Protocol string         `json:"protocol"`
	Version  string         `json:"version"`
	Server   manifestServer `json:"server"`
	Endpoint string         `json:"endpoint"`
	Tools    []manifestTool `json:"tools"`
}

// manifestTool is a tool of the manifest, as tools/list gives it.
type manifestTool struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	InputSchema jsonSchema `json:"inputSchema"`
	Annotations toolHints  `json:"annotations"`
}

// toolHints are a tool's annotations (MCP's hints).
type toolHints struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// manifestOf is tools as the manifest lists them.
func manifestOf(tools []*mcp.Tool) []manifestTool {
	out := make([]manifestTool, 0, len(tools))
	for _, t := range tools {
		a := t.Annotations
		out = append(out, manifestTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema.(jsonSchema),
			Annotations: toolHints{ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint != nil && *a.DestructiveHint,
				IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint != nil && *a.OpenWorldHint}})
	}
	return out
}

// manifestServer names the server.
type manifestServer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// suiteMCP holds the tool server: its tools (built once) and the SDK's
// handler.
type suiteMCP struct {
	tools    []*mcp.Tool
	manifest []manifestTool
	ops      map[string]suiteOp // by action
	handler  http.Handler
}

// newSuiteMCP builds the tool server of s's operations.
func (s *Server) newSuiteMCP() *suiteMCP {
	m := &suiteMCP{ops: map[string]suiteOp{}}
	for _, o := range s.suiteOps() {
		m.ops[o.action] = o
	}
	schemas := newReflector(map[string]jsonSchema{}, map[string]bool{}, true)
	var actions []any
	for _, t := range suiteTools {
		o, ok := m.ops[t.action]
		if !ok {
			continue // a product not built yet
		}
		actions = append(actions, t.action)
		schema := jsonSchema{"type": "object"}
		if o.doc.body != nil {
			schema = schemas.schemaOf(o.doc.body)
			if len(o.doc.required) > 0 {
				schema["required"] = o.doc.required
			}
			if t.required != nil {
				schema["required"] = t.required
			}
		} else if len(o.doc.params) > 0 {
			props := jsonSchema{}
			for _, p := range o.doc.params {
				props[p.name] = p.schema
			}
			schema["properties"] = props
		}
		f := false
		m.tools = append(m.tools, &mcp.Tool{Name: t.name, Description: toolDescription(o), InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, DestructiveHint: &f, IdempotentHint: t.idempotent, OpenWorldHint: &f}})
	}
	t := true
	m.tools = append(m.tools, &mcp.Tool{Name: svcTool,
		Description: "Runs any operation of the suite: action is '<product>.<operation>' (dedupq.check, burnrate.estimate, ...), params its parameters, as the REST route takes them.",
		InputSchema: jsonSchema{"type": "object", "required": []string{"action"}, "properties": jsonSchema{
			"action": jsonSchema{"type": "string", "enum": actions},
			"params": jsonSchema{"type": "object"},
		}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool), OpenWorldHint: &t}})

	m.manifest = manifestOf(m.tools)
	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: s.cfg.Version}, nil)
	for _, tool := range m.tools {
		server.AddTool(tool, s.toolHandler(m, tool.Name))
	}
	// API keys authenticate every call, so the SDK's localhost rebinding
	// guard (which refuses a proxy's Host header) is left off.
	m.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	return m
}

// toolDescription is the summary and note of an operation.
func toolDescription(o suiteOp) string {
	d := o.doc.summary + "."
	if o.doc.note != "" {
		d += " " + o.doc.note
	}
	return d
}

// mcpManifest is GET /api/mcp: the manifest, or 405 for a client that asks
// for an event stream (the server is stateless: it opens none, and a
// streamable-HTTP client told 405 stops asking).
func (s *Server) mcpManifest(w http.ResponseWriter, r *http.Request) error {
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		w.Header().Set("Allow", http.MethodPost)
		return &suiteError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed",
			Message: "This tool server is stateless and opens no event stream; send JSON-RPC requests with POST."}
	}
	writeJSON(w, http.StatusOK, manifestResponse{Protocol: mcpProtocol, Version: latestMCPVersion,
		Server: manifestServer{Name: "svc", Version: s.cfg.Version}, Endpoint: s.cfg.BaseURL + "/api/mcp", Tools: s.mcp.manifest})
	return nil
}

// latestMCPVersion is the MCP revision the manifest states (the SDK
// negotiates the session's own at initialize).
const latestMCPVersion = "2025-06-18"

// mcpCall is POST /api/mcp: the key first (401 in the suite's envelope),
// then the SDK's JSON-RPC handling.
func (s *Server) mcpCall(w http.ResponseWriter, r *http.Request) error {
	// each tool call waits for the caller's writes its operation reads
	if _, err := s.keyPrincipal(withReads(r.Context(), []string{}), r.Header.Get("x-api-key")); err != nil {
		return err
	}
	// plain JSON-RPC clients (curl, spec C's examples) need not know the
	// streamable-HTTP Accept rule
	if a := r.Header.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
		r.Header.Set("Accept", "application/json, text/event-stream")
	}
	return serveJSONRPC(w, r, s.mcp.handler)
}

// serveJSONRPC hands a JSON-RPC message to an MCP server's handler h, once
// checkJSONRPC let it pass (a malformed one is answered here).
func serveJSONRPC(w http.ResponseWriter, r *http.Request, h http.Handler) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return newError(http.StatusRequestEntityTooLarge, "body_too_large", "The request body is too large or unreadable.")
	}
	if bad := checkJSONRPC(raw); bad != nil {
		writeJSON(w, http.StatusOK, bad)
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, r)
	return nil
}

// JSON-RPC 2.0's error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
)

// rpcMethods are the methods the tool servers answer (spec C), beside
// notifications: logging/setLevel too, which MCP clients such as the
// Inspector send after initialize (the SDK answers it).
var rpcMethods = map[string]bool{"initialize": true, "ping": true, "tools/list": true, "tools/call": true, "logging/setLevel": true}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

// rpcErrorBody is a JSON-RPC error object.
type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// checkJSONRPC is the JSON-RPC error a message earns before the SDK sees
// it (nil when it may pass): not JSON (-32700), a batch or not a request
// (-32600), a method the server does not have (-32601). Answered with
// HTTP 200, as spec C answers JSON-RPC ({jsonrpc, id, result, error?}).
func checkJSONRPC(raw []byte) *rpcError {
	fail := func(id json.RawMessage, code int, msg string) *rpcError {
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		return &rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{Code: code, Message: msg}}
	}
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return fail(nil, rpcParseError, "Parse error: the body is not JSON.")
	}
	if len(raw) == 0 || raw[0] != '{' {
		return fail(nil, rpcInvalidRequest, "Invalid Request: send one JSON-RPC 2.0 request object (batches are not supported).")
	}
	var msg struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fail(nil, rpcInvalidRequest, "Invalid Request: "+err.Error())
	}
	if len(msg.ID) > 0 && msg.ID[0] != '"' && (msg.ID[0] < '0' || msg.ID[0] > '9') && msg.ID[0] != '-' {
		return fail(nil, rpcInvalidRequest, "Invalid Request: id must be a string or an integer.")
	}
	if msg.JSONRPC == nil || *msg.JSONRPC != "2.0" {
		return fail(msg.ID, rpcInvalidRequest, `Invalid Request: jsonrpc must be "2.0".`)
	}
	if msg.Method == nil {
		if len(msg.ID) > 0 {
			return nil // a response to the server (none are asked for)
		}
		return fail(nil, rpcInvalidRequest, "Invalid Request: method is required.")
	}
	if rpcMethods[*msg.Method] && len(msg.ID) == 0 {
		return fail(nil, rpcInvalidRequest, "Invalid Request: "+*msg.Method+" is a request and needs an id.")
	}
	if !rpcMethods[*msg.Method] && !strings.HasPrefix(*msg.Method, "notifications/") && len(msg.ID) > 0 {
		return fail(msg.ID, rpcMethodNotFound, "Method not found: "+*msg.Method+"; this server answers initialize, ping, tools/list, tools/call and logging/setLevel.")
	}
	return nil
}

// toolArgs are the arguments of the svc tool.
type toolArgs struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
}

// toolHandler runs tool name: the caller is the x-api-key of the HTTP
// request that carried the call; the answer is the REST answer, as
// structured content and as JSON text, or the suite's error envelope with
// isError.
func (s *Server) toolHandler(m *suiteMCP, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = s.toolContext(ctx)
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		action := ""
		for _, t := range suiteTools {
			if t.name == name {
				action = t.action
			}
		}
		if name == svcTool {
			var a toolArgs
			if err := json.Unmarshal(args, &a); err != nil {
				return toolError(ctx, suiteInvalid("action", "The arguments must be an object {action, params}.")), nil
			}
			if a.Action == "" {
				return toolError(ctx, suiteMissing("action")), nil
			}
			action, args = a.Action, a.Params
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
		}
		o, ok := m.ops[action]
		if !ok {
			return toolError(ctx, suiteInvalid("action", "Unknown action "+action+"; tools/list names them.")), nil
		}
		p, err := s.toolPrincipal(withReads(ctx, o.reads), req)
		if err != nil {
			return toolError(ctx, err), nil
		}
		if o.floor != "" && !p.Role.AtLeast(o.floor) {
			return toolError(ctx, &suiteError{Status: http.StatusForbidden, Code: "insufficient_permissions",
				Message: "This operation needs the " + string(o.floor) + " role or above; this key is " + string(p.Role) + "."}), nil
		}
		ctx = withPrincipal(ctx, *p)
		if err := s.toolRateLimit(ctx, *p); err != nil {
			return toolError(ctx, err), nil
		}
		if args[0] != '{' {
			return toolError(ctx, suiteInvalid("params", "The parameters must be a JSON object.")), nil
		}
		args = toolParams(name, args)
		caller := callerOf(*p, &http.Request{Header: req.Extra.Header})
		body, rc, err := o.run(ctx, suiteCall{caller: caller, params: args})
		if err != nil {
			if asSuiteError(err) == nil {
				s.log.ErrorContext(ctx, "suite tool failed", "error", err.Error(), "action", action, "request_id", requestID(ctx))
			}
			return toolError(ctx, err), nil
		}
		meta := body.meta()
		meta.RequestID = requestID(ctx)
		meta.CreditsUsed, meta.CreditsRemaining = rc.CreditsUsed, rc.CreditsRemaining
		if meta.FallbackBehavior == "" {
			meta.FallbackBehavior = fallbackNone
		}
		return toolResult(withEmptyLists(body), false), nil
	}
}

// toolContext gives a tool call a request id: the HTTP request's when the
// SDK passed its context on, else a new one.
func (s *Server) toolContext(ctx context.Context) context.Context {
	if requestID(ctx) != "" {
		return ctx
	}
	return context.WithValue(ctx, keyRequestID, NewRequestID())
}

// toolPrincipal is the principal of the call's x-api-key.
func (s *Server) toolPrincipal(ctx context.Context, req *mcp.CallToolRequest) (*projections.Principal, error) {
	var raw string
	if req.Extra != nil && req.Extra.Header != nil {
		raw = req.Extra.Header.Get("x-api-key")
	}
	return s.keyPrincipal(ctx, raw)
}

// toolRateLimit counts a tool call against the org's suite limit, as the
// REST routes do.
func (s *Server) toolRateLimit(ctx context.Context, p projections.Principal) error {
	rec := &headerSink{h: http.Header{}}
	r := (&http.Request{Header: http.Header{}}).WithContext(ctx)
	return s.suiteRateLimit(rec, r, p)
}

// headerSink is a ResponseWriter that keeps only headers (the rate
// limiter's, which a tool call has no HTTP answer for).
type headerSink struct{ h http.Header }

func (h *headerSink) Header() http.Header         { return h.h }
func (h *headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerSink) WriteHeader(int)             {}

// toolError is err as a tool result: the suite's error envelope, isError.
func toolError(ctx context.Context, err error) *mcp.CallToolResult {
	se := asSuiteError(err)
	if se == nil {
		se = &suiteError{Status: http.StatusInternalServerError, Code: "internal_error",
			Message: "Something went wrong on our side. Retry, and quote the request_id if it persists."}
	}
	var ae *apiError
	if errors.As(err, &ae) && ae.RetryAfter != nil && se.Fix == "" {
		se.Fix = "Retry after " + strconv.Itoa(*ae.RetryAfter) + " seconds."
	}
	return toolResult(suiteErrorResponse{Error: se.Code, Message: se.Message, RequestID: requestID(ctx), Status: se.Status, Fix: se.Fix}, true)
}

// toolResult is v as structured content and as its JSON text.
func toolResult(v any, isError bool) *mcp.CallToolResult {
	text, _ := json.Marshal(v)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text), IsError: isError}
}
