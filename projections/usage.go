package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// Surfaces a charge is made on.
const (
	// SurfaceWorkflow is a charge of a workflow (its steps and its
	// orchestration fee) and the refunds of those charges.
	SurfaceWorkflow = "workflow"
	// SurfaceGateway is any other charge (the llm tier of enhance, ...).
	SurfaceGateway = "gateway"
)

// Usage is the read model of credit usage: one row per charge or refund
// (usage_charges), resolved to the workspace, server-side key id and task
// type it belongs to. A refund is a row with negative credits, so sums are
// net. usage_workflows and usage_keys are what resolving needs: the
// workspace and task type of each workflow with what it has been charged,
// and the workspace of each key. Reservations (CreditsReserved) and their
// release (CreditsSettled) are not spend: usage does not read them, and a
// charge drawn on a reservation counts its whole amount, once.
type Usage struct{}

// Name implements Projection.
func (Usage) Name() string { return "usage" }

// Tables implements Projection.
func (Usage) Tables() []Table {
	return []Table{
		{
			Name: "usage_charges",
			// workflows: +1 on a workflow's first charge, -1 on the refund
			// that takes its net charge back to zero; steps likewise per
			// charged step (each workflow charge is one step: a content
			// step or the orchestration fee, which is Synthesis). Summed
			// over any range they count what stayed charged.
			DDL: `event_id uuid PRIMARY KEY,
				org_id uuid NOT NULL,
				at timestamptz NOT NULL,
				surface text NOT NULL,
				reason text NOT NULL,
				workflow_id text,
				workspace_id text,
				key_id text,
				task_type text,
				credits bigint NOT NULL,
				charges integer NOT NULL,
				steps integer NOT NULL,
				workflows integer NOT NULL`,
			Indexes: []string{`CREATE INDEX {{table}}_org_at ON {{table}} (org_id, at)`},
		},
		{
			Name: "usage_workflows",
			DDL: `workflow_id text PRIMARY KEY,
				org_id uuid NOT NULL,
				workspace_id text,
				task_type text,
				key_id text,
				net bigint NOT NULL,
				steps integer NOT NULL`,
			Storage: "fillfactor = 70",
		},
		{
			Name: "usage_keys",
			DDL: `key_id text PRIMARY KEY,
				org_id uuid NOT NULL,
				workspace_id text NOT NULL`,
		},
	}
}

// usageFlow is a workflow as usage resolution knows it.
type usageFlow struct {
	org, workspace, taskType, key string
	net                           int64
	steps                         int
	touched                       bool
}

// usageRow is one row of usage_charges.
type usageRow struct {
	id                                 string
	org                                string
	at                                 time.Time
	surface, reason                    string
	workflow, workspace, key, taskType string
	credits                            int64
	charges, steps, workflows          int
}

// usageEvent is an event of a batch decoded once: exactly one field is set.
type usageEvent struct {
	e        event.Event
	planned  *workflow.Planned
	key      *apikey.Created
	charged  *credit.Charged
	refunded *credit.Refunded
}

// EventTypes implements Projection.
func (Usage) EventTypes() []string {
	return []string{workflow.EventPlanned, apikey.EventCreated, credit.EventCharged, credit.EventRefunded}
}

// Apply implements Projection.
func (Usage) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	batch := decodeUsage(events)
	flows, keys, err := loadUsageScopes(ctx, tx, t, batch)
	if err != nil {
		return err
	}
	newKeys := map[string]apikey.Created{}
	var rows []usageRow
	for _, u := range batch {
		switch {
		case u.planned != nil:
			d := u.planned
			flows[d.WorkflowID] = &usageFlow{org: d.OrgID, workspace: d.WorkspaceID, taskType: d.TaskType, key: d.KeyID, touched: true}
		case u.key != nil:
			keys[u.key.KeyID] = u.key.WorkspaceID
			newKeys[u.key.KeyID] = *u.key
		case u.charged != nil:
			d := u.charged
			row := usageRow{id: u.e.ID.String(), org: d.OrgID, at: u.e.RecordedAt, reason: d.Reason, key: d.KeyID, credits: d.Amount, charges: 1}
			if d.WorkflowID == "" {
				row.surface, row.workspace = SurfaceGateway, keys[d.KeyID]
			} else {
				f := flowOf(flows, d.WorkflowID, d.OrgID)
				row.surface, row.workflow, row.workspace, row.taskType = SurfaceWorkflow, d.WorkflowID, f.workspace, f.taskType
				if f.net <= 0 && f.net+d.Amount > 0 {
					row.workflows = 1
				}
				row.steps = 1
				f.net += d.Amount
				f.steps++
				f.key = d.KeyID
			}
			rows = append(rows, row)
		case u.refunded != nil:
			d := u.refunded
			f := flowOf(flows, d.WorkflowID, d.OrgID)
			row := usageRow{id: u.e.ID.String(), org: d.OrgID, at: u.e.RecordedAt, surface: SurfaceWorkflow, reason: d.Reason,
				workflow: d.WorkflowID, workspace: f.workspace, key: f.key, taskType: f.taskType, credits: -d.Amount}
			if f.net > 0 && f.net-d.Amount <= 0 {
				row.workflows, row.steps, f.steps = -1, -f.steps, 0
			}
			f.net -= d.Amount
			rows = append(rows, row)
		}
	}
	return writeUsage(ctx, tx, t, rows, flows, newKeys)
}

// decodeUsage keeps the events usage needs, by their data.
func decodeUsage(events []event.Event) []usageEvent {
	var out []usageEvent
	for _, e := range events {
		u := usageEvent{e: e}
		switch d := e.Payload.(type) {
		case workflow.Planned:
			u.planned = &d
		case apikey.Created:
			u.key = &d
		case credit.Charged:
			u.charged = &d
		case credit.Refunded:
			u.refunded = &d
		default:
			continue
		}
		out = append(out, u)
	}
	return out
}

// flowOf returns workflow id, created (with unknown workspace and task
// type) for a charge whose plan the log does not have, and marks it for
// writing.
func flowOf(flows map[string]*usageFlow, id, org string) *usageFlow {
	f := flows[id]
	if f == nil {
		f = &usageFlow{org: org}
		flows[id] = f
	}
	f.touched = true
	return f
}

// loadUsageScopes reads from the tables the workflows and keys the batch's
// charges and refunds refer to.
func loadUsageScopes(ctx context.Context, tx pgx.Tx, t Tables, batch []usageEvent) (map[string]*usageFlow, map[string]string, error) {
	var flowIDs, keyIDs []string
	for _, u := range batch {
		switch {
		case u.charged != nil && u.charged.WorkflowID != "":
			flowIDs = append(flowIDs, u.charged.WorkflowID)
		case u.charged != nil && u.charged.KeyID != "":
			keyIDs = append(keyIDs, u.charged.KeyID)
		case u.refunded != nil:
			flowIDs = append(flowIDs, u.refunded.WorkflowID)
		}
	}
	flows, keys := map[string]*usageFlow{}, map[string]string{}
	if len(flowIDs) > 0 {
		rows, err := tx.Query(ctx, `SELECT workflow_id, org_id::text, coalesce(workspace_id, ''), coalesce(task_type, ''), coalesce(key_id, ''), net, steps
			FROM `+t.Of("usage_workflows")+` WHERE workflow_id = ANY($1)`, flowIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("usage: read workflows: %w", err)
		}
		for rows.Next() {
			var (
				id string
				f  usageFlow
			)
			if err := rows.Scan(&id, &f.org, &f.workspace, &f.taskType, &f.key, &f.net, &f.steps); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("usage: read workflows: %w", err)
			}
			flows[id] = &f
		}
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("usage: read workflows: %w", err)
		}
	}
	if len(keyIDs) > 0 {
		rows, err := tx.Query(ctx, `SELECT key_id, workspace_id FROM `+t.Of("usage_keys")+` WHERE key_id = ANY($1)`, keyIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("usage: read keys: %w", err)
		}
		for rows.Next() {
			var id, ws string
			if err := rows.Scan(&id, &ws); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("usage: read keys: %w", err)
			}
			keys[id] = ws
		}
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("usage: read keys: %w", err)
		}
	}
	return flows, keys, nil
}

// writeUsage inserts the charge rows and upserts the workflows and keys the
// batch touched.
func writeUsage(ctx context.Context, tx pgx.Tx, t Tables, rows []usageRow, flows map[string]*usageFlow, keys map[string]apikey.Created) error {
	b := &pgx.Batch{}
	for id, k := range keys {
		b.Queue(`INSERT INTO `+t.Of("usage_keys")+` (key_id, org_id, workspace_id) VALUES ($1, $2, $3)
			ON CONFLICT (key_id) DO UPDATE SET workspace_id = excluded.workspace_id`, id, k.OrgID, k.WorkspaceID)
	}
	for id, f := range flows {
		if !f.touched {
			continue
		}
		b.Queue(`INSERT INTO `+t.Of("usage_workflows")+` AS w (workflow_id, org_id, workspace_id, task_type, key_id, net, steps)
			VALUES ($1, $2, nullif($3, ''), nullif($4, ''), nullif($5, ''), $6, $7)
			ON CONFLICT (workflow_id) DO UPDATE SET workspace_id = excluded.workspace_id, task_type = excluded.task_type,
				key_id = excluded.key_id, net = excluded.net, steps = excluded.steps`,
			id, f.org, f.workspace, f.taskType, f.key, f.net, f.steps)
	}
	for _, r := range rows {
		b.Queue(`INSERT INTO `+t.Of("usage_charges")+` (event_id, org_id, at, surface, reason, workflow_id, workspace_id, key_id, task_type,
				credits, charges, steps, workflows)
			VALUES ($1, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''), nullif($8, ''), nullif($9, ''), $10, $11, $12, $13)`,
			r.id, r.org, r.at, r.surface, r.reason, r.workflow, r.workspace, r.key, r.taskType, r.credits, r.charges, r.steps, r.workflows)
	}
	if err := sendBatch(ctx, tx, b); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return nil
}
