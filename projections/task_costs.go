package projections

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// TaskCosts is the execution history of each task type: how far what
// completed workflows cost strayed from their estimate. The plan's
// cost.range comes from it. It is kept per organization and summed when
// read, so that erasing an organization takes its runs out of the history
// (a rebuild from the log without them equals the live model).
type TaskCosts struct{}

// SchemaVersion implements Versioned: 2 keeps a row per task type and
// organization (org_id), summed by TaskCost.
func (TaskCosts) SchemaVersion() int { return 2 }

// Name implements Projection.
func (TaskCosts) Name() string { return "task_costs" }

// Tables implements Projection.
func (TaskCosts) Tables() []Table {
	return []Table{{
		Name: "task_costs",
		DDL: `task_type text NOT NULL,
			org_id text NOT NULL,
			runs bigint NOT NULL,
			min_ratio double precision NOT NULL,
			max_ratio double precision NOT NULL,
			credits bigint NOT NULL,
			PRIMARY KEY (task_type, org_id)`,
		Storage: "fillfactor = 50",
	}}
}

// EventTypes implements Projection.
func (TaskCosts) EventTypes() []string { return []string{workflow.EventCompleted} }

// Apply implements Projection: every charged completion (completed or
// completed_partial, not the free first run) widens its type's range.
func (TaskCosts) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	b := &pgx.Batch{}
	for _, e := range events {
		d, ok := e.Payload.(workflow.Completed)
		if !ok {
			continue
		}
		if d.Free || d.Estimated <= 0 || d.TaskType == "" {
			continue
		}
		ratio := float64(d.CreditsUsed) / float64(d.Estimated)
		b.Queue(`INSERT INTO `+t.Of("task_costs")+` AS c (task_type, org_id, runs, min_ratio, max_ratio, credits) VALUES ($1, $2, 1, $3, $3, $4)
			ON CONFLICT (task_type, org_id) DO UPDATE SET runs = c.runs + 1, min_ratio = least(c.min_ratio, excluded.min_ratio),
				max_ratio = greatest(c.max_ratio, excluded.max_ratio), credits = c.credits + excluded.credits`,
			d.TaskType, e.Metadata.OrgID, ratio, d.CreditsUsed)
	}
	return sendBatch(ctx, tx, b)
}

// CostRatio is a task type's observed range of cost over estimate.
type CostRatio struct {
	Runs     int64
	Min, Max float64
}

// TaskCost returns the history of a task type, every organization's runs
// together; ok is false without one.
func TaskCost(ctx context.Context, db eventstore.DB, taskType string) (c CostRatio, ok bool, err error) {
	var runs *int64
	var lo, hi *float64
	err = db.QueryRow(ctx, `SELECT sum(runs)::bigint, min(min_ratio), max(max_ratio) FROM task_costs WHERE task_type = $1`, taskType).
		Scan(&runs, &lo, &hi)
	if err != nil {
		return CostRatio{}, false, fmt.Errorf("task cost history: %w", err)
	}
	if runs == nil || lo == nil || hi == nil {
		return CostRatio{}, false, nil
	}
	return CostRatio{Runs: *runs, Min: *lo, Max: *hi}, true, nil
}
