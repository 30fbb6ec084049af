package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"svc/commands"
	"svc/domain/workflow"
)

// interactiveStarted is execute's answer for mode interactive.
func interactiveStarted(res commands.WorkflowQueued) map[string]any {
	p := res.Planned
	seq := make([]map[string]any, 0, len(p.Steps))
	for i, st := range p.Steps {
		seq = append(seq, map[string]any{"index": i, "name": st.Name, "required": st.PriorityClass == "must"})
	}
	credits := p.Credits
	out := map[string]any{"ok": true, "workflow_id": p.WorkflowID, "status": workflow.StatusInteractiveWaiting,
		"classification": map[string]any{"task_type": p.TaskType, "value_class": p.ValueClass},
		"sequence":       seq, "total_steps": len(p.Steps), "cost": map[string]any{"credits": credits, "usd": float64(credits) * 0.001},
		"delivery_mode": workflow.ModeInteractive, "available_modes": []string{"sse", "polling", "webhook", "interactive"},
		"free": res.Queued.Free}
	if len(res.Queued.Warnings) > 0 {
		out["warnings"] = res.Queued.Warnings
	}
	return out
}

type stepBody struct {
	WorkflowID *string `json:"workflow_id"`
	Action     *string `json:"action"`
	Feedback   string  `json:"feedback"`
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
	res, err := s.stepWorkflow.Handle(r.Context(), commands.StepWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, WorkflowID: id,
		Action: *body.Action, Feedback: body.Feedback})
	if errors.Is(err, workflow.ErrSessionExpired) {
		s.waitFor(r.Context(), res.Position, "workflows") // the timeout is committed: listings show it with the 410
	}
	if err != nil {
		return stepError(err)
	}
	s.waitFor(r.Context(), res.Position, "workflows")
	out := map[string]any{"ok": true, "workflow_id": id, "status": res.Status}
	switch *body.Action {
	case commands.StepNext:
		s.kicker.Kick(id)
		out["step"] = map[string]any{"index": res.Step.Step - 1, "name": res.Step.Name}
		out["poll_url"] = s.cfg.BaseURL + "/api/rigor/status/" + id
		out["message"] = "Step " + strconv.Itoa(res.Step.Step) + " (" + res.Step.Name + ") is running; poll the status until it is interactive_waiting again."
	case commands.StepSkip: // status: interactive_waiting, or executing once the last step is skipped
		out["step_executed"] = map[string]any{"step": res.Step.Step, "name": res.Step.Name, "status": "skipped"}
		out["next_step"] = nil
		if res.HasNext {
			out["next_step"] = map[string]any{"index": res.NextStep.Step - 1, "name": res.NextStep.Name}
		} else {
			s.kicker.Kick(id) // the last step was skipped: the run ends
		}
		out["steps_completed"], out["total_steps"] = res.StepsCompleted, res.TotalSteps
	case commands.StepAbort:
		out["steps_completed"], out["total_steps"] = res.StepsCompleted, res.TotalSteps
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

type approveBody struct {
	WorkflowID *string `json:"workflow_id"`
	Decision   *string `json:"decision"`
	Notes      string  `json:"notes"`
	AgentID    string  `json:"agent_id"`
}

// approve is POST /api/rigor/approve.
func (s *Server) approve(w http.ResponseWriter, r *http.Request) error {
	var body approveBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	switch {
	case body.WorkflowID == nil:
		return errMissingField("workflow_id")
	case body.Decision == nil:
		return errMissingField("decision")
	}
	p, _ := principalOf(r.Context())
	id := *body.WorkflowID
	res, err := s.approveWorkflow.Handle(r.Context(), commands.ApproveWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, WorkflowID: id,
		Decision: *body.Decision, Notes: body.Notes, AgentID: truncateRunes(body.AgentID, agentIDMax)})
	switch {
	case errors.Is(err, commands.ErrInvalidDecision):
		return errInvalidField("decision", "must be approved or rejected")
	case errors.Is(err, workflow.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such workflow in your organization.")
	case errors.Is(err, workflow.ErrInvalidStatus):
		return newError(http.StatusConflict, "invalid_status", "The workflow is not at pending_approval.").
			withDetail("allowed_statuses", []string{workflow.StatusPendingApproval})
	case err != nil:
		return &wrapped{newError(http.StatusInternalServerError, "approve_failed", "The decision could not be recorded; retry."), err}
	}
	s.waitFor(r.Context(), res.Position, "workflows")
	if *body.Decision == commands.DecisionRejected {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true,
			"workflow": map[string]any{"workflow_id": id, "status": workflow.StatusFailed, "halt_reason": "rejected"},
			"message":  "Rejected: the workflow failed at its approval gate and no further steps run."})
		return nil
	}
	s.kicker.Kick(id)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "workflow_id": id, "decision": commands.DecisionApproved,
		"message": "Approved: the workflow resumes with step " + strconv.Itoa(res.Gate+1) + "."})
	return nil
}

type resumeBody struct {
	WorkflowID       *string `json:"workflow_id"`
	RevisionGuidance *string `json:"revision_guidance"`
}

// resume is POST /api/rigor/resume[?approve=true].
func (s *Server) resume(w http.ResponseWriter, r *http.Request) error {
	var body resumeBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	if body.WorkflowID == nil {
		return errMissingField("workflow_id")
	}
	p, _ := principalOf(r.Context())
	id := *body.WorkflowID
	guidance := ""
	if body.RevisionGuidance != nil {
		guidance = *body.RevisionGuidance
	}
	res, err := s.resumeWorkflow.Handle(r.Context(), commands.ResumeWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, Tier: string(p.Tier),
		WorkflowID: id, Approve: r.URL.Query().Get("approve") == "true", RevisionGuidance: guidance})
	if err != nil {
		return resumeError(err)
	}
	s.waitFor(r.Context(), res.Position, "workflows")
	s.kicker.Kick(id)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "workflow_id": id, "status": workflow.StatusResuming,
		"resuming_from_step": res.FromStep, "total_steps": res.TotalSteps, "poll_url": s.cfg.BaseURL + "/api/rigor/status/" + id,
		"message":           "Resuming from step " + strconv.Itoa(res.FromStep) + "; only the remaining steps are charged.",
		"revision_guidance": body.RevisionGuidance})
	return nil
}

func resumeError(err error) error {
	var (
		credits *commands.InsufficientCreditsError
		limit   *commands.ConcurrentLimitError
	)
	switch {
	case errors.Is(err, workflow.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such workflow in your organization.")
	case errors.Is(err, commands.ErrResumeConflict):
		return newError(http.StatusConflict, "resume_conflict", "Another resume of this workflow is in flight.").
			withFix("Poll the status; do not resume twice.")
	case errors.Is(err, workflow.ErrAlreadyComplete):
		return newError(http.StatusConflict, "already_complete", "Every step already has a result; there is nothing to resume.")
	case errors.Is(err, workflow.ErrNeedsApproval):
		return newError(http.StatusConflict, "pending_human_review", "The workflow awaits a human decision.").
			withFix("Resume with the query string approve=true to approve it.")
	case errors.Is(err, workflow.ErrInvalidStatus):
		return newError(http.StatusConflict, "invalid_status", "The workflow's status does not permit resume.").
			withDetail("allowed_statuses", workflow.ResumableStatuses)
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The balance does not cover the remaining steps.").
			withDetail("required_credits", credits.Required).withDetail("balance", credits.Balance)
	case errors.As(err, &limit):
		return executeError(err)
	}
	return &wrapped{errInternal, err}
}
