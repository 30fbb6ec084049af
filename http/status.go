package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"svc/domain/workflow"
	"svc/projections"
)

// status is GET /api/rigor/status/{workflow_id}.
func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["workflow_id"]
	p, _ := principalOf(r.Context())
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		// the event stream of a workflow, for clients that reconnect with
		// GET (EventSource) rather than by resending execute
		if _, err := s.loadWorkflow(r.Context(), p.OrgID, id); err != nil {
			return errWorkflowNotFound(id)
		}
		lastID, marker, _ := strings.Cut(r.Header.Get("Last-Event-ID"), ":")
		if lastID != id { // an id of another workflow is unknown here: replay everything
			marker = ""
		}
		return s.stream(w, r, id, marker)
	}
	v, err := s.workflowView(r.Context(), p.OrgID, id)
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
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "workflow": v})
	return nil
}

// workflowView is the Workflow resource of a workflow of orgID: the read
// model's, or, while the projection has not caught up with the workflow's
// stream, the stream folded (so a client reads its own writes).
func (s *Server) workflowView(ctx context.Context, orgID, id string) (workflow.View, error) {
	if !workflow.ValidID(id) {
		return workflow.View{}, workflow.ErrNotFound
	}
	row, err := projections.Workflow(ctx, s.store.Pool(), orgID, id)
	switch {
	case errors.Is(err, projections.ErrNotFound):
	case err != nil:
		return workflow.View{}, err
	default:
		head, err := s.store.Version(ctx, workflow.Stream(id))
		if err != nil {
			return workflow.View{}, err
		}
		if head <= row.Version {
			return row.View, nil
		}
	}
	wf, err := s.loadWorkflow(ctx, orgID, id)
	if err != nil {
		return workflow.View{}, err
	}
	return wf.View(true), nil
}

// loadWorkflow folds a workflow's stream; another org's is ErrNotFound.
func (s *Server) loadWorkflow(ctx context.Context, orgID, id string) (*workflow.Workflow, error) {
	events, err := s.store.Load(ctx, workflow.Stream(id))
	if err != nil {
		return nil, err
	}
	wf, err := workflow.Load(events)
	if err != nil {
		return nil, err
	}
	if wf.OrgID() != orgID {
		return nil, workflow.ErrNotFound
	}
	return wf, nil
}
