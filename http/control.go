package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/workflow"
)

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
	res, err := s.commands.ApproveWorkflow.Handle(r.Context(), commands.ApproveWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, WorkflowID: id,
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
	if *body.Decision == commands.DecisionRejected {
		writeJSON(w, http.StatusOK, rejectedResponse{OK: true,
			Workflow: rejectedWorkflow{WorkflowID: id, Status: workflow.StatusFailed, HaltReason: "rejected"},
			Message:  "Rejected: the workflow failed at its approval gate and no further steps run."})
		return nil
	}
	s.kicker.Kick(id)
	writeJSON(w, http.StatusOK, approvedResponse{OK: true, WorkflowID: id, Decision: commands.DecisionApproved,
		Message: "Approved: the workflow resumes with step " + strconv.Itoa(res.Gate+1) + "."})
	return nil
}

// approvedResponse is the answer of an approval.
type approvedResponse struct {
	OK         bool   `json:"ok"`
	WorkflowID string `json:"workflow_id"`
	Decision   string `json:"decision"`
	Message    string `json:"message"`
}

// rejectedResponse is the answer of a rejection.
type rejectedResponse struct {
	OK       bool             `json:"ok"`
	Workflow rejectedWorkflow `json:"workflow"`
	Message  string           `json:"message"`
}

// rejectedWorkflow is the workflow a rejection failed.
type rejectedWorkflow struct {
	WorkflowID string `json:"workflow_id"`
	Status     string `json:"status"`
	HaltReason string `json:"halt_reason"`
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
	res, err := s.commands.ResumeWorkflow.Handle(r.Context(), commands.ResumeWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, Tier: string(p.Tier),
		WorkflowID: id, Approve: r.URL.Query().Get("approve") == "true", RevisionGuidance: guidance})
	if err != nil {
		return resumeError(err)
	}
	s.kicker.Kick(id)
	writeJSON(w, http.StatusOK, resumedResponse{OK: true, WorkflowID: id, Status: workflow.StatusResuming,
		ResumingFromStep: res.FromStep, TotalSteps: res.TotalSteps, PollURL: s.pollURL(id),
		Message:          "Resuming from step " + strconv.Itoa(res.FromStep) + "; only the remaining steps are charged.",
		RevisionGuidance: body.RevisionGuidance})
	return nil
}

// resumedResponse is the answer of POST /api/rigor/resume.
type resumedResponse struct {
	OK               bool    `json:"ok"`
	WorkflowID       string  `json:"workflow_id"`
	Status           string  `json:"status"`
	ResumingFromStep int     `json:"resuming_from_step"`
	TotalSteps       int     `json:"total_steps"`
	PollURL          string  `json:"poll_url"`
	Message          string  `json:"message"`
	RevisionGuidance *string `json:"revision_guidance"`
}

func resumeError(err error) error {
	var (
		credits *commands.InsufficientCreditsError
		limit   *commands.ConcurrentLimitError
	)
	var overBudget *credit.BudgetExceededError
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
	case errors.As(err, &overBudget): // budget.go
		return errBudgetExceeded(overBudget)
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The balance does not cover the remaining steps.").
			withDetail("required_credits", credits.Required).withDetail("balance", credits.Balance)
	case errors.As(err, &limit):
		return executeError(err)
	}
	return &wrapped{errInternal, err}
}
