package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"svc/domain/workflow"
)

// statusResponse is the answer of GET /api/rigor/status/{workflow_id}.
type statusResponse struct {
	OK       bool          `json:"ok"`
	Workflow workflow.View `json:"workflow"`
}

// status is GET /api/rigor/status/{workflow_id}: the Workflow resource,
// from the read model or, while it lags, from the workflow's stream.
func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["workflow_id"]
	p, _ := principalOf(r.Context())
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		// the event stream of a workflow, for clients that reconnect with
		// GET (EventSource) rather than by resending execute
		if _, err := s.queries.Workflow(r.Context(), p.OrgID, id); err != nil {
			return errWorkflowNotFound(id)
		}
		lastID, marker, _ := strings.Cut(r.Header.Get("Last-Event-ID"), ":")
		if lastID != id { // an id of another workflow is unknown here: replay everything
			marker = ""
		}
		return s.stream(w, r, id, marker)
	}
	v, err := s.queries.Workflow(r.Context(), p.OrgID, id)
	if errors.Is(err, workflow.ErrNotFound) {
		return errWorkflowNotFound(id)
	}
	if err != nil {
		return err
	}
	if !p.Tier.IsPaid() { // step models are shown to Pro and above
		for i := range v.CompletedStepSummaries {
			v.CompletedStepSummaries[i].Model = ""
		}
	}
	writeJSON(w, http.StatusOK, statusResponse{OK: true, Workflow: v})
	return nil
}
