package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"svc/commands"
	"svc/domain/workflow"
	"svc/projections"
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
	res, err := s.cancelWorkflows.Handle(r.Context(), commands.CancelWorkflows{OrgID: p.OrgID, KeyID: p.KeyID,
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
	skipped := make([]map[string]any, 0, len(res.Skipped))
	for _, c := range res.Skipped {
		skipped = append(skipped, map[string]any{"workflow_id": c.WorkflowID, "reason": c.Reason})
	}
	out := map[string]any{"ok": true, "request_id": requestID(r.Context())}
	if !body.Confirm {
		affected := make([]map[string]any, 0, len(res.Affected))
		for _, c := range res.Affected {
			affected = append(affected, map[string]any{"workflow_id": c.WorkflowID, "current_status": c.Status, "action": c.Action})
		}
		out["preview"], out["affected"], out["would_skip"] = true, affected, skipped
		out["message"] = strconv.Itoa(len(affected)) + " workflow(s) would be cancelled and " + strconv.Itoa(len(skipped)) +
			" skipped; send confirm: true to cancel."
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	succeeded := make([]map[string]any, 0, len(res.Succeeded))
	for _, c := range res.Succeeded {
		succeeded = append(succeeded, map[string]any{"workflow_id": c.WorkflowID, "previous_status": c.Status, "new_status": workflow.StatusCancelled})
	}
	failed := make([]map[string]any, 0, len(res.Failed))
	for _, c := range res.Failed {
		failed = append(failed, map[string]any{"workflow_id": c.WorkflowID, "reason": c.Reason})
	}
	s.waitFor(r.Context(), res.Position, "workflows")
	out["credits_used"] = 0
	out["credits_remaining"] = nil
	if b, err := projections.Balance(r.Context(), s.store.Pool(), p.OrgID); err == nil {
		out["credits_remaining"] = b.Balance
	}
	out["results"] = map[string]any{"succeeded": succeeded, "failed": failed, "skipped": skipped}
	out["message"] = strconv.Itoa(len(succeeded)) + " cancelled, " + strconv.Itoa(len(skipped)) + " skipped, " + strconv.Itoa(len(failed)) + " failed."
	writeJSON(w, http.StatusOK, out)
	return nil
}
