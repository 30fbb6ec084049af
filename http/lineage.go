package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"svc/domain/workflow"
)

// lineageEntry is an entry of lineage's chain.
type lineageEntry struct {
	WorkflowID string    `json:"workflow_id"`
	Status     string    `json:"status"`
	TaskType   string    `json:"task_type"`
	TotalSteps int       `json:"total_steps"`
	CreatedAt  time.Time `json:"created_at"`
}

// lineage is GET /api/rigor/lineage/{workflow_id}: the chain that ends at
// the workflow, walked back through prior_workflow_id and answered oldest
// first, from the read model in one query (or a workflow's stream while
// the read model lags).
func (s *Server) lineage(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(mux.Vars(r)["workflow_id"])
	if id == "" {
		return errMissingField("workflow_id").withFix("Call GET /api/rigor/lineage/{workflow_id}.")
	}
	p, _ := principalOf(r.Context())
	views, err := s.queries.Lineage(r.Context(), p.OrgID, id)
	switch {
	case errors.Is(err, workflow.ErrChainDepth):
		return newError(http.StatusUnprocessableEntity, "chain_depth_exceeded", "The chain of this workflow has more than 10 links.").
			withDetail("max_depth", workflow.MaxChainDepth)
	case errors.Is(err, workflow.ErrNotFound):
		return errWorkflowNotFound(id)
	case err != nil:
		return err
	}
	chain := make([]lineageEntry, len(views))
	total := 0
	for i, v := range views {
		chain[i] = lineageEntry{WorkflowID: v.WorkflowID, Status: v.Status, TaskType: v.TaskType, TotalSteps: v.TotalSteps, CreatedAt: v.CreatedAt}
		total += v.TotalSteps
	}
	writeJSON(w, http.StatusOK, lineageResponse{OK: true, Chain: chain, TotalSteps: total, ChainDepth: len(chain)})
	return nil
}

// lineageResponse is the answer of GET /api/rigor/lineage/{workflow_id}.
type lineageResponse struct {
	OK         bool           `json:"ok"`
	Chain      []lineageEntry `json:"chain"`
	TotalSteps int            `json:"total_steps"`
	ChainDepth int            `json:"chain_depth"`
}
