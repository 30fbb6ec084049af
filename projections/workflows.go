package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Workflows is the read model of workflows: one row per workflow with the
// listing columns and the rendered Workflow resource (status). The zero
// value reads each batch's workflows' earlier events from the log;
// NewWorkflows keeps its folds in memory instead.
type Workflows struct{ folds *workflowFolds }

// NewWorkflows returns the projection keeping the folds of up to 2,000
// workflows in flight (a fold holds the steps' outputs: a bound on
// memory; a workflow past it reads its earlier events again).
func NewWorkflows() Workflows { return Workflows{folds: newWorkflowFolds(2_000)} }

// Name implements Projection.
func (Workflows) Name() string { return "workflows" }

// SchemaVersion implements Versioned.
func (Workflows) SchemaVersion() int { return 3 }

// runnableStatuses is workflow.RunnableStatuses as an SQL list.
var runnableStatuses = "('" + strings.Join(workflow.RunnableStatuses, "', '") + "')"

// Tables implements Projection.
func (Workflows) Tables() []Table {
	return []Table{{
		Name: "workflows",
		DDL: `workflow_id text PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid NOT NULL,
			key_id uuid,
			agent_id text,
			status text NOT NULL,
			task_type text NOT NULL,
			value_class text NOT NULL,
			title text NOT NULL,
			description text NOT NULL,
			rigor_level text NOT NULL,
			total_steps integer NOT NULL,
			current_step integer NOT NULL,
			credits_estimate integer NOT NULL,
			credits_used integer NOT NULL,
			quality_score integer,
			execution_mode text NOT NULL,
			intent_group text,
			error text,
			version bigint NOT NULL,
			view jsonb NOT NULL,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL,
			started_at timestamptz,
			completed_at timestamptz,
			counts_toward_limit boolean NOT NULL,
			approval_status text,
			halt_reason text,
			halted_at_step integer`,
		Indexes: []string{
			`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at DESC, workflow_id DESC)`,
			// the listing (workflow_list.go): keyset pages per status and per task type
			`CREATE INDEX {{table}}_org_status ON {{table}} (org_id, status, created_at DESC, workflow_id DESC)`,
			`CREATE INDEX {{table}}_org_task_type ON {{table}} (org_id, task_type, created_at DESC, workflow_id DESC) INCLUDE (status, counts_toward_limit)`,
			`CREATE INDEX {{table}}_runnable ON {{table}} (updated_at) WHERE status IN ` + runnableStatuses,
		},
		Storage: "fillfactor = 80",
	}, searchTable, countsTable}
}

// EventTypes implements Projection: every event of a workflow stream.
func (Workflows) EventTypes() []string { return workflow.RunEventTypes() }

// Apply implements Projection: each workflow the batch touches is folded
// up to its last event in the batch and its row replaced.
func (p Workflows) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	byID := map[string][]event.Event{}
	var order []string
	for _, e := range events {
		id, ok := workflow.IDOf(e.StreamID)
		if !ok {
			continue
		}
		if _, ok := byID[id]; !ok {
			order = append(order, id)
		}
		byID[id] = append(byID[id], e)
	}
	folded := map[string]*workflow.Workflow{}
	var unknown []string
	for _, id := range order {
		if wf, ok := p.folds.before(id, byID[id][0].Version); ok {
			folded[id] = wf
		} else {
			unknown = append(unknown, id)
		}
	}
	heads, err := readHeads(ctx, tx, unknown, byID)
	if err != nil {
		return err
	}
	table := t.Of("workflows")
	b := &pgx.Batch{}
	var moves []statusMove
	for _, id := range order {
		tail := byID[id]
		wf, before, err := foldWorkflow(folded[id], heads[id], tail)
		if errors.Is(err, workflow.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		p.folds.keep(wf)
		queueRow(b, table, wf)
		if tail[0].Version == 0 { // title and description are set once, by the plan
			queueSearch(b, t.Of(searchTable.Name), wf)
		}
		moves = append(moves, statusMove{org: wf.OrgID(), before: before, after: wf.Status()})
	}
	queueCounts(b, t, moves)
	return sendBatch(ctx, tx, b)
}

// readHeads reads, in one statement, the head of each workflow of a batch
// whose tail the batch holds (the events before its first one in the
// batch), by workflow id. Only what the fold reads is selected: the
// events' metadata is not decoded.
func readHeads(ctx context.Context, tx pgx.Tx, order []string, byID map[string][]event.Event) (map[string][]event.Event, error) {
	var (
		streams []string
		upto    []int64
	)
	for _, id := range order {
		if first := byID[id][0].Version; first != 0 {
			streams = append(streams, workflow.Stream(id))
			upto = append(upto, first)
		}
	}
	if len(streams) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT e.stream_id, e.version, e.type, e.data, e.recorded_at
		FROM unnest($1::text[], $2::bigint[]) AS h(stream_id, upto)
		JOIN events e ON e.stream_id = h.stream_id AND e.version < h.upto
		ORDER BY e.stream_id, e.version`, streams, upto)
	if err != nil {
		return nil, fmt.Errorf("read workflow heads: %w", err)
	}
	defer rows.Close()
	heads := map[string][]event.Event{}
	for rows.Next() {
		var (
			e    event.Event
			data []byte // jsonb is valid already: no json.RawMessage re-validation
		)
		if err := rows.Scan(&e.StreamID, &e.Version, &e.Type, &data, &e.RecordedAt); err != nil {
			return nil, fmt.Errorf("read workflow heads: %w", err)
		}
		e.Data = data
		id, _ := workflow.IDOf(e.StreamID)
		heads[id] = append(heads[id], e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read workflow heads: %w", err)
	}
	return heads, nil
}

// foldWorkflow folds the head of a stream (what the read model already
// has; or start, its fold kept from an earlier batch) and then the batch's
// tail; before is the status after the head, the one the workflow's row
// has now ("" without a head: a new workflow).
func foldWorkflow(start *workflow.Workflow, head, tail []event.Event) (wf *workflow.Workflow, before string, err error) {
	switch {
	case start != nil:
		wf = start
	case len(head) == 0:
		wf, err = workflow.Load(tail)
		return wf, "", err
	default:
		if wf, err = workflow.Load(head); err != nil {
			return nil, "", err
		}
	}
	before = wf.Status()
	for _, e := range tail {
		if err := wf.Apply(e); err != nil {
			return nil, "", err
		}
	}
	return wf, before, nil
}

func queueRow(b *pgx.Batch, table string, wf *workflow.Workflow) {
	v := wf.View(true)
	p := wf.Planned()
	view, _ := json.Marshal(v)
	var key, agent *string
	if p.KeyID != "" {
		key = &p.KeyID
	}
	if q := wf.Queued(); q != nil {
		if q.KeyID != "" {
			key = &q.KeyID
		}
		if q.AgentID != "" {
			agent = &q.AgentID
		}
	}
	b.Queue(`INSERT INTO `+table+` (workflow_id, org_id, workspace_id, key_id, agent_id, status, task_type, value_class, title, description,
			rigor_level, total_steps, current_step, credits_estimate, credits_used, quality_score, execution_mode, intent_group, error,
			version, view, created_at, updated_at, started_at, completed_at, counts_toward_limit, approval_status, halt_reason, halted_at_step)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, nullif($18, ''), $19, $20, $21, $22, $23, $24, $25,
			$26, nullif($27, ''), nullif($28, ''), $29)
		ON CONFLICT (workflow_id) DO UPDATE SET key_id = excluded.key_id, agent_id = excluded.agent_id, status = excluded.status,
			counts_toward_limit = excluded.counts_toward_limit, approval_status = excluded.approval_status,
			halt_reason = excluded.halt_reason, halted_at_step = excluded.halted_at_step,
			current_step = excluded.current_step, credits_used = excluded.credits_used, quality_score = excluded.quality_score,
			execution_mode = excluded.execution_mode, error = excluded.error, version = excluded.version, view = excluded.view,
			updated_at = excluded.updated_at, started_at = excluded.started_at, completed_at = excluded.completed_at`,
		p.WorkflowID, p.OrgID, p.WorkspaceID, key, agent, v.Status, v.TaskType, v.ValueClass, v.Title, p.Description,
		v.RigorLevel, v.TotalSteps, v.CurrentStep, v.EstimatedCredits, v.CreditsUsed, v.QualityScore, v.ExecutionMode, p.IntentGroup, v.Error,
		wf.Version(), view, v.CreatedAt, v.UpdatedAt, v.StartedAt, v.CompletedAt, workflow.Active(v.Status), v.ApprovalStatus, v.HaltReason, v.HaltedAtStep)
}

// WorkflowRow is a workflow as the read model has it.
type WorkflowRow struct {
	View    workflow.View
	Version int64
	// Head is the version of the stream's last event, read with the row:
	// the row is current when Version reaches it.
	Head int64
}

// Workflow returns a workflow of orgID; another org's is ErrNotFound.
func Workflow(ctx context.Context, db eventstore.DB, orgID, id string) (WorkflowRow, error) {
	var (
		r    WorkflowRow
		view []byte
	)
	err := db.QueryRow(ctx, `SELECT view, version, (SELECT coalesce(max(version), -1) FROM events WHERE stream_id = $3)
		FROM workflows WHERE workflow_id = $1 AND org_id = $2`, id, orgID, workflow.Stream(id)).Scan(&view, &r.Version, &r.Head)
	if errors.Is(err, pgx.ErrNoRows) {
		return WorkflowRow{}, ErrNotFound
	}
	if err != nil {
		return WorkflowRow{}, fmt.Errorf("read workflow: %w", err)
	}
	if err := json.Unmarshal(view, &r.View); err != nil {
		return WorkflowRow{}, fmt.Errorf("read workflow %s: %w", id, err)
	}
	return r, nil
}

// Runnable lists workflows a worker still has to move whose lease (in
// job_leases, kind workflow) is free or expired, least recently moved first.
func Runnable(ctx context.Context, db eventstore.DB, limit int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT w.workflow_id FROM workflows w
		LEFT JOIN job_leases l ON l.kind = 'workflow' AND l.job_id = w.workflow_id
		WHERE w.status IN `+runnableStatuses+` AND (l.job_id IS NULL OR l.expires_at < now())
		ORDER BY w.updated_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("runnable workflows: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
