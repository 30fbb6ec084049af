package projections

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// TaskCosts is the execution history of each task type: how far what
// completed workflows cost strayed from their estimate. The plan's
// cost.range comes from it.
type TaskCosts struct{}

// Name implements Projection.
func (TaskCosts) Name() string { return "task_costs" }

// Tables implements Projection.
func (TaskCosts) Tables() []Table {
	return []Table{{
		Name: "task_costs",
		DDL: `task_type text PRIMARY KEY,
			runs bigint NOT NULL,
			min_ratio double precision NOT NULL,
			max_ratio double precision NOT NULL,
			credits bigint NOT NULL`,
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
		b.Queue(`INSERT INTO `+t.Of("task_costs")+` AS c (task_type, runs, min_ratio, max_ratio, credits) VALUES ($1, 1, $2, $2, $3)
			ON CONFLICT (task_type) DO UPDATE SET runs = c.runs + 1, min_ratio = least(c.min_ratio, excluded.min_ratio),
				max_ratio = greatest(c.max_ratio, excluded.max_ratio), credits = c.credits + excluded.credits`,
			d.TaskType, ratio, d.CreditsUsed)
	}
	return sendBatch(ctx, tx, b)
}

// CostRatio is a task type's observed range of cost over estimate.
type CostRatio struct {
	Runs     int64
	Min, Max float64
}

// TaskCost returns the history of a task type; ok is false without one.
func TaskCost(ctx context.Context, db eventstore.DB, taskType string) (c CostRatio, ok bool, err error) {
	err = db.QueryRow(ctx, `SELECT runs, min_ratio, max_ratio FROM task_costs WHERE task_type = $1`, taskType).Scan(&c.Runs, &c.Min, &c.Max)
	if errors.Is(err, pgx.ErrNoRows) {
		return CostRatio{}, false, nil
	}
	if err != nil {
		return CostRatio{}, false, fmt.Errorf("task cost history: %w", err)
	}
	return c, true, nil
}
