package projections

import (
	"context"

	"github.com/jackc/pgx/v5"

	"svc/domain/user"
	"svc/eventstore/event"
)

// Users is the read model of users (no credentials: those are in
// user_credentials, outside the log).
type Users struct{}

// Name implements Projection.
func (Users) Name() string { return "users" }

// Tables implements Projection.
func (Users) Tables() []Table {
	return []Table{{
		Name: "users",
		DDL: `user_id uuid PRIMARY KEY,
			email text NOT NULL,
			name text NOT NULL,
			org_id uuid NOT NULL,
			workspace_id uuid NOT NULL,
			email_verified boolean NOT NULL DEFAULT false,
			created_at timestamptz NOT NULL`,
		Indexes: []string{`CREATE UNIQUE INDEX {{table}}_email ON {{table}} (email)`},
	}}
}

// EventTypes implements Projection.
func (Users) EventTypes() []string { return []string{user.EventRegistered, user.EventEmailVerified} }

// Apply implements Projection.
func (Users) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("users")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case user.Registered:
			b.Queue(`INSERT INTO `+table+` (user_id, email, name, org_id, workspace_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				d.UserID, d.Email, d.Name, d.OrgID, d.WorkspaceID, e.RecordedAt)
		case user.EmailVerified:
			b.Queue(`UPDATE `+table+` SET email_verified = true WHERE user_id = $1`, d.UserID)
		}
	}
	return sendBatch(ctx, tx, b)
}
