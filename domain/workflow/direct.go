package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"svc/domain/contract"
)

// Executions: what runs (spec A's execution_mode).
const (
	ExecutionDirect   = "direct"
	ExecutionStandard = "standard"
)

// Reasons of a runtime fallback.
const (
	FallbackServerDisallowed = "server_disallowed"
	FallbackCompositionLimit = "composition_limit"
)

// Scores of a run whose output the contract validation scored instead of
// the independent review.
const (
	ScoreValid          = 100
	ScoreValidNormalise = 90
)

// RequestedExecution is preferences.execution as given ("" when absent).
func (p Planned) RequestedExecution() string {
	var prefs struct {
		Execution string `json:"execution"`
	}
	_ = json.Unmarshal(p.Preferences, &prefs)
	return prefs.Execution
}

// OutputContract is preferences.output_contract as given (nil when absent).
func (p Planned) OutputContract() json.RawMessage {
	var prefs struct {
		OutputContract json.RawMessage `json:"output_contract"`
	}
	_ = json.Unmarshal(p.Preferences, &prefs)
	if len(prefs.OutputContract) == 0 || string(prefs.OutputContract) == "null" {
		return nil
	}
	return prefs.OutputContract
}

// ContentSteps counts the plan's content steps (what direct execution
// composes; at most the composition limit).
func (p Planned) ContentSteps() int {
	n := 0
	for _, s := range p.Steps {
		if s.Kind == KindContent {
			n++
		}
	}
	return n
}

// DecideExecution decides at execute what runs (spec A, direct execution
// rules 4 to 6): direct when the plan says direct and neither interactive
// mode, a chain (prior_workflow_id, context_fields) nor an approval gate
// stands in the way; fallback is true when direct was explicitly requested
// but standard runs. The server's own switch and the composition limit are
// checked again when the run starts (a runtime fallback).
func DecideExecution(p Planned, q Queued) (execution string, fallback bool) {
	direct := p.Execution == ExecutionDirect && q.Mode != ModeInteractive && q.PriorWorkflowID == "" &&
		len(q.ContextFields) == 0 && len(p.ApprovalGates) == 0
	if direct {
		return ExecutionDirect, false
	}
	return ExecutionStandard, p.RequestedExecution() == ExecutionDirect
}

// Direct reports whether the run is direct: execute decided so and no
// runtime fallback happened.
func (w *Workflow) Direct() bool {
	return w.queued != nil && w.queued.Execution == ExecutionDirect && w.fellBack == nil
}

// ExecutionMode is execution_mode: what runs or ran, or, before execute,
// what the plan would run.
func (w *Workflow) ExecutionMode() string {
	switch {
	case w.queued == nil && w.planned.Execution == ExecutionDirect, w.Direct():
		return ExecutionDirect
	}
	return ExecutionStandard
}

// ExecutionFallback is execution_fallback: direct was explicitly requested
// but standard runs (decided at plan time, at execute, or at run start).
func (w *Workflow) ExecutionFallback() bool {
	return w.planned.RequestedExecution() == ExecutionDirect && w.ExecutionMode() == ExecutionStandard
}

// FellBack is the runtime fallback, nil when none happened.
func (w *Workflow) FellBack() *ExecutionFellBack { return w.fellBack }

// RuntimeFallback decides whether a direct run must fall back as it
// starts; allowed is the server's switch (SVC_DIRECT_EXECUTION), limit the
// composition limit. ok is false when the run stays as it is.
func (w *Workflow) RuntimeFallback(allowed bool, limit int) (ExecutionFellBack, bool) {
	switch {
	case !w.Direct():
		return ExecutionFellBack{}, false
	case !allowed:
		return ExecutionFellBack{Reason: FallbackServerDisallowed,
			Message: "Direct execution is disabled on this server; the workflow runs as standard execution."}, true
	case w.planned.ContentSteps() > limit:
		return ExecutionFellBack{Reason: FallbackCompositionLimit, Message: fmt.Sprintf(
			"The workflow has %d content steps, over the composition limit of %d; it runs as standard execution.", w.planned.ContentSteps(), limit)}, true
	}
	return ExecutionFellBack{}, false
}

// Composable returns the content steps one direct-execution call writes
// when step is next: every content step without a result, in plan order
// (step first among them); nil when the run is not direct or step is not
// a content step.
func (w *Workflow) Composable(step PlannedStep) []PlannedStep {
	if !w.Direct() || step.Kind != KindContent {
		return nil
	}
	var out []PlannedStep
	for i, s := range w.steps {
		if !s.done() && w.planned.Steps[i].Kind == KindContent {
			out = append(out, w.planned.Steps[i])
		}
	}
	return out
}

// Attempt is the attempt number the next start of step n has: 1 first,
// then one past the step's starts so far, a start a takeover abandoned
// included (decision 129).
func (w *Workflow) Attempt(n int) int {
	s, err := w.step(n)
	if err != nil {
		return 1
	}
	return s.started + 1
}

// Contract is the output_contract a direct run validates its Synthesis
// step against; ok is false for a standard run or a plan without one.
func (w *Workflow) Contract() (contract.Contract, bool) {
	raw := w.planned.OutputContract()
	if !w.Direct() || raw == nil {
		return contract.Contract{}, false
	}
	c, err := contract.Parse(raw)
	return c, err == nil
}

// ValidationReview is the review a conforming contract output gets instead
// of the independent review (spec A: deterministic validation replaces
// it): a score of 100 when the output conformed as given, 90 when only
// after normalisation. ok is false when no step has such an output.
func (w *Workflow) ValidationReview() (Reviewed, bool) {
	for _, s := range w.steps {
		c := s.completed
		if c == nil || c.Deliverable == nil || c.OutputValidationStatus == "" {
			continue
		}
		switch contract.Status(c.OutputValidationStatus) {
		case contract.Valid:
			score := ScoreValid
			return Reviewed{Score: &score, Summary: "Deterministic validation against the output_contract replaced the independent review: the output conforms as given (valid)."}, true
		case contract.ValidAfterNormalization:
			score := ScoreValidNormalise
			return Reviewed{Score: &score, Summary: "Deterministic validation against the output_contract replaced the independent review: the output conforms after normalisation (valid_after_normalization).",
				PathTo100: []string{"Answer in the contract's exact form (types, enum spellings, no surrounding prose), so that no normalisation is needed."}}, true
		}
	}
	return Reviewed{}, false
}

// ContractDeliverable is the deliverable of a conforming contract output:
// the workflow's title and one section holding the findings, indented.
func (w *Workflow) ContractDeliverable(findings json.RawMessage) *Deliverable {
	pretty := string(findings)
	var buf bytes.Buffer
	if err := json.Indent(&buf, findings, "", "  "); err == nil {
		pretty = buf.String()
	}
	return &Deliverable{Title: w.planned.Title, Sections: []Section{{Heading: "Findings", Content: pretty}}}
}

// ViolationReason is the reason of a step whose output violates the
// contract: the status and every violation by path.
func ViolationReason(status string, violations []contract.Violation) string {
	parts := make([]string, 0, len(violations))
	for _, v := range violations {
		p := v.Path
		if p == "" {
			p = "(answer)"
		}
		parts = append(parts, p+": "+v.Message)
	}
	r := "The output violates the output_contract (" + status + ")"
	if len(parts) > 0 {
		r += ": " + strings.Join(parts, "; ")
	}
	return r + "."
}
