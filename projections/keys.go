package projections

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Keys is the read model of API keys, looked up by hash on every request.
type Keys struct{}

// Name implements Projection.
func (Keys) Name() string { return "keys" }

// Tables implements Projection.
func (Keys) Tables() []Table {
	return []Table{{
		Name: "api_keys",
		DDL: `key_id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid NOT NULL,
			hash text NOT NULL,
			prefix text NOT NULL,
			label text NOT NULL,
			role text NOT NULL,
			created_by text NOT NULL,
			created_at timestamptz NOT NULL,
			revoked_at timestamptz`,
		Indexes: []string{
			`CREATE UNIQUE INDEX {{table}}_hash ON {{table}} (hash)`,
			`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at)`,
		},
	}}
}

// EventTypes implements Projection.
func (Keys) EventTypes() []string { return []string{apikey.EventCreated, apikey.EventRevoked} }

// Apply implements Projection.
func (Keys) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("api_keys")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case apikey.Created:
			b.Queue(`INSERT INTO `+table+` (key_id, org_id, workspace_id, hash, prefix, label, role, created_by, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				d.KeyID, d.OrgID, d.WorkspaceID, d.Hash, d.Prefix, d.Label, d.Role, d.CreatedBy, e.RecordedAt)
		case apikey.Revoked:
			b.Queue(`UPDATE `+table+` SET revoked_at = $2 WHERE key_id = $1`, d.KeyID, e.RecordedAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

// Principal is who a request's API key speaks for.
type Principal struct {
	KeyID       string // "" for a session
	UserID      string // "" for a key
	SessionID   string // a session's
	OrgID       string
	WorkspaceID string
	Role        apikey.Role
	Tier        org.Tier
	Revoked     bool
}

// Actor names the principal in events' metadata: key:ID or user:ID.
func (p Principal) Actor() string {
	if p.KeyID == "" {
		return "user:" + p.UserID
	}
	return "key:" + p.KeyID
}

// PrincipalByHash finds the key with the given hash and its org's tier.
// A key of an organization being erased is revoked.
func PrincipalByHash(ctx context.Context, db eventstore.DB, hash string) (Principal, error) {
	var p Principal
	err := db.QueryRow(ctx, `SELECT k.key_id::text, k.org_id::text, k.workspace_id::text, k.role, coalesce(o.tier, 'free'),
			k.revoked_at IS NOT NULL OR o.erasing_since IS NOT NULL
		FROM api_keys k LEFT JOIN organizations o ON o.org_id = k.org_id WHERE k.hash = $1`, hash).
		Scan(&p.KeyID, &p.OrgID, &p.WorkspaceID, &p.Role, &p.Tier, &p.Revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, ErrNotFound
	}
	if err != nil {
		return Principal{}, fmt.Errorf("look up key: %w", err)
	}
	return p, nil
}
