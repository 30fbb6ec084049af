package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"svc/commands"
	"svc/domain/workflow"
)

type actionsBody struct {
	Action      *string  `json:"action"`
	WorkflowIDs []string `json:"workflow_ids"`
	Confirm     bool     `json:"confirm"`
	Force       bool     `json:"force"`
}

// workflowActions is POST /api/rigor/workflows/actions: bulk cancel, a
// preview unless confirm.
func (s *Server) workflowActions(w http.ResponseWriter, r *http.Request) error {
	var body actionsBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	if body.Action == nil {
		return errMissingField("action")
	}
	if *body.Action != "cancel" {
		return newError(http.StatusBadRequest, "invalid_action", "action must be cancel.")
	}
	p, _ := principalOf(r.Context())
	res, err := s.commands.CancelWorkflows.Handle(r.Context(), commands.CancelWorkflows{OrgID: p.OrgID, KeyID: p.KeyID,
		IDs: body.WorkflowIDs, Force: body.Force, Confirm: body.Confirm})
	switch {
	case errors.Is(err, commands.ErrNoWorkflowIDs):
		return newError(http.StatusBadRequest, "no_workflow_ids", "workflow_ids is missing or empty.")
	case errors.Is(err, commands.ErrBulkLimit):
		return newError(http.StatusBadRequest, "bulk_limit_exceeded", "At most 20 workflow ids per request.").
			withDetail("max", commands.BulkLimit)
	case err != nil:
		return &wrapped{errInternal, err}
	}
	skipped := make([]skippedWorkflow, 0, len(res.Skipped))
	for _, c := range res.Skipped {
		skipped = append(skipped, skippedWorkflow{WorkflowID: c.WorkflowID, Reason: c.Reason})
	}
	if !body.Confirm {
		affected := make([]affectedWorkflow, 0, len(res.Affected))
		for _, c := range res.Affected {
			affected = append(affected, affectedWorkflow{WorkflowID: c.WorkflowID, CurrentStatus: c.Status, Action: c.Action})
		}
		writeJSON(w, http.StatusOK, cancelPreviewResponse{OK: true, RequestID: requestID(r.Context()), Preview: true,
			Affected: affected, WouldSkip: skipped,
			Message: strconv.Itoa(len(affected)) + " workflow(s) would be cancelled and " + strconv.Itoa(len(skipped)) +
				" skipped; send confirm: true to cancel."})
		return nil
	}
	succeeded := make([]cancelledWorkflow, 0, len(res.Succeeded))
	for _, c := range res.Succeeded {
		succeeded = append(succeeded, cancelledWorkflow{WorkflowID: c.WorkflowID, PreviousStatus: c.Status, NewStatus: workflow.StatusCancelled})
	}
	failed := make([]skippedWorkflow, 0, len(res.Failed))
	for _, c := range res.Failed {
		failed = append(failed, skippedWorkflow{WorkflowID: c.WorkflowID, Reason: c.Reason})
	}
	out := cancelResponse{OK: true, metered: metered{RequestID: requestID(r.Context())},
		Results: cancelResults{Succeeded: succeeded, Failed: failed, Skipped: skipped},
		Message: strconv.Itoa(len(succeeded)) + " cancelled, " + strconv.Itoa(len(skipped)) + " skipped, " + strconv.Itoa(len(failed)) + " failed."}
	if b, err := s.queries.Balance(r.Context(), p.OrgID); err == nil {
		out.CreditsRemaining = &b.Balance
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// cancelPreviewResponse is the answer of a bulk cancel without confirm.
type cancelPreviewResponse struct {
	OK        bool               `json:"ok"`
	RequestID string             `json:"request_id"`
	Preview   bool               `json:"preview"`
	Affected  []affectedWorkflow `json:"affected"`
	WouldSkip []skippedWorkflow  `json:"would_skip"`
	Message   string             `json:"message"`
}

// cancelResponse is the answer of a confirmed bulk cancel.
type cancelResponse struct {
	OK bool `json:"ok"`
	metered
	Results cancelResults `json:"results"`
	Message string        `json:"message"`
}

// cancelResults sorts a bulk cancel's workflows by outcome.
type cancelResults struct {
	Succeeded []cancelledWorkflow `json:"succeeded"`
	Failed    []skippedWorkflow   `json:"failed"`
	Skipped   []skippedWorkflow   `json:"skipped"`
}

// affectedWorkflow is a workflow a bulk cancel would cancel.
type affectedWorkflow struct {
	WorkflowID    string `json:"workflow_id"`
	CurrentStatus string `json:"current_status"`
	Action        string `json:"action"`
}

// cancelledWorkflow is a workflow a bulk cancel cancelled.
type cancelledWorkflow struct {
	WorkflowID     string `json:"workflow_id"`
	PreviousStatus string `json:"previous_status"`
	NewStatus      string `json:"new_status"`
}

// skippedWorkflow is a workflow a bulk cancel left alone, and why.
type skippedWorkflow struct {
	WorkflowID string `json:"workflow_id"`
	Reason     string `json:"reason"`
}
