package projections

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/suite"
	"svc/eventstore"
)

// UsageCell is an org's net usage in one time bucket for one surface,
// workspace, key and task type.
type UsageCell struct {
	// Bucket is the start of the bucket (UTC).
	Bucket  time.Time
	Surface string
	// Product is the product that spent it: "rigor" for workflows and
	// the workflow API's other charges, else the suite's product that the
	// charge's reason names ("guardrail" for "guardrail.check").
	Product string
	// WorkspaceID is "" when unknown (a charge with neither workflow nor key).
	WorkspaceID string
	// KeyID is the server-resolved key; "" for a browser session.
	KeyID string
	// TaskType is "" for charges outside a workflow.
	TaskType string
	// Credits is net: refunds are subtracted.
	Credits int64
	// Calls counts charges (refunds are not calls).
	Calls int64
	// Steps and Workflows count charged steps and workflows that stayed
	// charged: a refund that returns a workflow's whole charge takes them
	// back, in its own bucket.
	Steps, Workflows int64
}

// UsageUnits are the bucket sizes UsageCells accepts (date_trunc units).
var UsageUnits = []string{"hour", "day", "week", "month"}

// UsageCells sums an org's usage in [from, to) by bucket of unit (hour,
// day, week from Monday, month; all in UTC), surface, workspace, key and
// task type.
func UsageCells(ctx context.Context, db eventstore.DB, orgID string, from, to time.Time, unit string) ([]UsageCell, error) {
	if !slices.Contains(UsageUnits, unit) {
		return nil, fmt.Errorf("usage: unknown bucket unit %q", unit)
	}
	rows, err := db.Query(ctx, `SELECT date_trunc($4, at, 'UTC'), surface, coalesce(workspace_id, ''), coalesce(key_id, ''), coalesce(task_type, ''),
			CASE WHEN surface <> 'workflow' AND split_part(reason, '.', 1) = ANY($5) THEN split_part(reason, '.', 1) ELSE 'rigor' END,
			sum(credits), sum(charges), sum(steps), sum(workflows)
		FROM usage_charges WHERE org_id = $1 AND at >= $2 AND at < $3
		GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`, orgID, from, to, unit, suiteProducts())
	if err != nil {
		return nil, fmt.Errorf("usage: read charges: %w", err)
	}
	cells, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UsageCell, error) {
		var c UsageCell
		err := r.Scan(&c.Bucket, &c.Surface, &c.WorkspaceID, &c.KeyID, &c.TaskType, &c.Product, &c.Credits, &c.Calls, &c.Steps, &c.Workflows)
		c.Bucket = c.Bucket.UTC()
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("usage: read charges: %w", err)
	}
	return cells, nil
}

// suiteProducts are the suite's product names, as charges' reasons begin.
func suiteProducts() []string {
	out := make([]string, len(suite.Products))
	for i, p := range suite.Products {
		out[i] = string(p)
	}
	return out
}

// UsageNames returns the display names of an org's keys (label, or prefix
// without one) and workspaces, by id.
func UsageNames(ctx context.Context, db eventstore.DB, orgID string) (keys, workspaces map[string]string, err error) {
	keys, workspaces = map[string]string{}, map[string]string{}
	if err := collectNames(ctx, db, keys, `SELECT key_id::text, coalesce(nullif(label, ''), prefix) FROM api_keys WHERE org_id = $1`, orgID); err != nil {
		return nil, nil, fmt.Errorf("usage: key names: %w", err)
	}
	if err := collectNames(ctx, db, workspaces, `SELECT id::text, name FROM workspaces WHERE org_id = $1`, orgID); err != nil {
		return nil, nil, fmt.Errorf("usage: workspace names: %w", err)
	}
	return keys, workspaces, nil
}

func collectNames(ctx context.Context, db eventstore.DB, into map[string]string, sql, orgID string) error {
	rows, err := db.Query(ctx, sql, orgID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		into[id] = name
	}
	return rows.Err()
}
