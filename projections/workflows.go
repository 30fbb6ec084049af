package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
)

// Workflows is the read model of workflows: status and listing.
type Workflows struct{}

// Name implements Projection.
func (Workflows) Name() string { return "workflows" }

// Tables implements Projection.
func (Workflows) Tables() []Table {
	return []Table{{
		Name: "workflows",
		DDL: `workflow_id text PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid NOT NULL,
			key_id uuid,
			status text NOT NULL,
			task_type text NOT NULL,
			value_class text NOT NULL,
			title text NOT NULL,
			description text NOT NULL,
			rigor_level text NOT NULL,
			total_steps integer NOT NULL,
			credits_estimate integer NOT NULL,
			execution_mode text NOT NULL,
			intent_group text,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at DESC)`},
		Storage: "fillfactor = 80",
	}}
}

// Apply implements Projection.
func (Workflows) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []eventstore.Event) error {
	table := t.Of("workflows")
	b := &pgx.Batch{}
	for _, e := range events {
		if e.Type != workflow.EventPlanned {
			continue
		}
		var d workflow.Planned
		if err := e.Decode(&d); err != nil {
			return err
		}
		var key *string
		if d.KeyID != "" {
			key = &d.KeyID
		}
		b.Queue(`INSERT INTO `+table+` (workflow_id, org_id, workspace_id, key_id, status, task_type, value_class, title, description,
				rigor_level, total_steps, credits_estimate, execution_mode, intent_group, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, nullif($14, ''), $15, $15)`,
			d.WorkflowID, d.OrgID, d.WorkspaceID, key, workflow.StatusPlanned, d.TaskType, d.ValueClass, d.Title, d.Description,
			d.RigorLevel, d.TotalSteps, d.Credits, d.Execution, d.IntentGroup, e.RecordedAt)
	}
	return sendBatch(ctx, tx, b)
}

// WorkflowRow is a workflow as the read model has it.
type WorkflowRow struct {
	WorkflowID, OrgID, Status, TaskType, ValueClass, Title, RigorLevel, ExecutionMode string
	TotalSteps, CreditsEstimate                                                       int
	CreatedAt, UpdatedAt                                                              time.Time
}

// PlannedRow is the row a WorkflowPlanned event makes: what the projection
// inserts, and what a reader may use for a workflow the projection has not
// reached yet (read from its stream).
func PlannedRow(d workflow.Planned, at time.Time) WorkflowRow {
	return WorkflowRow{WorkflowID: d.WorkflowID, OrgID: d.OrgID, Status: workflow.StatusPlanned, TaskType: d.TaskType,
		ValueClass: d.ValueClass, Title: d.Title, RigorLevel: d.RigorLevel, ExecutionMode: d.Execution,
		TotalSteps: d.TotalSteps, CreditsEstimate: d.Credits, CreatedAt: at, UpdatedAt: at}
}

// Workflow returns a workflow of orgID; another org's is ErrNotFound.
func Workflow(ctx context.Context, db eventstore.DB, orgID, id string) (WorkflowRow, error) {
	var r WorkflowRow
	err := db.QueryRow(ctx, `SELECT workflow_id, org_id::text, status, task_type, value_class, title, rigor_level, execution_mode,
			total_steps, credits_estimate, created_at, updated_at
		FROM workflows WHERE workflow_id = $1 AND org_id = $2`, id, orgID).
		Scan(&r.WorkflowID, &r.OrgID, &r.Status, &r.TaskType, &r.ValueClass, &r.Title, &r.RigorLevel, &r.ExecutionMode,
			&r.TotalSteps, &r.CreditsEstimate, &r.CreatedAt, &r.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return WorkflowRow{}, ErrNotFound
	}
	if err != nil {
		return WorkflowRow{}, fmt.Errorf("read workflow: %w", err)
	}
	return r, nil
}
