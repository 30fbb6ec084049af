package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/dedupq"
	"svc/eventstore/event"
)

// dedupqProjections are the dedupq product's read models (spec C).
func dedupqProjections() []Projection { return []Projection{DedupQ{}} }

// DedupQ is DedupQ's read model: the results completed (with their
// quantised embeddings, which the semantic index loads), the content each
// task id checked (so a completion naming only its task id is linked to
// it), and each organization's checks by UTC month (stats).
type DedupQ struct{}

// Name implements Projection.
func (DedupQ) Name() string { return "dedupq" }

// dedupqResultsTable holds the latest result of each content; tx and pos
// are the position of the event that wrote the row: rows are written in
// that order, so a reader that remembers the last it saw reads only the
// rows written since (the semantic index's refresh).
var dedupqResultsTable = Table{
	Name: "dedupq_results",
	DDL: `org_id uuid NOT NULL,
		content_hash text NOT NULL,
		task_id text NOT NULL,
		result_type text NOT NULL,
		actual_cost double precision NOT NULL,
		cached_at timestamptz NOT NULL,
		expires_at timestamptz NOT NULL,
		embedder text NOT NULL,
		vector bytea,
		scale real NOT NULL,
		sketch bytea,
		guard text NOT NULL,
		tx bigint NOT NULL,
		pos bigint NOT NULL,
		PRIMARY KEY (org_id, content_hash)`,
	Indexes: []string{`CREATE INDEX {{table}}_order ON {{table}} (org_id, embedder, tx, pos)`},
}

// dedupqTasksTable holds the content a task id last checked.
var dedupqTasksTable = Table{
	Name: "dedupq_tasks",
	DDL: `org_id uuid NOT NULL,
		task_id text NOT NULL,
		content_hash text NOT NULL,
		content text NOT NULL,
		checked_at timestamptz NOT NULL,
		PRIMARY KEY (org_id, task_id)`,
}

// dedupqMonthsTable counts an organization's checks, hits, savings and
// the credits DedupQ charged, by UTC month ("2026-11").
var dedupqMonthsTable = Table{
	Name: "dedupq_months",
	DDL: `org_id uuid NOT NULL,
		month text NOT NULL,
		checks bigint NOT NULL DEFAULT 0,
		hits bigint NOT NULL DEFAULT 0,
		cost_saved double precision NOT NULL DEFAULT 0,
		credits bigint NOT NULL DEFAULT 0,
		PRIMARY KEY (org_id, month)`,
	Storage: "fillfactor = 70",
}

// Tables implements Projection.
func (DedupQ) Tables() []Table {
	return []Table{dedupqResultsTable, dedupqTasksTable, dedupqMonthsTable}
}

// EventTypes implements Projection.
func (DedupQ) EventTypes() []string { return []string{dedupq.EventChecked, dedupq.EventCompleted} }

// Apply implements Projection.
func (DedupQ) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	results, tasks, months := t.Of(dedupqResultsTable.Name), t.Of(dedupqTasksTable.Name), t.Of(dedupqMonthsTable.Name)
	b := &pgx.Batch{}
	month := func(at time.Time) string { return at.UTC().Format("2006-01") }
	for _, e := range events {
		switch d := e.Payload.(type) {
		case dedupq.Checked:
			hit := 0
			if d.Outcome == dedupq.OutcomeHit {
				hit = 1
			}
			b.Queue(`INSERT INTO `+months+` (org_id, month, checks, hits, cost_saved, credits) VALUES ($1, $2, 1, $3, $4, $5)
				ON CONFLICT (org_id, month) DO UPDATE SET checks = `+months+`.checks + 1, hits = `+months+`.hits + $3,
				cost_saved = `+months+`.cost_saved + $4, credits = `+months+`.credits + $5`,
				d.OrgID, month(d.At), hit, d.CostSaved, d.Credits)
			if d.TaskID != "" {
				b.Queue(`INSERT INTO `+tasks+` (org_id, task_id, content_hash, content, checked_at) VALUES ($1, $2, $3, $4, $5)
					ON CONFLICT (org_id, task_id) DO UPDATE SET content_hash = $3, content = $4, checked_at = $5`,
					d.OrgID, d.TaskID, d.ContentHash, d.Content, d.At)
			}
		case dedupq.Completed:
			b.Queue(`INSERT INTO `+months+` (org_id, month, credits) VALUES ($1, $2, $3)
				ON CONFLICT (org_id, month) DO UPDATE SET credits = `+months+`.credits + $3`,
				d.OrgID, month(d.CompletedAt), d.Credits)
			var vec []byte
			if len(d.Vector) > 0 {
				vec = d.Vector
			}
			var sketch []byte
			if len(d.Sketch) > 0 {
				sketch = d.Sketch
			}
			b.Queue(`INSERT INTO `+results+` (org_id, content_hash, task_id, result_type, actual_cost, cached_at, expires_at,
				embedder, vector, scale, sketch, guard, tx, pos) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
				ON CONFLICT (org_id, content_hash) DO UPDATE SET task_id = $3, result_type = $4, actual_cost = $5,
				cached_at = $6, expires_at = $7, embedder = $8, vector = $9, scale = $10, sketch = $11, guard = $12, tx = $13, pos = $14`,
				d.OrgID, d.ContentHash, d.TaskID, d.ResultType, d.ActualCost, d.CompletedAt, d.ExpiresAt,
				d.Embedder, vec, d.Scale, sketch, d.Guard, int64(e.Position.TransactionID), e.Position.Global)
		}
	}
	return sendBatch(ctx, tx, b)
}

// DedupQCursor is where a reader of the results stopped: the position of
// the last row it read.
type DedupQCursor struct{ Tx, Pos int64 }

// DedupQStored is one result row for the semantic index.
type DedupQStored struct {
	dedupq.Stored
	Cursor DedupQCursor
}

// DedupQResultsAfter are orgID's fresh results embedded by embedder
// written after cursor, in the order they were written, at most limit.
func (q *Queries) DedupQResultsAfter(ctx context.Context, orgID, embedder string, after DedupQCursor, limit int) ([]DedupQStored, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT content_hash, task_id, actual_cost, cached_at, expires_at, vector, scale, sketch, guard, tx, pos
		FROM dedupq_results WHERE org_id = $1 AND embedder = $2 AND (tx, pos) > ($3, $4) AND expires_at > now()
		ORDER BY tx, pos LIMIT $5`,
		orgID, embedder, after.Tx, after.Pos, limit)
	if err != nil {
		return nil, fmt.Errorf("dedupq results: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DedupQStored, error) {
		var s DedupQStored
		err := r.Scan(&s.Hash, &s.TaskID, &s.ActualCost, &s.CachedAt, &s.ExpiresAt, &s.Vector, &s.Scale, &s.Sketch, &s.Guard, &s.Cursor.Tx, &s.Cursor.Pos)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("dedupq results: %w", err)
	}
	return out, nil
}

// DedupQTask is the content task id last checked by orgID: its hash and
// its kept content; ErrNotFound when it checked none.
func (q *Queries) DedupQTask(ctx context.Context, orgID, taskID string) (hash, content string, err error) {
	err = q.store.Pool().QueryRow(ctx, `SELECT content_hash, content FROM dedupq_tasks WHERE org_id = $1 AND task_id = $2`,
		orgID, taskID).Scan(&hash, &content)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("dedupq task: %w", err)
	}
	return hash, content, nil
}

// DedupQMonth is an organization's DedupQ figures for one UTC month.
type DedupQMonth struct {
	Checks, Hits int64
	CostSaved    float64
	Credits      int64
}

// DedupQMonth is orgID's figures for month ("2026-11"); zero when it
// checked nothing then.
func (q *Queries) DedupQMonth(ctx context.Context, orgID, month string) (DedupQMonth, error) {
	var m DedupQMonth
	err := q.store.Pool().QueryRow(ctx, `SELECT checks, hits, cost_saved, credits FROM dedupq_months WHERE org_id = $1 AND month = $2`,
		orgID, month).Scan(&m.Checks, &m.Hits, &m.CostSaved, &m.Credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return DedupQMonth{}, nil
	}
	if err != nil {
		return DedupQMonth{}, fmt.Errorf("dedupq month: %w", err)
	}
	return m, nil
}
