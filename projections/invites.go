package projections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/eventstore/event"
)

// Invites is the read model of invites (email invites and links).
type Invites struct{}

// Name implements Projection.
func (Invites) Name() string { return "invites" }

// SchemaVersion implements Versioned: 2 added token_hash, created_by and
// created_by_user (the invite preview reads them).
func (Invites) SchemaVersion() int { return 2 }

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
			revoked_at timestamptz,
			token_hash text NOT NULL,
			created_by text NOT NULL,
			created_by_user uuid`,
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
			b.Queue(`INSERT INTO `+table+` (invite_id, org_id, workspace_id, kind, email, role, expires_at, max_uses, token_sealed, created_at,
					token_hash, created_by, created_by_user)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				d.InviteID, d.OrgID, d.WorkspaceID, d.Kind, d.Email, d.Role, d.ExpiresAt, d.MaxUses, d.TokenSealed, e.RecordedAt,
				d.TokenHash, d.CreatedBy, creatorUser(d.CreatedBy))
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

// creatorUser is the user id of an invite's creator ("user:<id>"), nil
// for a key or anything else.
func creatorUser(createdBy string) *string {
	id, ok := strings.CutPrefix(createdBy, "user:")
	if !ok || uuid.Validate(id) != nil {
		return nil
	}
	return &id
}

// InvitePreviewRow is what the invite preview reads of one invite: its
// standing (to check a token against) and what it offers.
type InvitePreviewRow struct {
	Standing      invite.Standing
	WorkspaceID   string
	WorkspaceName string
	Archived      bool
	Kind          string
	Role          apikey.Role
	ExpiresAt     time.Time
	// Tier is the workspace's organization's tier, Members its user
	// members: the member limit accepting would meet.
	Tier    org.Tier
	Members int
	// InviterName and InviterEmail are the creating user's (nil for a
	// key, or a user the read model no longer has).
	InviterName, InviterEmail *string
}

// InvitePreview is invite id as its preview reads it; ErrNotFound for an
// unknown id, or one of a workspace or organization that is gone (being
// erased included).
func (q *Queries) InvitePreview(ctx context.Context, id string) (InvitePreviewRow, error) {
	var r InvitePreviewRow
	err := q.store.Pool().QueryRow(ctx, `SELECT i.workspace_id::text, i.kind, i.role, i.expires_at, i.max_uses, i.uses,
			i.revoked_at IS NOT NULL, i.token_hash, w.name, w.archived_at IS NOT NULL, coalesce(o.tier, 'free'),
			(SELECT count(*) FROM workspace_members m WHERE m.workspace_id = i.workspace_id), u.name, u.email
		FROM invites i JOIN workspaces w ON w.id = i.workspace_id
		LEFT JOIN organizations o ON o.org_id = i.org_id
		LEFT JOIN users u ON u.user_id = i.created_by_user
		WHERE i.invite_id = $1 AND o.erasing_since IS NULL`, id).
		Scan(&r.WorkspaceID, &r.Kind, &r.Role, &r.ExpiresAt, &r.Standing.MaxUses, &r.Standing.Uses, &r.Standing.Revoked,
			&r.Standing.TokenHash, &r.WorkspaceName, &r.Archived, &r.Tier, &r.Members, &r.InviterName, &r.InviterEmail)
	if errors.Is(err, pgx.ErrNoRows) {
		return InvitePreviewRow{}, ErrNotFound
	}
	if err != nil {
		return InvitePreviewRow{}, fmt.Errorf("invite preview: %w", err)
	}
	r.Standing.ExpiresAt = r.ExpiresAt
	return r, nil
}
