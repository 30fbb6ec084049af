package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"svc/commands"
	"svc/domain/workflow"
)

// interactiveResponse is execute's answer for mode interactive.
type interactiveResponse struct {
	runQueued
	Classification classification `json:"classification"`
	Sequence       []sequenceStep `json:"sequence"`
	TotalSteps     int            `json:"total_steps"`
	Cost           planCost       `json:"cost"`
}

// classification is a workflow's task type and value class.
type classification struct {
	TaskType   string `json:"task_type"`
	ValueClass string `json:"value_class"`
}

// sequenceStep is a step of an interactive workflow's sequence.
type sequenceStep struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// interactiveStarted is execute's answer for mode interactive.
func interactiveStarted(res commands.WorkflowQueued) interactiveResponse {
	p := res.Planned
	seq := make([]sequenceStep, 0, len(p.Steps))
	for i, st := range p.Steps {
		seq = append(seq, sequenceStep{Index: i, Name: st.Name, Required: st.PriorityClass == "must"})
	}
	return interactiveResponse{runQueued: newRunQueued(res, workflow.StatusInteractiveWaiting, workflow.ModeInteractive),
		Classification: classification{TaskType: p.TaskType, ValueClass: p.ValueClass},
		Sequence:       seq, TotalSteps: len(p.Steps), Cost: planCost{Credits: p.Credits, USD: float64(p.Credits) * 0.001}}
}

type stepBody struct {
	WorkflowID *string `json:"workflow_id"`
	Action     *string `json:"action"`
	Feedback   string  `json:"feedback"`
}

// stepResponse is the answer of POST /api/rigor/step: the fields of the
// action taken (next: stepStarted; skip: stepSkipped and stepProgress;
// abort: stepProgress).
type stepResponse struct {
	OK         bool   `json:"ok"`
	WorkflowID string `json:"workflow_id"`
	Status     string `json:"status"`
	*stepStarted
	*stepSkipped
	*stepProgress
}

// stepStarted is what next answers: the step now running.
type stepStarted struct {
	Step    stepRef `json:"step"`
	PollURL string  `json:"poll_url"`
	Message string  `json:"message"`
}

// stepSkipped is what skip answers: the skipped step and the next one
// (null when none is left).
type stepSkipped struct {
	StepExecuted skippedStep `json:"step_executed"`
	NextStep     *stepRef    `json:"next_step"`
}

// stepProgress counts the steps done of an interactive workflow.
type stepProgress struct {
	StepsCompleted int `json:"steps_completed"`
	TotalSteps     int `json:"total_steps"`
}

// stepRef names a step by its 0-based index.
type stepRef struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// skippedStep is a step skip skipped.
type skippedStep struct {
	Step   int    `json:"step"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// step is POST /api/rigor/step: next, skip or abort of an interactive
// workflow.
func (s *Server) step(w http.ResponseWriter, r *http.Request) error {
	var body stepBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	switch {
	case body.WorkflowID == nil:
		return errMissingField("workflow_id")
	case body.Action == nil:
		return errMissingField("action")
	}
	p, _ := principalOf(r.Context())
	if !p.Tier.IsPaid() {
		return newError(http.StatusForbidden, "tier_required", "Interactive mode needs the Pro tier or above.").withDetail("required_tier", "pro")
	}
	id := *body.WorkflowID
	res, err := s.commands.StepWorkflow.Handle(r.Context(), commands.StepWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, WorkflowID: id,
		Action: *body.Action, Feedback: body.Feedback})
	if err != nil { // an expired session's timeout is committed, and waited for, like any write
		return stepError(err)
	}
	out := stepResponse{OK: true, WorkflowID: id, Status: res.Status}
	progress := &stepProgress{StepsCompleted: res.StepsCompleted, TotalSteps: res.TotalSteps}
	switch *body.Action {
	case commands.StepNext:
		s.kicker.Kick(id)
		out.stepStarted = &stepStarted{Step: stepRef{Index: res.Step.Step - 1, Name: res.Step.Name}, PollURL: s.pollURL(id),
			Message: "Step " + strconv.Itoa(res.Step.Step) + " (" + res.Step.Name + ") is running; poll the status until it is interactive_waiting again."}
	case commands.StepSkip: // status: interactive_waiting, or executing once the last step is skipped
		out.stepSkipped = &stepSkipped{StepExecuted: skippedStep{Step: res.Step.Step, Name: res.Step.Name, Status: "skipped"}}
		if res.HasNext {
			out.NextStep = &stepRef{Index: res.NextStep.Step - 1, Name: res.NextStep.Name}
		} else {
			s.kicker.Kick(id) // the last step was skipped: the run ends
		}
		out.stepProgress = progress
	case commands.StepAbort:
		out.stepProgress = progress
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func stepError(err error) error {
	var credits *commands.InsufficientCreditsError
	switch {
	case errors.Is(err, commands.ErrInvalidAction):
		return newError(http.StatusBadRequest, "invalid_action", "action must be next, skip or abort.")
	case errors.Is(err, workflow.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such workflow in your organization.")
	case errors.Is(err, workflow.ErrNotInteractive):
		return errInvalidField("workflow_id", "the workflow was not created with mode: interactive").
			withFix("Execute with mode: interactive to drive a workflow step by step, or poll this one.")
	case errors.Is(err, workflow.ErrNoPlan):
		return newError(http.StatusBadRequest, "no_plan", "The workflow has no plan.")
	case errors.Is(err, workflow.ErrStepInProgress):
		return newError(http.StatusConflict, "concurrent_step", "A step of this workflow is running.").
			withFix("Retry in 2-3 seconds.").withRetryAfter(3)
	case errors.Is(err, workflow.ErrSessionExpired):
		return newError(http.StatusGone, "session_expired", "The interactive session was idle too long; the workflow is now timed_out.").
			withFix("Resume it with POST /api/rigor/resume to run the remaining steps.")
	case errors.Is(err, workflow.ErrInvalidStatus):
		return newError(http.StatusConflict, "invalid_status", "The workflow is not at interactive_waiting.").
			withDetail("allowed_statuses", []string{workflow.StatusInteractiveWaiting})
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The balance does not cover the next step.").
			withDetail("required_credits", credits.Required).withDetail("balance", credits.Balance)
	}
	return &wrapped{newError(http.StatusInternalServerError, "step_error", "The step action could not be recorded; retry."), err}
}
