package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"svc/domain/workflow"
	"svc/projections"
)

// webhookDeliveries is GET /api/rigor/webhooks/deliveries?workflow_id=: the
// webhook delivery log of one workflow of the caller's organization, each
// delivery with its state and every attempt.
func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.URL.Query().Get("workflow_id"))
	if id == "" {
		return errMissingField("workflow_id")
	}
	p, _ := principalOf(r.Context())
	if _, err := s.workflowView(r.Context(), p.OrgID, id); errors.Is(err, workflow.ErrNotFound) {
		return errWorkflowNotFound(id)
	} else if err != nil {
		return err
	}
	rows, err := projections.Deliveries(r.Context(), s.store.Pool(), p.OrgID, id)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []projections.DeliveryRow{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "request_id": requestID(r.Context()), "workflow_id": id, "deliveries": rows})
	return nil
}
