package httpapi

import "svc/domain/apikey"

// Tags of spec A's routes.
const (
	tagPlanning  = "Planning"
	tagExecution = "Execution"
	tagWorkflows = "Workflows"
	tagUsage     = "Usage"
	tagService   = "Service"
	// tagContextServers: spec A's connection routes
	tagContextServers = "Context servers"
	tagReference      = "Reference"
	statusDesc        = "The workflow's id (wr_...)."
	timeParamDesc     = "An ISO 8601 timestamp or date."
)

var (
	// gatewayRefusals: every connection route, while the gateway is off.
	gatewayRefusals   = []codes{errs(501, "feature_not_enabled")}
	connectionIDParam = map[string]jsonSchema{"connection_id": {"type": "string", "description": "The connection's id (a UUID; conn_ prefix accepted)."}}
	str               = jsonSchema{"type": "string"}
	boolStr           = jsonSchema{"type": "string", "enum": []any{"true", "false"}}
	// planRefusals are what planning a description can answer.
	planRefusals = []codes{
		errs(400, "missing_field", "invalid_task_description", "vague_task_description", "invalid_step_index"),
		errs(422, "model_not_allowed"), errs(500, "plan_error"), errs(504, "plan_timeout"),
	}
)

// rigorOps are spec A's routes (and the service's own), by route name.
var rigorOps = map[string]apiOp{
	"health": {tag: tagService, summary: "Service status", guard: guardNone,
		replies: []reply{ok(200, "The service works (status ok or degraded).", healthResponse{}),
			ok(503, "The database is down (status down).", healthResponse{})}},
	"docs": {tag: tagReference, summary: "API reference", guard: guardNone,
		note:    "A browser (Accept: text/html) gets the rendered reference; Accept: application/json, or no Accept header, the route index as JSON.",
		replies: []reply{{status: 200, desc: "The rendered reference, or with Accept: application/json the route index.", body: docsResponse{}, html: true}}},
	"docs.asset": {tag: tagReference, summary: "The reference's scripts", guard: guardNone,
		pathParams: map[string]jsonSchema{"asset": {"type": "string", "enum": enumOf(docsAssetNames)}},
		replies:    []reply{{status: 200, desc: "The script (gzip when accepted).", script: true}},
		errs:       []codes{errs(404, "not_found")}},
	"openapi": {tag: tagReference, summary: "This OpenAPI document", guard: guardNone,
		replies: []reply{{status: 200, desc: "The OpenAPI 3.1 document of every route.", rawJSON: true}}},
	"metrics":       {internal: true},
	"pprof":         {internal: true},
	"pprof.profile": {internal: true},
	// the web dashboard's HTML pages (http/dashboard): not the JSON API
	"dashboard": {internal: true},

	"rigor.templates": {tag: tagPlanning, summary: "List deliverable templates", guard: guardNone,
		params:  []param{query("task_type", "Only this task type (exact).", str), query("category", "Only this category (exact).", str)},
		replies: []reply{ok(200, "The templates.", templatesResponse{})}},
	"rigor.task_types": {tag: tagPlanning, summary: "List task types", guard: guardKey,
		replies: []reply{ok(200, "The task types the planner knows.", taskTypesResponse{})}},
	"rigor.enhance": {tag: tagPlanning, summary: "Score and improve a task description", guard: guardKeyOptional,
		body: enhanceBody{}, required: []string{"task_description"},
		replies: []reply{ok(200, "The score and suggestions (and, tier llm, the rewrite).", enhanceResponse{})},
		errs: []codes{errs(400, "missing_field", "input_too_long"), errs(401, "missing_api_key"), errs(402, "insufficient_credits"),
			errs(422, "model_not_allowed"), errs(500, "enhance_error")}},
	"rigor.plan": {tag: tagPlanning, summary: "Plan a task", guard: guardKeyLimited, floor: apikey.Viewer,
		body: planBody{}, required: []string{"task_description"},
		replies: []reply{oneOf(200, "One plan, or one per intent of a description holding several.", planResponse{}, multiPlanResponse{})},
		errs:    planRefusals},
	"rigor.execute": {tag: tagExecution, summary: "Execute a plan or a task", guard: guardKeyLimited, floor: apikey.Member,
		params: []param{header("Last-Event-ID", "Reconnect to a workflow's event stream after this event id ({workflow_id}:{marker}); no second run.")},
		body:   executeBody{},
		replies: []reply{{status: 200, sse: true,
			desc: "delivery sse (the default): text/event-stream of the run's events (workflow_started, step_started, step_completed, step_skipped, " +
				"terminal_step_retrying, quality_review, workflow_completed, workflow_pending_approval, workflow_error, processing, stream_timeout, " +
				"execution_fallback), with header X-Svc-Workflow-Id. polling or webhook: the queued workflow (JSON); mode interactive: its sequence; " +
				"workflow_ids: the queued and the refused workflows.",
			alts: []any{executeResponse{}, interactiveResponse{}, executeManyResponse{}}}},
		errs: append([]codes{
			errs(400, "missing_field", "invalid_language", "no_plan", "webhook_url_required", "webhook_url_https", "webhook_url_invalid",
				"no_workflow_ids", "bulk_limit_exceeded"),
			errs(402, "insufficient_credits", "workspace_budget_exceeded"), errs(403, "forbidden", "tier_required"),
			errs(404, "not_found", "prior_not_found"),
			errs(409, "prior_not_terminal", "duplicate_task", "workflow_has_progress", "invalid_status"),
			errs(422, "chain_depth_exceeded", "context_too_large"), errs(429, "concurrent_limit_exceeded"), errs(500, "queue_failed"),
		}, planRefusals...)},
	"rigor.status": {tag: tagExecution, summary: "A workflow's status", guard: guardKeyLimited, floor: apikey.Viewer,
		note:       "With Accept: text/event-stream it answers the workflow's event stream instead, replayed after Last-Event-ID (an EventSource reconnecting).",
		params:     []param{header("Last-Event-ID", "With Accept: text/event-stream: replay after this event id.")},
		pathParams: map[string]jsonSchema{"workflow_id": {"type": "string", "description": statusDesc}},
		replies:    []reply{{status: 200, desc: "The Workflow resource (or its event stream).", body: statusResponse{}, sse: true}},
		errs:       []codes{errs(404, "not_found")}},
	"rigor.workflows": {tag: tagWorkflows, summary: "List workflows", guard: guardKeyLimited, floor: apikey.Viewer,
		params: []param{
			query("status", "Comma-separated statuses.", str),
			query("task_type", "Only this task type.", str),
			query("created_after", timeParamDesc, str), query("created_before", timeParamDesc, str),
			query("counts_toward_limit", "true or false.", boolStr),
			query("cursor", "pagination.cursor of the previous page.", str),
			query("limit", "1-100, default 20.", jsonSchema{"type": "integer", "minimum": 1, "maximum": 100}),
			query("q", "Search over title and task description: every term, case-insensitive substrings; at most 200 characters.", jsonSchema{"type": "string", "maxLength": 200}),
			query("folder_id", "A folder's id, or unassigned.", str),
		},
		replies: []reply{ok(200, "A page of the organization's workflows, newest first.", workflowsResponse{})}},
	"rigor.lineage": {tag: tagWorkflows, summary: "A chained workflow's lineage", guard: guardKeyLimited, floor: apikey.Viewer,
		pathParams: map[string]jsonSchema{"workflow_id": {"type": "string", "description": statusDesc}},
		replies:    []reply{ok(200, "The chain, oldest first.", lineageResponse{})},
		errs:       []codes{errs(400, "missing_field"), errs(404, "not_found"), errs(422, "chain_depth_exceeded")}},
	"rigor.step": {tag: tagExecution, summary: "Drive an interactive workflow", guard: guardKeyLimited, floor: apikey.Member,
		body: stepBody{}, required: []string{"workflow_id", "action"},
		replies: []reply{ok(200, "next: the step now running; skip: the skipped and the next step; abort: the steps done.", stepResponse{})},
		errs: []codes{errs(400, "missing_field", "invalid_action", "no_plan"), errs(402, "insufficient_credits"), errs(403, "tier_required"),
			errs(404, "not_found"), errs(409, "invalid_status", "concurrent_step"), errs(410, "session_expired"), errs(500, "step_error")}},
	"rigor.resume": {tag: tagExecution, summary: "Resume a workflow", guard: guardKeyLimited, floor: apikey.Member,
		params: []param{query("approve", "true approves a workflow at pending_human_review.", boolStr)},
		body:   resumeBody{}, required: []string{"workflow_id"},
		replies: []reply{ok(200, "The workflow resumes.", resumedResponse{})},
		errs: []codes{errs(400, "missing_field"), errs(402, "insufficient_credits", "workspace_budget_exceeded"), errs(404, "not_found"),
			errs(409, "invalid_status", "resume_conflict", "already_complete", "pending_human_review"), errs(429, "concurrent_limit_exceeded")}},
	"rigor.approve": {tag: tagExecution, summary: "Decide an approval gate", guard: guardKeyLimited, floor: apikey.Admin,
		body: approveBody{}, required: []string{"workflow_id", "decision"},
		replies: []reply{oneOf(200, "Approved: the workflow resumes; rejected: it failed.", approvedResponse{}, rejectedResponse{})},
		errs:    []codes{errs(400, "missing_field"), errs(404, "not_found"), errs(409, "invalid_status"), errs(500, "approve_failed")}},
	"rigor.workflows.actions": {tag: tagWorkflows, summary: "Bulk cancel workflows", guard: guardKeyLimited, floor: apikey.Admin,
		body: actionsBody{}, required: []string{"action", "workflow_ids"},
		replies: []reply{oneOf(200, "confirm false: a preview; confirm true: the outcome.", cancelPreviewResponse{}, cancelResponse{})},
		errs:    []codes{errs(400, "missing_field", "invalid_action", "no_workflow_ids", "bulk_limit_exceeded")}},
	"rigor.webhooks.deliveries": {tag: tagWorkflows, summary: "A workflow's webhook deliveries", guard: guardKeyLimited, floor: apikey.Viewer,
		params:  []param{query("workflow_id", statusDesc, str).must()},
		replies: []reply{ok(200, "Each delivery with its state and attempts.", deliveriesResponse{})},
		errs:    []codes{errs(400, "missing_field"), errs(404, "not_found")}},
	"rigor.usage_summary": {tag: tagUsage, summary: "Credit usage", guard: guardKeyLimited, floor: apikey.Viewer,
		params: []param{query("from", timeParamDesc+" Default: 30 days ago.", str), query("to", timeParamDesc+" Default: now.", str),
			query("granularity", "Default day.", jsonSchema{"type": "string", "enum": []any{"hour", "day", "week", "month"}})},
		replies: []reply{ok(200, "Balance, burn rate, totals, trend and breakdowns.", usageSummaryResponse{})}},
	"rigor.connections": {tag: tagContextServers, summary: "List connections and providers", guard: guardKey, floor: apikey.Viewer,
		replies: []reply{ok(200, "Exactly three keys: the connections this key sees, the providers it may connect, those coming soon.", connectionsResponse{}),
			failedReply(500, "The read failed: connections is empty, error says why, the provider lists are the static ones.", connectionsFailure{})},
		errs: gatewayRefusals},
	"rigor.connections.create": {tag: tagContextServers, summary: "Register a context server", guard: guardKey, floor: apikey.Admin,
		body: connectionCreateBody{}, required: []string{"scope", "server_url", "auth_type"},
		replies: []reply{ok(201, "The connection, pending until a test.", connectionCreatedResponse{})},
		errs: append([]codes{errs(400, "missing_field"),
			errs(409, "duplicate_connection", "display_name_taken", "connection_limit_exceeded")}, gatewayRefusals...)},
	"rigor.connections.update": {tag: tagContextServers, summary: "Change a connection", guard: guardKey, floor: apikey.Admin,
		pathParams: connectionIDParam, body: connectionPatchBody{},
		replies: []reply{oneOf(200, "The connection as changed, or requires_reauth (nothing changed) when read_write needs a new OAuth authorization.",
			connectionBody{}, reauthResponse{})},
		errs: append([]codes{errs(404, "not_found"), errs(409, "display_name_taken")}, gatewayRefusals...)},
	"rigor.connections.test": {tag: tagContextServers, summary: "Test a connection", guard: guardKey, floor: apikey.Member, readsBody: true,
		pathParams: connectionIDParam,
		replies: []reply{ok(200, "Every address of the host is public and the server answered MCP initialize: the connection is active.", connectionTestResponse{}),
			failedReply(400, "{error: <string>}: refused by the SSRF rules (code ssrf_blocked) or no answer (connection_failed); the connection's status is error.",
				connectionTestFailure{})},
		errs: append([]codes{errs(404, "not_found")}, gatewayRefusals...)},
	"rigor.connections.delete": {tag: tagContextServers, summary: "Revoke a connection", guard: guardKey, floor: apikey.Admin, readsBody: true,
		pathParams: connectionIDParam,
		replies:    []reply{ok(200, "Revoked: its credential deleted, its record kept.", connectionDeletedResponse{})},
		errs:       append([]codes{errs(404, "not_found")}, gatewayRefusals...)},
	"rigor.costs": {tag: tagUsage, summary: "Costs", guard: guardKeyLimited, floor: apikey.Viewer,
		params: []param{query("from", timeParamDesc, str), query("to", timeParamDesc, str),
			query("group_by", "Default day.", jsonSchema{"type": "string", "enum": []any{"hour", "day", "week", "month", "task_type", "workspace", "api_key"}})},
		replies: []reply{ok(200, "The period's summary and breakdown.", costsResponse{})}},
}
