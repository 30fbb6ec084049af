package httpapi

import "svc/domain/workflow"

// The data of the stream's events (spec A, execute's SSE delivery).

// sseStarted is the data of workflow_started.
type sseStarted struct {
	WorkflowID       string             `json:"workflow_id"`
	Status           string             `json:"status"`
	TaskType         string             `json:"task_type"`
	ValueClass       string             `json:"value_class"`
	Title            string             `json:"title"`
	TotalSteps       int                `json:"total_steps"`
	EstimatedCredits int                `json:"estimated_credits"`
	Steps            []sseStep          `json:"steps"`
	DeliveryMode     string             `json:"delivery_mode"`
	Free             bool               `json:"free"`
	ExecutionMode    string             `json:"execution_mode"`
	Warnings         []workflow.Warning `json:"warnings,omitempty"`
}

// sseStep is a step of workflow_started.
type sseStep struct {
	Step             int    `json:"step"`
	Name             string `json:"name"`
	EstimatedCredits int    `json:"estimated_credits"`
}

// sseStepStarted is the data of step_started.
type sseStepStarted struct {
	WorkflowID string          `json:"workflow_id"`
	Step       int             `json:"step"`
	Name       string          `json:"name"`
	Attempt    int             `json:"attempt"`
	Strategy   string          `json:"strategy,omitempty"`
	Chunk      *workflow.Chunk `json:"chunk,omitempty"`
}

// sseStepCompleted is the data of step_completed.
type sseStepCompleted struct {
	WorkflowID  string `json:"workflow_id"`
	Step        int    `json:"step"`
	Name        string `json:"name"`
	Summary     string `json:"summary"`
	Credits     int    `json:"credits"`
	CreditsLive int    `json:"credits_live"`
}

// sseStepSkipped is the data of step_skipped.
type sseStepSkipped struct {
	WorkflowID string `json:"workflow_id"`
	Step       int    `json:"step"`
	Name       string `json:"name"`
	Reason     string `json:"reason"`
}

// sseRetrying is the data of terminal_step_retrying: the event's fields
// (step_index, step_name, attempt, max_attempts, strategy, message).
type sseRetrying struct {
	WorkflowID string `json:"workflow_id"`
	workflow.TerminalRetrying
}

// sseReview is the data of quality_review.
type sseReview struct {
	WorkflowID string   `json:"workflow_id"`
	Score      *int     `json:"score"`
	Summary    string   `json:"summary"`
	PathTo100  []string `json:"path_to_100"`
}

// sseCompleted is the data of workflow_completed; ssePartial is set for
// completed_partial.
type sseCompleted struct {
	WorkflowID          string                `json:"workflow_id"`
	Status              string                `json:"status"`
	QualityScore        *int                  `json:"quality_score"`
	Deliverable         *workflow.Deliverable `json:"deliverable"`
	CreditsUsed         int                   `json:"credits_used"`
	ActualStepsExecuted int                   `json:"actual_steps_executed"`
	TotalSteps          int                   `json:"total_steps"`
	*ssePartial
}

// ssePartial are the fields of a partial completion.
type ssePartial struct {
	Partial         bool                  `json:"partial"`
	IncompleteSteps []workflow.Incomplete `json:"incomplete_steps"`
	Error           *string               `json:"error"`
}

// sseError is the data of workflow_error: Code for a failure, HaltReason
// and sseHalt for a halt; a cancelled, rejected, aborted or timed-out
// workflow carries HaltReason when it has one.
type sseError struct {
	WorkflowID  string  `json:"workflow_id"`
	Status      string  `json:"status"`
	Error       *string `json:"error"`
	CreditsUsed int     `json:"credits_used"`
	Code        *string `json:"code,omitempty"`
	HaltReason  *string `json:"halt_reason,omitempty"`
	*sseHalt
}

// sseHalt are the fields of a halted workflow.
type sseHalt struct {
	HaltedAtStep       *int     `json:"halted_at_step"`
	BlockingIssues     []string `json:"blocking_issues"`
	CreditsSavedByHalt *int     `json:"credits_saved_by_halt"`
	ResolutionOptions  []string `json:"resolution_options"`
}

// sseFallback is the data of execution_fallback.
type sseFallback struct {
	WorkflowID        string `json:"workflow_id"`
	ExecutionMode     string `json:"execution_mode"`
	ExecutionFallback bool   `json:"execution_fallback"`
	Reason            string `json:"reason"`
	Message           string `json:"message"`
}

// ssePendingApproval is the data of workflow_pending_approval.
type ssePendingApproval struct {
	WorkflowID         string                `json:"workflow_id"`
	Status             string                `json:"status"`
	ApprovalBeforeStep int                   `json:"approval_before_step"`
	Step               int                   `json:"step"`
	Deliverable        *workflow.Deliverable `json:"deliverable"`
	CreditsUsed        int                   `json:"credits_used"`
}
