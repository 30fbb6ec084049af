package httpapi

// The suite's tool server in the OpenAPI document (mcp_suite.go).

// jsonrpcRequest documents a JSON-RPC 2.0 request of the tool server.
type jsonrpcRequest struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      any            `json:"id,omitempty"`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params,omitempty"`
}

// jsonrpcResponse documents a JSON-RPC 2.0 answer: a result or an error.
type jsonrpcResponse struct {
	JSONRPC string        `json:"jsonrpc"`
	ID      any           `json:"id"`
	Result  any           `json:"result,omitempty"`
	Error   *rpcErrorBody `json:"error,omitempty"`
}

// mcpOps are the tool server's routes, by route name.
var mcpOps = map[string]apiOp{
	"mcp.manifest": {tag: tagTools, summary: "The suite's tool manifest", guard: guardNone, suiteEnvelope: true,
		note:    "A client that asks for text/event-stream is answered 405: the server is stateless and opens no stream.",
		replies: []reply{ok(200, "The manifest: protocol, version, server, endpoint and tools (MCP tool objects).", manifestResponse{})},
		errs:    []codes{errs(405, "method_not_allowed")}},
	"mcp.call": {tag: tagTools, summary: "Call the suite's tools (JSON-RPC 2.0)", guard: guardMCP,
		note: "initialize, ping, tools/list and tools/call, answered as application/json. The tool svc takes {action, params} " +
			"(action '<product>.<operation>'); the manifest's per-product tools take their operation's parameters. A tool's answer is " +
			"the REST route's, metadata included, as structured content and as JSON text; a refusal is isError with the suite's error " +
			"envelope. Malformed messages get JSON-RPC's codes (-32700, -32600, -32601) with HTTP 200.",
		body: jsonrpcRequest{}, required: []string{"jsonrpc", "method"},
		replies: []reply{ok(200, "A JSON-RPC 2.0 answer: result, or error.", jsonrpcResponse{}),
			{status: 202, desc: "A notification was accepted (no body)."}}},
	"mcp.rigor": {tag: tagExecution, summary: "The workflow MCP server (JSON-RPC 2.0)", guard: guardKeyOptional,
		note: "MCP over streamable HTTP, stateless: initialize, ping, tools/list (rigor_plan, rigor_execute, rigor_status) and " +
			"tools/call (also rigor_resume, rigor_approve, rigor_step, callable by name). Each tool is its REST route, called with the " +
			"key: the same validation, roles, credits, limits and errors (a refusal is isError with the route's error envelope). " +
			"rigor_execute defaults to polling delivery; given a progress token it follows the run, reporting steps as progress " +
			"notifications (answered as an event stream), and answers the final status. Without x-api-key (anonymous mode) only " +
			"rigor_plan may be called, planned in a demo organization without connections, 30 per minute and 500 per UTC day per " +
			"client IP (past them a tool error with 429 rate_limit_exceeded and retry_after); any other tool is a tool error with " +
			"401 missing_api_key.",
		body: jsonrpcRequest{}, required: []string{"jsonrpc", "method"},
		replies: []reply{{status: 200, desc: "A JSON-RPC 2.0 answer (as JSON, or as an event stream carrying progress notifications).", body: jsonrpcResponse{}, sse: true},
			{status: 202, desc: "A notification was accepted (no body)."}},
		errs: []codes{errs(413, "body_too_large")}},
}
