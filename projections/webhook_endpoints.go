package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/hook"
	"svc/eventstore"
	"svc/eventstore/event"
)

// WebhookEndpoints is the read model of workspaces' webhook endpoints
// (spec B, Workspace webhooks). It never holds a secret, sealed or not.
type WebhookEndpoints struct{}

// Name implements Projection.
func (WebhookEndpoints) Name() string { return "webhook_endpoints" }

// webhookEndpointsTable holds the endpoints that exist (a deleted one's
// row goes).
var webhookEndpointsTable = Table{
	Name: "webhook_endpoints",
	DDL: `endpoint_id uuid PRIMARY KEY,
		org_id uuid NOT NULL,
		workspace_id uuid NOT NULL,
		url text NOT NULL,
		events text[] NOT NULL,
		description text NOT NULL,
		active boolean NOT NULL,
		created_at timestamptz NOT NULL`,
	Indexes: []string{`CREATE INDEX {{table}}_workspace ON {{table}} (workspace_id, created_at, endpoint_id)`},
}

// Tables implements Projection.
func (WebhookEndpoints) Tables() []Table { return []Table{webhookEndpointsTable} }

// EventTypes implements Projection.
func (WebhookEndpoints) EventTypes() []string {
	return []string{hook.EventCreated, hook.EventUpdated, hook.EventDeleted, hook.EventDisabled}
}

// Apply implements Projection.
func (WebhookEndpoints) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of(webhookEndpointsTable.Name)
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case hook.Created:
			b.Queue(`INSERT INTO `+table+` (endpoint_id, org_id, workspace_id, url, events, description, active, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (endpoint_id) DO NOTHING`,
				d.EndpointID, d.OrgID, d.WorkspaceID, d.URL, nonNil(d.Events), d.Description, d.Active, e.RecordedAt)
		case hook.Updated:
			b.Queue(`UPDATE `+table+` SET url = $2, events = $3, description = $4, active = $5 WHERE endpoint_id = $1`,
				d.EndpointID, d.URL, nonNil(d.Events), d.Description, d.Active)
		case hook.Deleted:
			b.Queue(`DELETE FROM `+table+` WHERE endpoint_id = $1`, d.EndpointID)
		case hook.Disabled:
			b.Queue(`UPDATE `+table+` SET active = false WHERE endpoint_id = $1`, d.EndpointID)
		}
	}
	return sendBatch(ctx, tx, b)
}

// nonNil is s, or an empty slice for nil.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WebhookEndpointRow is an endpoint as spec B shows it (no secret).
type WebhookEndpointRow struct {
	ID          string
	URL         string
	Description string
	Events      []string
	Active      bool
	CreatedAt   time.Time
}

const webhookEndpointColumns = `endpoint_id::text, url, description, events, active, created_at`

func scanWebhookEndpoint(r pgx.Row) (WebhookEndpointRow, error) {
	var w WebhookEndpointRow
	err := r.Scan(&w.ID, &w.URL, &w.Description, &w.Events, &w.Active, &w.CreatedAt)
	w.Events = nonNil(w.Events)
	return w, err
}

// WebhookEndpoints lists workspace wsID's endpoints, oldest first.
func (q *Queries) WebhookEndpoints(ctx context.Context, wsID string) ([]WebhookEndpointRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints
		WHERE workspace_id = $1 ORDER BY created_at, endpoint_id`, wsID)
	if err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WebhookEndpointRow, error) { return scanWebhookEndpoint(r) })
	if err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	return out, nil
}

// WebhookEndpoint is endpoint id of workspace wsID; ErrNotFound for
// another workspace's, a deleted or an unknown one.
func (q *Queries) WebhookEndpoint(ctx context.Context, wsID, id string) (WebhookEndpointRow, error) {
	if !folderID(id) {
		return WebhookEndpointRow{}, ErrNotFound
	}
	w, err := scanWebhookEndpoint(q.store.Pool().QueryRow(ctx, `SELECT `+webhookEndpointColumns+` FROM webhook_endpoints
		WHERE endpoint_id = $1 AND workspace_id = $2`, id, wsID))
	if errors.Is(err, pgx.ErrNoRows) {
		return WebhookEndpointRow{}, ErrNotFound
	}
	if err != nil {
		return WebhookEndpointRow{}, fmt.Errorf("webhook endpoint: %w", err)
	}
	return w, nil
}

// WorkspaceEndpointIDs lists the endpoints of each of workspaces (active
// or not) as the read model has them now: the webhook fan-out's
// candidates, which it folds from their streams as they stood at the
// event it delivers.
func WorkspaceEndpointIDs(ctx context.Context, db eventstore.DB, workspaces []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(workspaces) == 0 {
		return out, nil
	}
	rows, err := db.Query(ctx, `SELECT workspace_id::text, endpoint_id::text FROM webhook_endpoints
		WHERE workspace_id = ANY($1::uuid[]) ORDER BY created_at, endpoint_id`, workspaces)
	if err != nil {
		return nil, fmt.Errorf("workspace webhook endpoints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ws, id string
		if err := rows.Scan(&ws, &id); err != nil {
			return nil, fmt.Errorf("workspace webhook endpoints: %w", err)
		}
		out[ws] = append(out[ws], id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("workspace webhook endpoints: %w", err)
	}
	return out, nil
}
