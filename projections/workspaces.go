package projections

import (
	"context"

	"github.com/jackc/pgx/v5"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Workspaces is the read model of workspaces and their user members.
type Workspaces struct{}

// Name implements Projection.
func (Workspaces) Name() string { return "workspaces" }

// SchemaVersion implements Versioned: 2 added members, renames and
// archiving.
func (Workspaces) SchemaVersion() int { return 2 }

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
	}, {
		Name: "workspace_members",
		DDL: `workspace_id uuid NOT NULL,
			user_id uuid NOT NULL,
			org_id uuid NOT NULL,
			email text NOT NULL,
			name text NOT NULL,
			role text NOT NULL,
			created_at timestamptz NOT NULL,
			PRIMARY KEY (workspace_id, user_id)`,
		Indexes: []string{`CREATE INDEX {{table}}_user ON {{table}} (user_id)`},
	}}
}

// EventTypes implements Projection.
func (Workspaces) EventTypes() []string {
	return []string{workspace.EventCreated, workspace.EventRenamed, workspace.EventArchived, workspace.EventRestored,
		workspace.EventMemberAdded, workspace.EventMemberRoleChanged, workspace.EventMemberRemoved}
}

// Apply implements Projection.
func (Workspaces) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table, members := t.Of("workspaces"), t.Of("workspace_members")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case workspace.Created:
			b.Queue(`INSERT INTO `+table+` (id, org_id, name, slug, is_default, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				d.WorkspaceID, d.OrgID, d.Name, d.Slug, d.IsDefault, e.RecordedAt)
		case workspace.Renamed:
			b.Queue(`UPDATE `+table+` SET name = $2 WHERE id = $1`, d.WorkspaceID, d.Name)
		case workspace.Archived:
			b.Queue(`UPDATE `+table+` SET archived_at = $2 WHERE id = $1`, d.WorkspaceID, e.RecordedAt)
		case workspace.Restored:
			b.Queue(`UPDATE `+table+` SET archived_at = NULL WHERE id = $1`, d.WorkspaceID)
		case workspace.MemberAdded:
			b.Queue(`INSERT INTO `+members+` (workspace_id, user_id, org_id, email, name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				d.WorkspaceID, d.UserID, d.OrgID, d.Email, d.Name, d.Role, e.RecordedAt)
		case workspace.MemberRoleChanged:
			b.Queue(`UPDATE `+members+` SET role = $3 WHERE workspace_id = $1 AND user_id = $2`, d.WorkspaceID, d.UserID, d.To)
		case workspace.MemberRemoved:
			b.Queue(`DELETE FROM `+members+` WHERE workspace_id = $1 AND user_id = $2`, d.WorkspaceID, d.UserID)
		}
	}
	return sendBatch(ctx, tx, b)
}
