package workflow

import (
	"encoding/json"

	"svc/domain/contract"
	"svc/eventstore/event"
)

// Event types of a workflow stream, in the order a run appends them. Each
// names the data type below whose EventType returns it; RegisterEvents
// lists them all.
const (
	EventPlanned          = "WorkflowPlanned"
	EventQueued           = "WorkflowQueued"
	EventStarted          = "WorkflowStarted"
	EventStepStarted      = "StepStarted"
	EventStepCompleted    = "StepCompleted"
	EventStepIncomplete   = "StepIncomplete"
	EventTerminalRetrying = "TerminalStepRetrying"
	EventReviewStarted    = "QualityReviewStarted"
	EventReviewed         = "QualityReviewed"
	EventCompleted        = "WorkflowCompleted"
	EventFailed           = "WorkflowFailed"
	EventHalted           = "WorkflowHalted"
)

// Events of workflow control: interactive steps, approval gates, resume
// and cancel.
const (
	EventStepRequested     = "StepRequested"
	EventStepSkipped       = "StepSkipped"
	EventAborted           = "WorkflowAborted"
	EventTimedOut          = "WorkflowTimedOut"
	EventApprovalRequested = "ApprovalRequested"
	EventApproved          = "WorkflowApproved"
	EventRejected          = "WorkflowRejected"
	EventResumed           = "WorkflowResumed"
	EventCancelled         = "WorkflowCancelled"
)

// EventExecutionFellBack records a runtime fallback from direct execution:
// the worker found, at run start, that the run cannot be direct.
const EventExecutionFellBack = "ExecutionFellBack"

// Events of the org-level streams execute appends to.
const (
	// EventSlotTaken and EventSlotReleased make the active-workflow stream
	// of an org (the concurrent limit).
	EventSlotTaken    = "WorkflowSlotTaken"
	EventSlotReleased = "WorkflowSlotReleased"
	// EventTaskSubmitted is appended to the stream of a normalised task
	// description (the duplicate-task window).
	EventTaskSubmitted = "TaskSubmitted"
	// EventFirstRun is the only event of an org's first-run stream: the
	// workflow that ran free.
	EventFirstRun = "FirstWorkflowClaimed"
)

// EventWebhookRegistered is the only event of a webhook registration
// stream: an org's webhook URL and its signing secret, sealed.
const EventWebhookRegistered = "WebhookRegistered"

// Step kinds, from the plan.
const (
	KindContent   = "content"
	KindResearch  = "research"
	KindProcess   = "process"
	KindReview    = "review"
	KindSynthesis = "synthesis"
)

// PlannedStep is one step of the plan as execution needs it.
type PlannedStep struct {
	Step          int    `json:"step"` // 1-based
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	Tier          int    `json:"tier"`
	Credits       int    `json:"credits"`
	PriorityClass string `json:"priority_class,omitempty"`
	// NeedsContext marks a framework that works on material outside the
	// description (a repository, documents).
	NeedsContext bool `json:"needs_context,omitempty"`
	// Model is the model the step must be called with, set when the
	// workspace's llm policy routed it ("" : the provider's for Tier).
	Model string `json:"model,omitempty"`
}

// Delivery is how results reach the caller.
type Delivery struct {
	Method     string `json:"method"` // sse, polling, webhook
	WebhookURL string `json:"webhook_url,omitempty"`
	// WebhookID names the org's webhook registration holding the secret.
	WebhookID string `json:"webhook_id,omitempty"`
}

// Warning is a {code, message, suggestion} carried by execute.
type Warning struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
}

// Queued is the data of WorkflowQueued: execute accepted the workflow.
type Queued struct {
	WorkflowID string    `json:"workflow_id"`
	OrgID      string    `json:"org_id"`
	KeyID      string    `json:"key_id,omitempty"`
	AgentID    string    `json:"agent_id,omitempty"`
	Tier       string    `json:"tier"`
	Mode       string    `json:"mode"` // full
	Language   string    `json:"language,omitempty"`
	Delivery   Delivery  `json:"delivery"`
	Free       bool      `json:"free,omitempty"` // the org's first workflow: nothing is charged
	Estimated  int       `json:"estimated_credits"`
	Context    string    `json:"context,omitempty"` // the additional_context that applies
	Warnings   []Warning `json:"warnings,omitempty"`

	// Chaining (chain.go): the prior workflow, the context_fields inherited
	// from it (resolved), their rendered text, and this workflow's link
	// number in the chain (2 or more; 0 when not chained).
	PriorWorkflowID string   `json:"prior_workflow_id,omitempty"`
	ContextFields   []string `json:"context_fields,omitempty"`
	Inherited       string   `json:"inherited_context,omitempty"`
	ChainDepth      int      `json:"chain_depth,omitempty"`

	// Execution is what execute decided runs (direct.go): "direct" or
	// "standard" ("" in streams from before direct execution: standard).
	// ExecutionFallback is true when direct was explicitly requested but
	// standard runs.
	Execution         string `json:"execution,omitempty"`
	ExecutionFallback bool   `json:"execution_fallback,omitempty"`
}

// Started is the data of WorkflowStarted: a worker picked the workflow up.
type Started struct {
	Worker string `json:"worker"`
	// Resumed is true when a worker takes over a run another worker left.
	Resumed bool `json:"resumed,omitempty"`
}

// StepStarted is the data of StepStarted.
type StepStarted struct {
	Step     int    `json:"step"`
	Name     string `json:"name"`
	Attempt  int    `json:"attempt"`
	Strategy string `json:"strategy,omitempty"` // compressed, chunked
	Chunk    *Chunk `json:"chunk,omitempty"`
	// Retry counts the tries of one chunk (0: the first).
	Retry int `json:"retry,omitempty"`
}

// Chunk is a part of a step run in chunked mode.
type Chunk struct {
	Index int `json:"index"`
	Total int `json:"total"`
}

// Section is a titled part of a step's output or of the deliverable.
type Section struct {
	Heading string `json:"heading"`
	Content string `json:"content"`
}

// Deliverable is the structured result of a workflow.
type Deliverable struct {
	Title    string    `json:"title"`
	Sections []Section `json:"sections"`
}

// Call is what one LLM call cost: recorded with every result.
type Call struct {
	Model            string  `json:"model"`
	Provider         string  `json:"provider"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	Attempts         int     `json:"attempts"`
	Fallback         bool    `json:"fallback_triggered,omitempty"`
	LatencyMS        int64   `json:"latency_ms"`
}

// StepCompleted is the data of StepCompleted. Its credit charge, if any, is
// appended to the org's ledger in the same transaction.
type StepCompleted struct {
	Step     int       `json:"step"`
	Name     string    `json:"name"`
	Kind     string    `json:"kind"`
	Summary  string    `json:"summary"`
	Sections []Section `json:"sections,omitempty"`
	// Deliverable is set by the Synthesis step.
	Deliverable *Deliverable `json:"deliverable,omitempty"`
	Credits     int          `json:"credits"` // charged for this step (0 when free or the fee step)
	Strategy    string       `json:"strategy,omitempty"`
	Calls       []Call       `json:"calls"`
	// ComposedInto is the step whose call wrote this step's result under
	// direct execution (that step records the call); 0 otherwise.
	ComposedInto int `json:"composed_into,omitempty"`
	// Output validation against the output_contract (direct execution,
	// Synthesis step): the findings, the status and every violation.
	OutputFindings             json.RawMessage      `json:"output_findings,omitempty"`
	OutputValidationStatus     string               `json:"output_validation_status,omitempty"`
	OutputValidationViolations []contract.Violation `json:"output_validation_violations,omitempty"`
}

// StepIncomplete is the data of StepIncomplete: a step that will not have
// a result in this run.
type StepIncomplete struct {
	Step   int    `json:"step"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
	// Abandoned marks a chunked step given up: the run ends without a
	// deliverable.
	Abandoned bool `json:"abandoned,omitempty"`
	// Salvaged marks the terminal step replaced by an assembled deliverable.
	Salvaged    bool         `json:"salvaged,omitempty"`
	Deliverable *Deliverable `json:"deliverable,omitempty"`
	// A result that violates the output_contract: the call that wrote it,
	// its validation status and every violation.
	Calls                      []Call               `json:"calls,omitempty"`
	OutputValidationStatus     string               `json:"output_validation_status,omitempty"`
	OutputValidationViolations []contract.Violation `json:"output_validation_violations,omitempty"`
}

// TerminalRetrying is the data of TerminalStepRetrying (spec A's
// terminal_step_retrying).
type TerminalRetrying struct {
	StepIndex   int    `json:"step_index"`
	StepName    string `json:"step_name"`
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	Strategy    string `json:"strategy"`
	Message     string `json:"message"`
}

// Reviewed is the data of QualityReviewed.
type Reviewed struct {
	Score     *int     `json:"score"` // nil: the review could not run
	Summary   string   `json:"summary"`
	PathTo100 []string `json:"path_to_100,omitempty"`
	Calls     []Call   `json:"calls,omitempty"`
}

// Incomplete is an entry of incomplete_steps.
type Incomplete struct {
	StepIndex int    `json:"step_index"`
	Framework string `json:"framework"`
	Reason    string `json:"reason"`
}

// Completed is the data of WorkflowCompleted: status completed, or
// completed_partial when Partial.
type Completed struct {
	Partial         bool         `json:"partial,omitempty"`
	Deliverable     *Deliverable `json:"deliverable,omitempty"`
	Fee             int          `json:"fee"` // orchestration fee charged with this event
	Error           string       `json:"error,omitempty"`
	IncompleteSteps []Incomplete `json:"incomplete_steps,omitempty"`
	// For cost history (plan's cost.range): what the run was estimated at
	// and what it cost in all, and whether it was the free first run.
	TaskType    string `json:"task_type"`
	Estimated   int    `json:"estimated_credits"`
	CreditsUsed int    `json:"credits_used"`
	Free        bool   `json:"free,omitempty"`
}

// Failed is the data of WorkflowFailed. Per-step charges are refunded in
// the same transaction.
type Failed struct {
	Code     string `json:"code"`            // provider_exhausted, ...
	Error    string `json:"error"`           // shown to the customer
	Cause    string `json:"cause,omitempty"` // for operators: what the providers answered
	Step     int    `json:"step,omitempty"`
	Refunded int    `json:"refunded"`
}

// Halted is the data of WorkflowHalted.
type Halted struct {
	Step           int      `json:"halted_at_step"`
	Reason         string   `json:"halt_reason"`
	BlockingIssues []string `json:"blocking_issues"`
	CreditsSaved   int      `json:"credits_saved_by_halt"`
}

// Planned is the data of WorkflowPlanned: everything execution needs later.
type Planned struct {
	WorkflowID        string          `json:"workflow_id"`
	OrgID             string          `json:"org_id"`
	WorkspaceID       string          `json:"workspace_id"`
	KeyID             string          `json:"key_id,omitempty"`
	TaskType          string          `json:"task_type"`
	ValueClass        string          `json:"value_class"`
	Description       string          `json:"description"`
	Title             string          `json:"title"`
	RigorLevel        string          `json:"rigor_level"`
	TotalSteps        int             `json:"total_steps"`
	Credits           int             `json:"credits"`
	Execution         string          `json:"execution"` // "direct" or "standard"
	ApprovalGates     []int           `json:"approval_gates,omitempty"`
	Plan              json.RawMessage `json:"plan"`        // the Plan resource as answered
	Preferences       json.RawMessage `json:"preferences"` // as given
	AdditionalContext string          `json:"additional_context,omitempty"`
	// ContextPersisted is false for plans made before plans kept their
	// context (spec A's legacy_plan_context_unavailable).
	ContextPersisted bool   `json:"context_persisted"`
	IntentGroup      string `json:"intent_group,omitempty"` // shared by the workflows of one multi-intent plan
	// ClassificationTier names the classifier tier that decided the task
	// type: given, lexical, embedding or llm ("" before tiers were recorded).
	ClassificationTier string `json:"classification_tier,omitempty"`
	// Steps is the sequence as execution needs it (kind, model tier).
	Steps []PlannedStep `json:"steps,omitempty"`
	// ContextLess is true when the plan flagged steps that need material
	// nobody supplied (no connection, no additional context).
	ContextLess bool `json:"context_less,omitempty"`
	// Connections are the context servers the plan was given.
	Connections []Connection `json:"connections,omitempty"`
	// External is the content the plan read for its steps (a bounded
	// snapshot: runs do not read it again).
	External []ExternalContent `json:"external_content,omitempty"`
	// Models routes the run's calls by tier when the workspace's llm
	// policy applied to the plan (nil: the provider's models).
	Models *ModelRouting `json:"models,omitempty"`
}

// StepRequested is the data of StepRequested: an interactive `next`.
type StepRequested struct {
	Step     int    `json:"step"`
	Name     string `json:"name"`
	Feedback string `json:"feedback,omitempty"`
}

// StepSkipped is the data of StepSkipped: an interactive `skip`.
type StepSkipped struct {
	Step int    `json:"step"`
	Name string `json:"name"`
}

// Aborted is the data of WorkflowAborted: an interactive `abort`.
type Aborted struct {
	StepsCompleted int `json:"steps_completed"`
	TotalSteps     int `json:"total_steps"`
}

// TimedOut is the data of WorkflowTimedOut: an interactive session left
// idle past its limit.
type TimedOut struct {
	IdleSeconds int64 `json:"idle_seconds"`
}

// ApprovalRequested is the data of ApprovalRequested: a run paused at an
// approval gate (zero-based Gate, before step Gate+1) with the deliverable
// so far.
type ApprovalRequested struct {
	Gate        int          `json:"gate"`
	Step        int          `json:"step"`
	Deliverable *Deliverable `json:"deliverable,omitempty"`
}

// Decision is the data of WorkflowApproved and WorkflowRejected.
type Decision struct {
	Gate    int    `json:"gate"`
	Notes   string `json:"notes,omitempty"`
	AgentID string `json:"agent_id"`
	KeyID   string `json:"key_id,omitempty"`
}

// Resumed is the data of WorkflowResumed.
type Resumed struct {
	From             string `json:"from_status"`
	FromStep         int    `json:"resuming_from_step"`
	RevisionGuidance string `json:"revision_guidance,omitempty"`
	KeyID            string `json:"key_id,omitempty"`
}

// Cancelled is the data of WorkflowCancelled.
type Cancelled struct {
	From  string `json:"previous_status"`
	Force bool   `json:"force,omitempty"`
	KeyID string `json:"key_id,omitempty"`
}

// ExecutionFellBack is the data of ExecutionFellBack.
type ExecutionFellBack struct {
	Reason  string `json:"reason"` // server_disallowed, composition_limit
	Message string `json:"message"`
}

// Slot is the data of slot events.
type Slot struct {
	WorkflowID string `json:"workflow_id"`
}

// Submitted is the data of TaskSubmitted.
type Submitted struct {
	WorkflowID string `json:"workflow_id"`
}

// WebhookRegistered is the data of EventWebhookRegistered. The secret is
// created (and shown) by the first execute that names the URL.
type WebhookRegistered struct {
	OrgID        string `json:"org_id"`
	URL          string `json:"url"`
	SealedSecret string `json:"sealed_secret"`
}

// ReviewStarted is the data of QualityReviewStarted: the independent
// review of the deliverable began.
type ReviewStarted struct{}

// Approved is the data of WorkflowApproved: the gate was passed.
type Approved Decision

// Rejected is the data of WorkflowRejected: the run ends failed.
type Rejected Decision

// SlotTaken is the data of WorkflowSlotTaken: a workflow counts toward
// the org's concurrent limit.
type SlotTaken Slot

// SlotReleased is the data of WorkflowSlotReleased: it no longer does.
type SlotReleased Slot

// FirstRunClaimed is the data of FirstWorkflowClaimed: the org's free
// first workflow.
type FirstRunClaimed Slot

// EventType implements event.Data.
func (Planned) EventType() string { return EventPlanned }

// EventType implements event.Data.
func (Queued) EventType() string { return EventQueued }

// EventType implements event.Data.
func (Started) EventType() string { return EventStarted }

// EventType implements event.Data.
func (StepStarted) EventType() string { return EventStepStarted }

// EventType implements event.Data.
func (StepCompleted) EventType() string { return EventStepCompleted }

// EventType implements event.Data.
func (StepIncomplete) EventType() string { return EventStepIncomplete }

// EventType implements event.Data.
func (TerminalRetrying) EventType() string { return EventTerminalRetrying }

// EventType implements event.Data.
func (ReviewStarted) EventType() string { return EventReviewStarted }

// EventType implements event.Data.
func (Reviewed) EventType() string { return EventReviewed }

// EventType implements event.Data.
func (Completed) EventType() string { return EventCompleted }

// EventType implements event.Data.
func (Failed) EventType() string { return EventFailed }

// EventType implements event.Data.
func (Halted) EventType() string { return EventHalted }

// EventType implements event.Data.
func (StepRequested) EventType() string { return EventStepRequested }

// EventType implements event.Data.
func (StepSkipped) EventType() string { return EventStepSkipped }

// EventType implements event.Data.
func (Aborted) EventType() string { return EventAborted }

// EventType implements event.Data.
func (TimedOut) EventType() string { return EventTimedOut }

// EventType implements event.Data.
func (ApprovalRequested) EventType() string { return EventApprovalRequested }

// EventType implements event.Data.
func (Approved) EventType() string { return EventApproved }

// EventType implements event.Data.
func (Rejected) EventType() string { return EventRejected }

// EventType implements event.Data.
func (Resumed) EventType() string { return EventResumed }

// EventType implements event.Data.
func (Cancelled) EventType() string { return EventCancelled }

// EventType implements event.Data.
func (ExecutionFellBack) EventType() string { return EventExecutionFellBack }

// EventType implements event.Data.
func (SlotTaken) EventType() string { return EventSlotTaken }

// EventType implements event.Data.
func (SlotReleased) EventType() string { return EventSlotReleased }

// EventType implements event.Data.
func (Submitted) EventType() string { return EventTaskSubmitted }

// EventType implements event.Data.
func (FirstRunClaimed) EventType() string { return EventFirstRun }

// EventType implements event.Data.
func (WebhookRegistered) EventType() string { return EventWebhookRegistered }

// RegisterEvents registers the events of workflow streams and of the
// org-level streams execution keeps (active slots, task submissions, the
// free first run, webhook registrations).
func RegisterEvents(r *event.Registry) {
	RegisterRunEvents(r)
	event.Register[SlotTaken](r)
	event.Register[SlotReleased](r)
	event.Register[Submitted](r)
	event.Register[FirstRunClaimed](r)
	event.Register[WebhookRegistered](r)
}

// RegisterRunEvents registers the events of a workflow stream alone.
func RegisterRunEvents(r *event.Registry) {
	event.Register[Planned](r)
	event.Register[Queued](r)
	event.Register[Started](r)
	event.Register[StepStarted](r)
	event.Register[StepCompleted](r)
	event.Register[StepIncomplete](r)
	event.Register[TerminalRetrying](r)
	event.Register[ReviewStarted](r)
	event.Register[Reviewed](r)
	event.Register[Completed](r)
	event.Register[Failed](r)
	event.Register[Halted](r)
	event.Register[StepRequested](r)
	event.Register[StepSkipped](r)
	event.Register[Aborted](r)
	event.Register[TimedOut](r)
	event.Register[ApprovalRequested](r)
	event.Register[Approved](r)
	event.Register[Rejected](r)
	event.Register[Resumed](r)
	event.Register[Cancelled](r)
	event.Register[ExecutionFellBack](r)
}

// runEvents decodes the events of a workflow stream; slotEvents those of
// an active-slots stream.
var (
	runEvents  = event.NewRegistry(RegisterRunEvents)
	slotEvents = event.NewRegistry(func(r *event.Registry) {
		event.Register[SlotTaken](r)
		event.Register[SlotReleased](r)
	})
)

// RunEventTypes lists the event types of a workflow stream.
func RunEventTypes() []string { return runEvents.Types() }
