package projections

import (
	"context"
	"fmt"

	"svc/domain/workflow"
	"svc/eventstore"
)

// Chain reads, in one query, workflow id of orgID and the workflows before
// it through prior_workflow_id, at most limit of them, newest first. Each
// view carries only the fields lineage answers (id, status, task type,
// total steps, created_at, prior id). A link the read model does not hold
// yet ends the result early; the caller reads it from its stream.
func Chain(ctx context.Context, db eventstore.DB, orgID, id string, limit int) (map[string]workflow.View, error) {
	rows, err := db.Query(ctx, `WITH RECURSIVE chain AS (
			SELECT workflow_id, status, task_type, total_steps, created_at, coalesce(view->>'prior_workflow_id', '') AS prior, 1 AS depth
			FROM workflows WHERE workflow_id = $1 AND org_id = $2
			UNION ALL
			SELECT w.workflow_id, w.status, w.task_type, w.total_steps, w.created_at, coalesce(w.view->>'prior_workflow_id', ''), c.depth + 1
			FROM chain c JOIN workflows w ON w.workflow_id = c.prior AND w.org_id = $2
			WHERE c.depth < $3)
		SELECT workflow_id, status, task_type, total_steps, created_at, prior FROM chain`, id, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("read lineage: %w", err)
	}
	defer rows.Close()
	out := map[string]workflow.View{}
	for rows.Next() {
		var v workflow.View
		if err := rows.Scan(&v.WorkflowID, &v.Status, &v.TaskType, &v.TotalSteps, &v.CreatedAt, &v.PriorWorkflowID); err != nil {
			return nil, fmt.Errorf("read lineage: %w", err)
		}
		out[v.WorkflowID] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read lineage: %w", err)
	}
	return out, nil
}
