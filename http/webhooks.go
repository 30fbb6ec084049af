package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"svc/domain/workflow"
	"svc/projections"
)

// deliveriesResponse is the answer of GET /api/rigor/webhooks/deliveries.
type deliveriesResponse struct {
	OK         bool                      `json:"ok"`
	RequestID  string                    `json:"request_id"`
	WorkflowID string                    `json:"workflow_id"`
	Deliveries []projections.DeliveryRow `json:"deliveries"`
}

// webhookDeliveries is GET /api/rigor/webhooks/deliveries?workflow_id=: the
// webhook delivery log of one workflow of the caller's organization, each
// delivery with its state and every attempt.
func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.URL.Query().Get("workflow_id"))
	if id == "" {
		return errMissingField("workflow_id")
	}
	p, _ := principalOf(r.Context())
	if _, err := s.queries.Workflow(r.Context(), p.OrgID, id); errors.Is(err, workflow.ErrNotFound) {
		return errWorkflowNotFound(id)
	} else if err != nil {
		return err
	}
	rows, err := s.queries.Deliveries(r.Context(), p.OrgID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deliveriesResponse{OK: true, RequestID: requestID(r.Context()), WorkflowID: id, Deliveries: rows})
	return nil
}
