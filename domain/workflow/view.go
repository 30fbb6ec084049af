package workflow

import (
	"strconv"
	"time"
)

// StepSummary is an entry of completed_step_summaries.
type StepSummary struct {
	Step      int    `json:"step"`
	Tool      string `json:"tool"`
	Framework string `json:"framework"`
	Summary   string `json:"summary"`
	Model     string `json:"model,omitempty"`
}

// QualityReview is the quality_review object.
type QualityReview struct {
	Score     *int     `json:"score"`
	Summary   string   `json:"summary"`
	PathTo100 []string `json:"path_to_100,omitempty"`
}

// View is spec A's Workflow resource, as status answers it.
type View struct {
	WorkflowID             string         `json:"workflow_id"`
	Status                 string         `json:"status"`
	TaskType               string         `json:"task_type"`
	ValueClass             string         `json:"value_class"`
	Title                  string         `json:"title"`
	RigorLevel             string         `json:"rigor_level"`
	CurrentStep            int            `json:"current_step"`
	TotalSteps             int            `json:"total_steps"`
	ActualStepsExecuted    int            `json:"actual_steps_executed"`
	SkippedSteps           int            `json:"skipped_steps"`
	IncompleteCount        int            `json:"incomplete_step_count"`
	CompletedStepSummaries []StepSummary  `json:"completed_step_summaries"`
	QualityScore           *int           `json:"quality_score"`
	QualityReview          *QualityReview `json:"quality_review,omitempty"`
	Deliverable            *Deliverable   `json:"deliverable,omitempty"`
	CreditsUsed            int            `json:"credits_used"`
	CreditsLive            int            `json:"credits_live"`
	EstimatedCredits       int            `json:"estimated_credits"`
	Error                  *string        `json:"error"`
	ExecutionMode          string         `json:"execution_mode"`
	ExecutionFallback      bool           `json:"execution_fallback,omitempty"`
	CurrentChunk           *Chunk         `json:"current_chunk,omitempty"`
	TerminalStepAttempts   int            `json:"terminal_step_attempts,omitempty"`
	TerminalStepStrategy   string         `json:"terminal_step_strategy,omitempty"`
	IncompleteSteps        []Incomplete   `json:"incomplete_steps,omitempty"`
	StepOutputs            []StepOutput   `json:"step_outputs,omitempty"`
	DeliveryMode           string         `json:"delivery_mode,omitempty"`
	Mode                   string         `json:"mode,omitempty"`
	ApprovalStatus         string         `json:"approval_status,omitempty"`
	ApprovalGates          []int          `json:"approval_gates,omitempty"`
	PendingApprovalStep    *int           `json:"pending_approval_step,omitempty"`
	RevisionGuidance       *string        `json:"revision_guidance,omitempty"`
	Language               string         `json:"language,omitempty"`
	AgentID                string         `json:"agent_id,omitempty"`
	PriorWorkflowID        string         `json:"prior_workflow_id,omitempty"`

	// Halted workflows only.
	HaltedAtStep       *int     `json:"halted_at_step,omitempty"`
	HaltReason         string   `json:"halt_reason,omitempty"`
	BlockingIssues     []string `json:"blocking_issues,omitempty"`
	CreditsSavedByHalt *int     `json:"credits_saved_by_halt,omitempty"`
	ResolutionOptions  []string `json:"resolution_options,omitempty"`

	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	StartedAt   *time.Time `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

// ResolutionOptions are the four remediations a halted workflow offers.
func ResolutionOptions(blocking string) []string {
	return []string{
		"Skip the blocking framework: re-execute with preferences.skip_frameworks: [\"" + blocking + "\"].",
		"Verify the connection, then re-execute with refresh_connections: true.",
		"Resubmit with the missing content inline in context.additional_context.",
		"Fix the cause and re-execute with prior_workflow_id set to this workflow, to carry its results forward.",
	}
}

// View renders the workflow; showModel adds each step's model (Pro and
// above).
func (w *Workflow) View(showModel bool) View {
	p := w.planned
	v := View{WorkflowID: p.WorkflowID, Status: w.status, TaskType: p.TaskType, ValueClass: p.ValueClass, Title: p.Title,
		RigorLevel: p.RigorLevel, CurrentStep: w.current, TotalSteps: p.TotalSteps, EstimatedCredits: p.Credits,
		CompletedStepSummaries: []StepSummary{}, CreditsLive: w.live,
		CreatedAt: w.createdAt, UpdatedAt: w.updatedAt}
	v.ExecutionMode, v.ExecutionFallback, v.StepOutputs = w.ExecutionMode(), w.ExecutionFallback(), w.stepOutputs()
	if w.queued != nil {
		v.DeliveryMode, v.Language, v.AgentID, v.Mode = w.queued.Delivery.Method, w.queued.Language, w.queued.AgentID, w.queued.Mode
		v.PriorWorkflowID = w.queued.PriorWorkflowID
		if w.Interactive() {
			v.DeliveryMode = ModeInteractive
		}
	}
	w.viewControl(&v)
	for i, s := range w.steps {
		switch {
		case s.completed != nil:
			v.ActualStepsExecuted++
			sum := StepSummary{Step: i + 1, Tool: s.completed.Name, Framework: s.completed.Name, Summary: s.completed.Summary}
			if showModel && len(s.completed.Calls) > 0 {
				sum.Model = s.completed.Calls[len(s.completed.Calls)-1].Model
			}
			v.CompletedStepSummaries = append(v.CompletedStepSummaries, sum)
		case s.incomplete != nil:
			v.IncompleteCount++
		case s.skipped:
			v.SkippedSteps++
		case !Terminal(w.status) && s.chunk != nil:
			c := *s.chunk
			v.CurrentChunk = &c
		}
	}
	// Steps a run never reached count as incomplete, so that
	// actual_steps_executed + skipped + incomplete = total_steps holds.
	if Terminal(w.status) {
		v.IncompleteCount = v.TotalSteps - v.ActualStepsExecuted - v.SkippedSteps
	}
	if !w.startedAt.IsZero() {
		t := w.startedAt
		v.StartedAt = &t
	}
	if !w.endedAt.IsZero() {
		t := w.endedAt
		v.CompletedAt = &t
	}
	if w.attempts > 0 {
		v.TerminalStepAttempts = w.attempts
		if w.retrying != nil && !Terminal(w.status) {
			v.TerminalStepStrategy = w.retrying.Strategy
		}
	}
	if w.review != nil {
		v.QualityScore = w.review.Score
		v.QualityReview = &QualityReview{Score: w.review.Score, Summary: w.review.Summary, PathTo100: w.review.PathTo100}
	}
	v.CreditsUsed = w.live - w.refunded
	v.CreditsLive -= w.refunded // refunded: nothing stays charged
	switch {
	case w.completed != nil:
		v.CreditsUsed += w.completed.Fee
		v.Deliverable = w.completed.Deliverable
		v.IncompleteSteps = w.completed.IncompleteSteps
		if w.completed.Error != "" {
			e := w.completed.Error
			v.Error = &e
		}
	case w.failed != nil:
		e := w.failed.Error
		v.Error = &e
	case w.halted != nil:
		h := w.halted
		step, saved := h.Step, h.CreditsSaved
		v.HaltedAtStep, v.HaltReason, v.BlockingIssues, v.CreditsSavedByHalt = &step, h.Reason, h.BlockingIssues, &saved
		blocking := ""
		if step >= 1 && step <= len(p.Steps) {
			blocking = p.Steps[step-1].Name
		}
		v.ResolutionOptions = ResolutionOptions(blocking)
		e := "Halted at step " + strconv.Itoa(step) + ": " + h.Reason
		v.Error = &e
	}
	return v
}
