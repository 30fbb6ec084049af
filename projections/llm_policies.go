package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// LLMPolicies is the read model of workspaces' llm policies: a row per
// workspace whose policy was ever set, allowed_models NULL once removed
// (updated_at then says when).
type LLMPolicies struct{}

// Name implements Projection.
func (LLMPolicies) Name() string { return "llm_policies" }

var llmPoliciesTable = Table{
	Name: "workspace_llm_policies",
	DDL: `workspace_id uuid PRIMARY KEY,
		org_id uuid NOT NULL,
		allowed_models text[],
		updated_at timestamptz NOT NULL`,
}

// Tables implements Projection.
func (LLMPolicies) Tables() []Table { return []Table{llmPoliciesTable} }

// EventTypes implements Projection.
func (LLMPolicies) EventTypes() []string { return []string{workspace.EventLLMPolicySet} }

// Apply implements Projection.
func (LLMPolicies) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	b := &pgx.Batch{}
	for _, e := range events {
		if d, ok := e.Payload.(workspace.LLMPolicySet); ok {
			b.Queue(`INSERT INTO `+t.Of(llmPoliciesTable.Name)+` (workspace_id, org_id, allowed_models, updated_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (workspace_id) DO UPDATE SET allowed_models = excluded.allowed_models, updated_at = excluded.updated_at`,
				d.WorkspaceID, d.OrgID, d.AllowedModels, e.RecordedAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

// LLMPolicyRow is a workspace's llm policy: AllowedModels nil when it has
// none; UpdatedAt nil when it never had one.
type LLMPolicyRow struct {
	WorkspaceID   string
	AllowedModels []string
	UpdatedAt     *time.Time
}

// LLMPolicies are the policies of workspaces ids, by id (a workspace that
// never had one has no entry).
func (q *Queries) LLMPolicies(ctx context.Context, ids []string) (map[string]LLMPolicyRow, error) {
	out := map[string]LLMPolicyRow{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.store.Pool().Query(ctx, `SELECT workspace_id::text, allowed_models, updated_at FROM workspace_llm_policies
		WHERE workspace_id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("llm policies: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LLMPolicyRow, error) {
		var p LLMPolicyRow
		var at time.Time
		err := r.Scan(&p.WorkspaceID, &p.AllowedModels, &at)
		p.UpdatedAt = &at
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("llm policies: %w", err)
	}
	for _, p := range list {
		out[p.WorkspaceID] = p
	}
	return out, nil
}

// LLMPolicy is workspace id's policy (zero but for the id when it never
// had one).
func (q *Queries) LLMPolicy(ctx context.Context, id string) (LLMPolicyRow, error) {
	m, err := q.LLMPolicies(ctx, []string{id})
	if err != nil {
		return LLMPolicyRow{}, err
	}
	p, ok := m[id]
	if !ok {
		p.WorkspaceID = id
	}
	return p, nil
}
