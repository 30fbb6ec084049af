package projections

import (
	"context"

	"github.com/jackc/pgx/v5"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Workspaces is the read model of workspaces.
type Workspaces struct{}

// Name implements Projection.
func (Workspaces) Name() string { return "workspaces" }

// Tables implements Projection.
func (Workspaces) Tables() []Table {
	return []Table{{
		Name: "workspaces",
		DDL: `id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			name text NOT NULL,
			slug text NOT NULL,
			is_default boolean NOT NULL,
			created_at timestamptz NOT NULL,
			archived_at timestamptz`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at)`},
	}}
}

// EventTypes implements Projection.
func (Workspaces) EventTypes() []string { return []string{workspace.EventCreated} }

// Apply implements Projection.
func (Workspaces) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("workspaces")
	b := &pgx.Batch{}
	for _, e := range events {
		d, ok := e.Payload.(workspace.Created)
		if !ok {
			continue
		}
		b.Queue(`INSERT INTO `+table+` (id, org_id, name, slug, is_default, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			d.WorkspaceID, d.OrgID, d.Name, d.Slug, d.IsDefault, e.RecordedAt)
	}
	return sendBatch(ctx, tx, b)
}
