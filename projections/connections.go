package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/connection"
	"svc/eventstore/event"
)

// Connections is the read model of organizations' context-server
// connections (spec A, GET /api/rigor/connections), revoked ones kept,
// and of the expiry of each organization's OAuth token per provider,
// which token_valid reads. It never holds a credential, sealed or not.
type Connections struct{}

// Name implements Projection.
func (Connections) Name() string { return "connections" }

var (
	connectionsTable = Table{
		Name: "context_connections",
		DDL: `connection_id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			workspace_id uuid,
			scope text NOT NULL,
			display_name text NOT NULL,
			label text NOT NULL,
			provider text NOT NULL,
			server_url text NOT NULL,
			transport text NOT NULL,
			auth_type text NOT NULL,
			permission_mode text NOT NULL,
			oauth_linked boolean NOT NULL,
			status text NOT NULL,
			capabilities jsonb,
			last_tested_at timestamptz,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at, connection_id)`},
	}
	connectionTokensTable = Table{
		Name: "context_connection_tokens",
		DDL: `org_id uuid NOT NULL,
			provider text NOT NULL,
			expires_at timestamptz,
			PRIMARY KEY (org_id, provider)`,
	}
)

// Tables implements Projection.
func (Connections) Tables() []Table { return []Table{connectionsTable, connectionTokensTable} }

// EventTypes implements Projection.
func (Connections) EventTypes() []string {
	return append([]string{connection.EventAuthorized}, connection.GatewayEvents...)
}

// Apply implements Projection.
func (Connections) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table, tokens := t.Of(connectionsTable.Name), t.Of(connectionTokensTable.Name)
	b := &pgx.Batch{}
	status := func(id, s string, at time.Time) {
		b.Queue(`UPDATE `+table+` SET status = $2, last_tested_at = $3, updated_at = $3 WHERE connection_id = $1 AND status <> 'revoked'`, id, s, at)
	}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case connection.Created:
			b.Queue(`INSERT INTO `+table+` (connection_id, org_id, workspace_id, scope, display_name, label, provider, server_url, transport,
				auth_type, permission_mode, oauth_linked, status, created_at, updated_at)
				VALUES ($1, $2, NULLIF($3, '')::uuid, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $13) ON CONFLICT (connection_id) DO NOTHING`,
				d.ConnectionID, d.OrgID, d.WorkspaceID, d.Scope, d.DisplayName, d.Label, d.Provider, d.ServerURL, d.Transport,
				d.AuthType, d.PermissionMode, d.OAuthLinked, e.RecordedAt)
		case connection.Updated:
			b.Queue(`UPDATE `+table+` SET display_name = $2, label = $3, permission_mode = $4, oauth_linked = $5, updated_at = $6 WHERE connection_id = $1`,
				d.ConnectionID, d.DisplayName, d.Label, d.PermissionMode, d.OAuthLinked, e.RecordedAt)
		case connection.Tested:
			caps, err := json.Marshal(d.Capabilities)
			if err != nil {
				return fmt.Errorf("connections: %w", err)
			}
			status(d.ConnectionID, connection.StatusActive, e.RecordedAt)
			b.Queue(`UPDATE `+table+` SET capabilities = $2 WHERE connection_id = $1 AND status <> 'revoked'`, d.ConnectionID, caps)
		case connection.TestFailed:
			status(d.ConnectionID, connection.StatusError, e.RecordedAt)
		case connection.Revoked:
			b.Queue(`UPDATE `+table+` SET status = 'revoked', updated_at = $2 WHERE connection_id = $1`, d.ConnectionID, e.RecordedAt)
		case connection.Authorized:
			b.Queue(`INSERT INTO `+tokens+` (org_id, provider, expires_at) VALUES ($1, $2, $3)
				ON CONFLICT (org_id, provider) DO UPDATE SET expires_at = EXCLUDED.expires_at`, d.OrgID, d.Provider, d.ExpiresAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

// ConnectionRow is a connection as spec A shows it (never a credential).
// TokenValid is false once the OAuth token it uses has expired.
type ConnectionRow struct {
	ID, OrgID, WorkspaceID, Scope, DisplayName, Label, Provider, ServerURL string
	Transport, AuthType, PermissionMode, Status                            string
	Capabilities                                                           *connection.Capabilities
	TokenValid                                                             bool
	LastTestedAt                                                           *time.Time
	CreatedAt, UpdatedAt                                                   time.Time
}

const connectionColumns = `c.connection_id::text, c.org_id::text, coalesce(c.workspace_id::text, ''), c.scope, c.display_name, c.label,
	c.provider, c.server_url, c.transport, c.auth_type, c.permission_mode, c.status, c.capabilities,
	NOT (c.auth_type = 'oauth' AND c.oauth_linked AND coalesce(t.expires_at <= now(), false)), c.last_tested_at, c.created_at, c.updated_at
	FROM context_connections c LEFT JOIN context_connection_tokens t ON t.org_id = c.org_id AND t.provider = c.provider`

func scanConnection(r pgx.Row) (ConnectionRow, error) {
	var c ConnectionRow
	var caps []byte
	err := r.Scan(&c.ID, &c.OrgID, &c.WorkspaceID, &c.Scope, &c.DisplayName, &c.Label, &c.Provider, &c.ServerURL, &c.Transport,
		&c.AuthType, &c.PermissionMode, &c.Status, &caps, &c.TokenValid, &c.LastTestedAt, &c.CreatedAt, &c.UpdatedAt)
	if err == nil && caps != nil {
		c.Capabilities = &connection.Capabilities{}
		err = json.Unmarshal(caps, c.Capabilities)
	}
	return c, err
}

// Connections lists the connections of organization orgID a key of
// workspace wsID sees (org-scoped ones and its workspace's, revoked ones
// included), oldest first.
func (q *Queries) Connections(ctx context.Context, orgID, wsID string) ([]ConnectionRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT `+connectionColumns+`
		WHERE c.org_id = $1 AND (c.workspace_id IS NULL OR c.workspace_id = $2) ORDER BY c.created_at, c.connection_id`, orgID, nullUUID(wsID))
	if err != nil {
		return nil, fmt.Errorf("connections: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ConnectionRow, error) { return scanConnection(r) })
	if err != nil {
		return nil, fmt.Errorf("connections: %w", err)
	}
	return out, nil
}

// Connection is connection id as a key of workspace wsID of orgID sees
// it; ErrNotFound for another's or an unknown one.
func (q *Queries) Connection(ctx context.Context, orgID, wsID, id string) (ConnectionRow, error) {
	if !folderID(strings.ToLower(id)) {
		return ConnectionRow{}, ErrNotFound
	}
	c, err := scanConnection(q.store.Pool().QueryRow(ctx, `SELECT `+connectionColumns+`
		WHERE c.connection_id = $1 AND c.org_id = $2 AND (c.workspace_id IS NULL OR c.workspace_id = $3)`, id, orgID, nullUUID(wsID)))
	if errors.Is(err, pgx.ErrNoRows) {
		return ConnectionRow{}, ErrNotFound
	}
	if err != nil {
		return ConnectionRow{}, fmt.Errorf("connection: %w", err)
	}
	return c, nil
}

// nullUUID is id, or nil when it is not a UUID (a key always has a
// workspace; a malformed one sees org-scoped connections only).
func nullUUID(id string) any {
	if uuid.Validate(id) != nil {
		return nil
	}
	return id
}
