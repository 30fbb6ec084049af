package httpapi

import (
	"reflect"

	"svc/domain/apikey"
	"svc/domain/catalog"
	"svc/domain/connection"
	"svc/domain/credit"
	"svc/domain/hook"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// What the document says of the Go types that reflection cannot tell:
// the schema of a type that encodes itself, the values of an enumerated
// type, the component names chosen by hand, and per field the enums,
// formats, bounds and descriptions (fieldNotes). TestOpenAPIFieldNotes
// fails for a note naming a field that no longer exists.

// fieldNote adds to the reflected schema of one JSON field.
type fieldNote struct {
	desc string
	// patch is merged into the reflected schema (its keys win).
	patch jsonSchema
	// schema replaces the reflected schema.
	schema jsonSchema
	// of is reflected instead of the field's type (the shape of a
	// json.RawMessage, say).
	of any
	// nullable: the field may be null (a response's pointers and maps
	// without omitempty are nullable without a note); never: it is not,
	// though its type could be (a map the handler always sets).
	nullable, never bool
}

// enumOf lists values as JSON Schema enum values.
func enumOf[T any](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

func enum(values ...any) jsonSchema { return jsonSchema{"enum": values} }

// Reused schemas.
var (
	requestIDSchema = jsonSchema{"pattern": "^req_[0-9a-f]{24}$"}
	uuidFormat      = jsonSchema{"format": "uuid"}
	workflowIDRef   = jsonSchema{"pattern": "^wr_"}
	roles3          = enum("viewer", "member", "admin")
	valueClasses    = enum("operational", "governance", "strategic")
	rigorLevels     = jsonSchema{"enum": enumOf(planning.RigorLevels)}
	statusEnum      = jsonSchema{"enum": enumOf(specStatuses)}
	hookEvents      = jsonSchema{"type": "array", "items": jsonSchema{"type": "string", "enum": enumOf(hook.Events)}}
	keyPattern      = jsonSchema{"pattern": "^svc_"}
)

// typeSchemas are the schemas of types that encode themselves.
var typeSchemas = map[reflect.Type]jsonSchema{
	reflect.TypeFor[healthCheck](): {
		"description": `"ok", or an object saying what is wrong.`,
		"oneOf": []any{
			jsonSchema{"type": "string", "const": "ok"},
			jsonSchema{"type": "object", "required": []string{"status"}, "additionalProperties": false, "properties": jsonSchema{
				"status": jsonSchema{"type": "string", "enum": []any{"degraded", "down"}},
				"error":  jsonSchema{"type": "string"},
			}},
		},
	},
	reflect.TypeFor[excerpt](): {"type": []string{"string", "null"}, "description": "The first 200 characters of the task description; null without one."},
}

// typeEnums are the values of enumerated string types.
var typeEnums = map[reflect.Type][]any{
	reflect.TypeFor[org.Tier]():         enumOf([]org.Tier{org.Free, org.Pro, org.Team, org.Enterprise}),
	reflect.TypeFor[apikey.Role]():      enumOf([]apikey.Role{apikey.Viewer, apikey.Member, apikey.Admin, apikey.Owner}),
	reflect.TypeFor[catalog.Category](): enumOf(catalog.Categories()),
}

// componentNames name the components whose reflected name would say less.
var componentNames = map[reflect.Type]string{
	reflect.TypeFor[workflow.View]():    "Workflow",
	reflect.TypeFor[planning.Plan]():    "Plan",
	reflect.TypeFor[errorResponse]():    "ErrorResponse",
	reflect.TypeFor[errorEnvelope]():    "Error",
	reflect.TypeFor[catalog.Template](): "Template",
	// client generators name an operation's answer <OperationId>Response
	reflect.TypeFor[healthResponse]():            "Health",
	reflect.TypeFor[docsResponse]():              "RouteIndex",
	reflect.TypeFor[notificationsReadResponse](): "NotificationsMarked",
}

// fieldNotes are keyed by the Go type declaring the field and its JSON
// name.
var fieldNotes = map[string]fieldNote{
	// the suite's tool server (JSON-RPC 2.0)
	"httpapi.jsonrpcResponse.id": {schema: jsonSchema{"oneOf": []any{jsonSchema{"type": "string"}, jsonSchema{"type": "integer"}, jsonSchema{"type": "null"}}},
		desc: "The request's id; null when the request could not be read."},
	"httpapi.jsonrpcRequest.id": {schema: jsonSchema{"oneOf": []any{jsonSchema{"type": "string"}, jsonSchema{"type": "integer"}}},
		desc: "Absent for a notification."},
	"httpapi.jsonrpcResponse.result": {schema: jsonSchema{"type": "object"}, desc: "The method's result (a tools/call result: content, structuredContent, isError)."},
	// errors and metering
	"httpapi.errorEnvelope.request_id":             {patch: requestIDSchema, desc: "Quote it to support; equals the X-Request-Id header."},
	"httpapi.errorEnvelope.code":                   {desc: "A stable machine-readable code; each route lists the codes it answers."},
	"httpapi.errorEnvelope.details":                {desc: "Facts about the refusal; the keys vary by code (field, required_role, limit, ...)."},
	"httpapi.errorResponse.retry_after":            {desc: "Seconds to wait (spec A's rate limits; also the Retry-After header)."},
	"httpapi.errorResponse.retry_after_seconds":    {desc: "Seconds to wait (spec B's rate limits)."},
	"httpapi.errorResponse.available":              {desc: "invalid_pack: the packs on sale, in USD."},
	"httpapi.metered.request_id":                   {patch: requestIDSchema},
	"httpapi.metered.credits_used":                 {desc: "Credits this call cost (0: free)."},
	"httpapi.metered.credits_remaining":            {desc: "The organization's balance after the call; null when it could not be read."},
	"httpapi.balanceResponse.org_id":               {patch: uuidFormat},
	"httpapi.balanceResponse.reserved":             {desc: "Credits the organization's accepted runs hold for the steps they have not run yet."},
	"httpapi.keyCheckResponse.org_id":              {patch: uuidFormat},
	"httpapi.signupResponse.org_id":                {patch: uuidFormat},
	"httpapi.signupResponse.workspace_id":          {patch: uuidFormat},
	"httpapi.signupResponse.key":                   {patch: keyPattern, desc: "The raw API key, shown this once."},
	"httpapi.signupResponse.api_key":               {patch: keyPattern, desc: "The same value as key."},
	"httpapi.signupResponse.request_id":            {patch: requestIDSchema},
	"httpapi.emailVerifiedResponse.request_id":     {patch: requestIDSchema},
	"httpapi.healthResponse.status":                {patch: enum("ok", "degraded", "down")},
	"httpapi.healthResponse.products":              {never: true, desc: "By product name."},
	"httpapi.signupResponse.products":              {never: true, desc: "What each product does, by name."},
	"httpapi.healthResponse.timestamp":             {patch: jsonSchema{"format": "date-time"}},
	"httpapi.sessionBody.expires_at":               {desc: "Unix seconds of the access token's end."},
	"httpapi.sessionResponse.org_id":               {patch: uuidFormat, desc: "Signup only: the new organization."},
	"httpapi.sessionResponse.workspace_id":         {patch: uuidFormat, desc: "Signup only: the new default workspace."},
	"httpapi.meResponse.key_id":                    {desc: "Set when an API key asked."},
	"httpapi.notificationCountResponse.request_id": {patch: requestIDSchema},
	"httpapi.notificationsReadResponse.request_id": {patch: requestIDSchema},
	"httpapi.notificationBody.metadata":            {schema: jsonSchema{"type": "object"}, desc: "Facts of the notification's type (credits_used, code, reload_id, ...)."},
	"httpapi.notificationsResponse.next_cursor":    {desc: "Pass as cursor for the next page; null on the last."},
	"httpapi.auditEvent.metadata":                  {schema: jsonSchema{"type": "object"}},
	"httpapi.auditActor.type":                      {patch: enum("user", "api_key", "system")},
	"httpapi.auditLogResponse.next_cursor":         {desc: "Pass as cursor for the next page; null on the last."},

	// data deletion
	"httpapi.deletionRequestCreated.request_id":         {patch: uuidFormat},
	"httpapi.deletionRequestCreated.status":             {patch: enum("pending")},
	"httpapi.deletionRequestCreated.confirmation_token": {desc: "Shown to the owner who asked; DELETE /api/data/confirm-deletion takes it."},
	"httpapi.deletionRequestCreated.expires_at":         {desc: "The request must be confirmed before this time."},
	"httpapi.deletionRequestBody.id":                    {patch: uuidFormat},
	"httpapi.deletionRequestBody.status":                {patch: enum("pending", "expired", "erasing", "completed")},
	"httpapi.deletionRequestBody.error":                 {desc: "Why the last attempt of the erasure failed (it is retried); null otherwise."},
	"httpapi.deletionConfirmedResponse.status":          {patch: enum("completed", "erasing")},

	// workspaces
	"httpapi.workspaceBody.id":                 {patch: uuidFormat},
	"httpapi.workspaceBody.llm_policy":         {of: &wsLLMPolicy{}, nullable: true},
	"httpapi.workspaceBody.enforcement_status": {patch: enum("enforced", "blocked")},
	"httpapi.llmPolicyBody.enforcement_status": {patch: enum("enforced", "blocked")},
	"httpapi.llmPolicyBody.available_models":   {desc: "The model names a policy may allow."},
	"httpapi.memberBody.type":                  {patch: enum("user", "api_key")},
	"httpapi.inviteBody.status":                {patch: enum("invited", "added"), desc: "added: a user with an account joined at once (no invite)."},
	"httpapi.restoreResponse.status":           {patch: enum("active")},
	"httpapi.webhookBody.events":               {patch: hookEvents},
	"httpapi.webhookBody.secret":               {desc: "The signing secret, in the creation's answer only."},
	"httpapi.workspaceKeyCreated.key":          {patch: keyPattern, desc: "The raw API key, shown this once."},

	// workflows
	"workflow.View.workflow_id":                 {patch: workflowIDRef},
	"workflow.View.status":                      {patch: statusEnum},
	"workflow.View.value_class":                 {patch: valueClasses},
	"workflow.View.quality_score":               {patch: jsonSchema{"minimum": 0, "maximum": 100}, desc: "null until scored; never coerced to 0."},
	"workflow.View.execution_mode":              {patch: enum("direct", "standard")},
	"workflow.View.terminal_step_strategy":      {patch: enum("compressed", "chunked", "salvage")},
	"workflow.View.delivery_mode":               {patch: enum("sse", "polling", "webhook", "interactive")},
	"workflow.View.credits_used":                {desc: "Per-step charges plus the orchestration fee on a full completion; reconcile billing with it."},
	"workflow.QualityReview.score":              {patch: jsonSchema{"minimum": 0, "maximum": 100}},
	"planning.Plan.workflow_id":                 {patch: workflowIDRef},
	"planning.Plan.rigor_level":                 {patch: rigorLevels},
	"planning.Plan.execution":                   {patch: enum("direct")},
	"planning.Plan.alternatives":                {desc: "The other rigor tiers, keyed quick, standard or thorough."},
	"planning.ClassificationInfo.value_class":   {patch: valueClasses},
	"planning.Step.priority_class":              {patch: enum("must", "should", "could")},
	"httpapi.runQueued.workflow_id":             {patch: workflowIDRef},
	"httpapi.runQueued.status":                  {patch: enum(workflow.StatusQueued, workflow.StatusInteractiveWaiting)},
	"httpapi.runQueued.delivery_mode":           {patch: enum("polling", "webhook", "interactive")},
	"httpapi.runQueued.available_modes":         {patch: jsonSchema{"items": jsonSchema{"type": "string", "enum": []any{"sse", "polling", "webhook", "interactive"}}}},
	"httpapi.runQueued.free":                    {desc: "The organization's first workflow: nothing is charged."},
	"httpapi.executeResponse.plan":              {of: planning.Plan{}},
	"httpapi.executeResponse.webhook_status":    {patch: enum("registered")},
	"httpapi.executeResponse.webhook_secret":    {desc: "The 32-byte hex HMAC secret, on the execute that registered the URL only."},
	"httpapi.executeResponse.poll_url":          {patch: jsonSchema{"format": "uri"}},
	"httpapi.taskTypeEntry.shape":               {patch: enum("atomic", "workflow")},
	"httpapi.workflowSummary.status":            {patch: statusEnum},
	"httpapi.workflowSummary.available_actions": {patch: jsonSchema{"items": jsonSchema{"type": "string", "enum": []any{"cancel", "force_cancel"}}}},
	"httpapi.affectedWorkflow.action":           {patch: enum("cancel", "force_cancel")},
	"httpapi.cancelledWorkflow.new_status":      {patch: enum(workflow.StatusCancelled)},
	"httpapi.cancelPreviewResponse.request_id":  {patch: requestIDSchema},
	"httpapi.approvedResponse.decision":         {patch: enum("approved")},
	"httpapi.rejectedWorkflow.status":           {patch: enum(workflow.StatusFailed)},
	"httpapi.rejectedWorkflow.halt_reason":      {patch: enum("rejected")},
	"httpapi.resumedResponse.status":            {patch: enum(workflow.StatusResuming)},
	"httpapi.skippedStep.status":                {patch: enum("skipped")},
	"httpapi.stepSkipped.next_step":             {desc: "null when no step is left."},
	"httpapi.lineageEntry.status":               {patch: statusEnum},
	"httpapi.costsResponse.group_by":            {patch: enum("hour", "day", "week", "month", "task_type", "workspace", "api_key")},
	"httpapi.deliveriesResponse.request_id":     {patch: requestIDSchema},
	"catalog.Template.id":                       {patch: uuidFormat},
	"catalog.Template.template_prompt":          {desc: "Holds {{KEY}} tokens, one placeholder field each."},

	// request bodies
	"httpapi.planBody.task_description":              {patch: jsonSchema{"minLength": 1}, desc: "At least 2 words."},
	"httpapi.planBody.task_type":                     {desc: "A hint that skips classification (GET /api/rigor/task-types)."},
	"httpapi.planBody.preferences":                   {of: prefsBody{}},
	"httpapi.planBody.context":                       {schema: contextSchema},
	"httpapi.prefsBody.rigor_level":                  {patch: rigorLevels},
	"httpapi.prefsBody.tool_scope":                   {patch: jsonSchema{"enum": enumOf(planning.ToolScopes)}},
	"httpapi.prefsBody.model_preference":             {patch: jsonSchema{"enum": enumOf(planning.ModelPreferences)}},
	"httpapi.prefsBody.max_budget_usd":               {desc: "A cost target for the estimate, not a ceiling."},
	"httpapi.prefsBody.only_frameworks":              {desc: "Mutually exclusive with skip_frameworks."},
	"httpapi.prefsBody.add_frameworks":               {schema: addFrameworksSchema},
	"httpapi.prefsBody.approval_before_step":         {patch: jsonSchema{"items": jsonSchema{"type": "integer", "minimum": 0}}, desc: "Zero-based step indices to pause before."},
	"httpapi.prefsBody.execution":                    {patch: jsonSchema{"enum": enumOf(planning.Executions)}},
	"httpapi.prefsBody.output_contract":              {schema: jsonSchema{"type": "object"}, desc: "Read only with execution direct (spec A, output_contract)."},
	"httpapi.executeBody.workflow_id":                {patch: workflowIDRef, desc: "A stored plan (POST /api/rigor/plan) to run."},
	"httpapi.executeBody.task_description":           {desc: "Required without workflow_id: plan and run in one call."},
	"httpapi.executeBody.preferences":                {of: prefsBody{}},
	"httpapi.executeBody.context":                    {schema: contextSchema},
	"httpapi.executeBody.delivery":                   {schema: deliverySchema},
	"httpapi.executeBody.mode":                       {patch: enum("full", "interactive")},
	"httpapi.executeBody.language":                   {desc: "A BCP 47 code."},
	"httpapi.executeBody.context_fields":             {patch: jsonSchema{"items": jsonSchema{"type": "string", "enum": enumOf(workflow.ContextFields)}}},
	"httpapi.executeBody.agent_id":                   {desc: "A free-text attribution label, truncated to 100 characters."},
	"httpapi.executeBody.workflow_ids":               {patch: jsonSchema{"maxItems": 20}, desc: "Stored plans to run at once (a multi-intent plan's)."},
	"httpapi.approveBody.decision":                   {patch: enum("approved", "rejected")},
	"httpapi.stepBody.action":                        {patch: enum("next", "skip", "abort")},
	"httpapi.actionsBody.action":                     {patch: enum("cancel")},
	"httpapi.actionsBody.workflow_ids":               {patch: jsonSchema{"maxItems": 20}},
	"httpapi.actionsBody.confirm":                    {desc: "false (the default) previews only."},
	"httpapi.actionsBody.force":                      {desc: "true cancels executing and step_executing workflows too."},
	"httpapi.enhanceBody.task_description":           {patch: jsonSchema{"maxLength": 10000}},
	"httpapi.enhanceBody.tier":                       {patch: enum("deterministic", "llm"), desc: "llm needs a key and costs 270 credits."},
	"httpapi.createKeyBody.email":                    {patch: jsonSchema{"format": "email"}},
	"httpapi.signUpBody.email":                       {patch: jsonSchema{"format": "email"}},
	"httpapi.signUpBody.password":                    {patch: jsonSchema{"minLength": 8}},
	"httpapi.mcpInitiateBody.permission_mode":        {patch: jsonSchema{"enum": enumOf(connection.Modes)}},
	"httpapi.checkoutBody.pack":                      {patch: jsonSchema{"enum": enumOf(payment.Packs)}, desc: "USD; give pack or custom_amount, not both."},
	"httpapi.checkoutBody.custom_amount":             {patch: jsonSchema{"type": "integer", "minimum": payment.MinCustomUSD, "maximum": payment.MaxCustomUSD}, desc: "Whole USD."},
	"httpapi.subscribeBody.tier":                     {patch: jsonSchema{"enum": enumOf(payment.SubscribableTiers)}},
	"httpapi.subscribeBody.interval":                 {patch: jsonSchema{"enum": enumOf(payment.Intervals)}},
	"httpapi.autoReloadPut.enabled":                  {schema: jsonSchema{"type": "boolean"}},
	"httpapi.autoReloadPut.confirm":                  {schema: jsonSchema{"type": "boolean"}, desc: "Must be true to enable."},
	"httpapi.autoReloadPut.threshold":                {schema: jsonSchema{"type": "integer", "minimum": credit.MinReloadThreshold, "maximum": credit.MaxReloadThreshold}, desc: "Credits; required to enable."},
	"httpapi.autoReloadPut.amount":                   {schema: jsonSchema{"type": "integer", "enum": enumOf(credit.ReloadAmounts)}, desc: "Credits; required to enable."},
	"httpapi.autoReloadPut.monthly_limit":            {schema: jsonSchema{"type": []string{"integer", "null"}, "minimum": credit.MinReloadLimitUSD, "maximum": credit.MaxReloadLimitUSD}, desc: "USD; null for none."},
	"httpapi.notificationsReadBody.notification_ids": {schema: jsonSchema{"type": "array", "items": jsonSchema{"type": "string", "minLength": 1}, "minItems": 1, "maxItems": maxNotificationIDs}},
	"httpapi.notificationsReadBody.all":              {schema: jsonSchema{"type": "boolean", "const": true}},
	"httpapi.nameBody.name":                          {patch: jsonSchema{"maxLength": 100}},
	"httpapi.addMemberBody.email":                    {patch: jsonSchema{"format": "email"}},
	"httpapi.addMemberBody.role":                     {patch: roles3},
	"httpapi.roleBody.role":                          {patch: roles3},
	"httpapi.createWorkspaceKeyBody.role":            {patch: jsonSchema{"enum": []any{"viewer", "member", "admin", "owner"}}, desc: "Default member; not above the caller's role."},
	"httpapi.createWorkspaceKeyBody.label":           {patch: jsonSchema{"maxLength": 100}},
	"httpapi.createLinkBody.role":                    {patch: roles3},
	"httpapi.createLinkBody.max_uses":                {patch: jsonSchema{"minimum": 1, "maximum": 10000}, desc: "Absent: unlimited."},
	"httpapi.createLinkBody.expires_in_days":         {patch: jsonSchema{"minimum": 1, "maximum": 365}, desc: "Default 7."},
	"httpapi.moveBody.workflow_ids":                  {patch: jsonSchema{"minItems": 1, "maxItems": 100}},
	"httpapi.budgetPutBody.monthly_credit_budget":    {schema: jsonSchema{"type": []string{"integer", "null"}, "minimum": 1}, desc: "Credits per UTC month; null removes the limit."},
	"httpapi.llmPolicyPutBody.allowed_models":        {schema: jsonSchema{"type": []string{"array", "null"}, "items": jsonSchema{"type": "string"}, "minItems": 1}, desc: "Model names (available_models); null removes the policy."},
	"httpapi.webhookSettingsBody.url":                {patch: jsonSchema{"format": "uri"}, desc: "https only."},
	"httpapi.webhookSettingsBody.events":             {patch: hookEvents},
	"httpapi.webhookSettingsBody.description":        {patch: jsonSchema{"maxLength": 500}},
	"httpapi.webhookSettingsBody.active":             {desc: "Default true."},
	"httpapi.verifyBody.payload":                     {desc: "The raw body of a delivery."},
	"httpapi.verifyBody.signature":                   {desc: "The X-Svc-Signature header's value."},
}

// Inline request schemas of anonymous structs.
var (
	contextSchema = jsonSchema{"type": "object", "properties": jsonSchema{
		"additional_context": jsonSchema{"type": "string", "description": "Persisted with the plan."},
	}}
	deliverySchema = jsonSchema{"type": "object", "properties": jsonSchema{
		"method":      jsonSchema{"type": "string", "enum": []any{"sse", "polling", "webhook"}, "description": "Default sse."},
		"webhook_url": jsonSchema{"type": "string", "format": "uri", "description": "https; required with method webhook."},
	}}
	addFrameworksSchema = jsonSchema{"type": "array", "items": jsonSchema{"oneOf": []any{
		jsonSchema{"type": "string"},
		jsonSchema{"type": "object", "required": []string{"name"}, "properties": jsonSchema{
			"name":        jsonSchema{"type": "string"},
			"before_step": jsonSchema{"type": "integer", "minimum": 1},
		}},
	}}}
)
