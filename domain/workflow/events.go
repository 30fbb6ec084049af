package workflow

import (
	"encoding/json"

	"svc/domain/contract"
)

// Event types of a workflow stream, in the order a run appends them.
const (
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
