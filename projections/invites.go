package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/eventstore/event"
)

// Invites is the read model of invites (email invites and links).
type Invites struct{}

// Name implements Projection.
func (Invites) Name() string { return "invites" }

// Tables implements Projection.
func (Invites) Tables() []Table {
	return []Table{{
		Name: "invites",
		DDL: `invite_id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid NOT NULL,
			kind text NOT NULL,
			email text NOT NULL,
			role text NOT NULL,
			expires_at timestamptz NOT NULL,
			max_uses integer,
			uses integer NOT NULL DEFAULT 0,
			token_sealed text NOT NULL,
			created_at timestamptz NOT NULL,
			revoked_at timestamptz`,
		Indexes: []string{`CREATE INDEX {{table}}_workspace ON {{table}} (workspace_id, created_at)`},
	}}
}

// EventTypes implements Projection.
func (Invites) EventTypes() []string {
	return []string{invite.EventCreated, invite.EventAccepted, invite.EventRevoked}
}

// Apply implements Projection.
func (Invites) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("invites")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case invite.Created:
			b.Queue(`INSERT INTO `+table+` (invite_id, org_id, workspace_id, kind, email, role, expires_at, max_uses, token_sealed, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				d.InviteID, d.OrgID, d.WorkspaceID, d.Kind, d.Email, d.Role, d.ExpiresAt, d.MaxUses, d.TokenSealed, e.RecordedAt)
		case invite.Accepted:
			b.Queue(`UPDATE `+table+` SET uses = uses + 1 WHERE invite_id = $1`, d.InviteID)
		case invite.Revoked:
			b.Queue(`UPDATE `+table+` SET revoked_at = $2 WHERE invite_id = $1`, d.InviteID, e.RecordedAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

// InviteRow is an invite link as admins list it.
type InviteRow struct {
	InviteID    string
	Role        apikey.Role
	ExpiresAt   time.Time
	MaxUses     *int
	Uses        int
	TokenSealed string
	CreatedAt   time.Time
}

// InviteLinks lists workspace wsID's invite links that are not revoked,
// newest first.
func (q *Queries) InviteLinks(ctx context.Context, wsID string) ([]InviteRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT invite_id::text, role, expires_at, max_uses, uses, token_sealed, created_at
		FROM invites WHERE workspace_id = $1 AND kind = 'link' AND revoked_at IS NULL ORDER BY created_at DESC, invite_id`, wsID)
	if err != nil {
		return nil, fmt.Errorf("invites: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (InviteRow, error) {
		var i InviteRow
		return i, r.Scan(&i.InviteID, &i.Role, &i.ExpiresAt, &i.MaxUses, &i.Uses, &i.TokenSealed, &i.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("invites: %w", err)
	}
	return out, nil
}
