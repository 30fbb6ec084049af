package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/delivery"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Delivery statuses of the webhook_deliveries read model.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDeliveries is the read model of webhook deliveries: one row per
// delivery with its state and, in log, every attempt's record in order.
// The webhook dispatcher finds due deliveries in it. endpoint_id is set
// for a delivery to a workspace webhook endpoint (spec B), null for a
// workflow's own webhook (spec A).
type WebhookDeliveries struct{}

// Name implements Projection.
func (WebhookDeliveries) Name() string { return "webhook_deliveries" }

// SchemaVersion implements Versioned: 2 added endpoint_id, 3 the index
// of an endpoint's deliveries, newest first.
func (WebhookDeliveries) SchemaVersion() int { return 3 }

// Tables implements Projection.
func (WebhookDeliveries) Tables() []Table {
	return []Table{{
		Name: "webhook_deliveries",
		DDL: `delivery_id text PRIMARY KEY,
			org_id uuid NOT NULL,
			workflow_id text NOT NULL,
			endpoint_id text,
			event_type text NOT NULL,
			url text NOT NULL,
			status text NOT NULL,
			attempts integer NOT NULL,
			last_status_code integer,
			last_error text,
			next_attempt_at timestamptz,
			created_at timestamptz NOT NULL,
			delivered_at timestamptz,
			updated_at timestamptz NOT NULL,
			version bigint NOT NULL,
			log jsonb NOT NULL`,
		Indexes: []string{
			`CREATE INDEX {{table}}_due ON {{table}} (next_attempt_at) WHERE status = 'pending'`,
			`CREATE INDEX {{table}}_workflow ON {{table}} (workflow_id, created_at)`,
			`CREATE INDEX {{table}}_endpoint ON {{table}} (endpoint_id, created_at DESC, delivery_id DESC) WHERE endpoint_id IS NOT NULL`,
		},
		Storage: "fillfactor = 70",
	}}
}

// EventTypes implements Projection.
func (WebhookDeliveries) EventTypes() []string {
	return []string{delivery.EventDeliveryScheduled, delivery.EventDeliveryAttempted}
}

// Apply implements Projection: a scheduled delivery inserts its row, an
// attempt updates it and appends its record to the log.
func (WebhookDeliveries) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("webhook_deliveries")
	b := &pgx.Batch{}
	for _, e := range events {
		id := strings.TrimPrefix(e.StreamID, delivery.StreamPrefix)
		switch d := e.Payload.(type) {
		case delivery.Scheduled:
			b.Queue(`INSERT INTO `+table+` (delivery_id, org_id, workflow_id, endpoint_id, event_type, url, status, attempts,
					next_attempt_at, created_at, updated_at, version, log)
				VALUES ($1, $2, $3, nullif($10, ''), $4, $5, $6, 0, $7, $8, $8, $9, '[]')
				ON CONFLICT (delivery_id) DO NOTHING`,
				id, d.OrgID, d.WorkflowID, d.Event, d.URL, DeliveryPending, d.NextAttemptAt, e.RecordedAt, e.Version, d.EndpointID)
		case delivery.Attempted:
			a := d
			status := DeliveryPending
			switch {
			case a.Delivered:
				status = DeliveryDelivered
			case a.GaveUp || a.NextAttemptAt == nil:
				status = DeliveryFailed
			}
			var deliveredAt *time.Time
			if a.Delivered {
				deliveredAt = &e.RecordedAt
			}
			b.Queue(`UPDATE `+table+` SET attempts = $2, status = $3, last_status_code = $4, last_error = $5,
					next_attempt_at = $6, delivered_at = coalesce($7, delivered_at), updated_at = $8, version = $9,
					log = log || jsonb_build_array($10::jsonb)
				WHERE delivery_id = $1 AND version < $9`,
				id, a.Attempt, status, a.StatusCode, a.Error, a.NextAttemptAt, deliveredAt, e.RecordedAt, e.Version, string(e.Data))
		}
	}
	return sendBatch(ctx, tx, b)
}

// DeliveryRow is a webhook delivery as the read model has it; its JSON is
// the entry of GET /api/rigor/webhooks/deliveries.
type DeliveryRow struct {
	DeliveryID     string     `json:"delivery_id"`
	OrgID          string     `json:"-"`
	WorkflowID     string     `json:"-"`
	EventType      string     `json:"event_type"`
	URL            string     `json:"url"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	LastStatusCode *int       `json:"last_status_code"`
	LastError      *string    `json:"last_error"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	CreatedAt      time.Time  `json:"created_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	// Log holds the record of every attempt, oldest first.
	Log json.RawMessage `json:"log"`
}

// DueDeliveries lists up to limit pending deliveries whose next attempt is
// due and whose lease (in job_leases, kind delivery) is free or expired,
// longest due first.
func DueDeliveries(ctx context.Context, db eventstore.DB, limit int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT d.delivery_id FROM webhook_deliveries d
		LEFT JOIN job_leases l ON l.kind = 'delivery' AND l.job_id = d.delivery_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (l.job_id IS NULL OR l.expires_at < now())
		ORDER BY d.next_attempt_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("due webhook deliveries: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("due webhook deliveries: %w", err)
	}
	return ids, nil
}

// Deliveries lists the webhook deliveries of workflow workflowID of orgID
// to its own webhook (not to workspace endpoints), oldest first.
func Deliveries(ctx context.Context, db eventstore.DB, orgID, workflowID string) ([]DeliveryRow, error) {
	rows, err := db.Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries WHERE workflow_id = $1 AND org_id = $2 AND endpoint_id IS NULL
		ORDER BY created_at, delivery_id`, workflowID, orgID)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	return out, nil
}

// deliveryColumns are the columns scanDelivery reads, in its order.
const deliveryColumns = `delivery_id, org_id::text, workflow_id, event_type, url, status, attempts,
	last_status_code, last_error, next_attempt_at, created_at, delivered_at, log`

// scanDelivery reads a row of deliveryColumns.
func scanDelivery(r pgx.CollectableRow) (DeliveryRow, error) {
	var (
		d   DeliveryRow
		log []byte
	)
	err := r.Scan(&d.DeliveryID, &d.OrgID, &d.WorkflowID, &d.EventType, &d.URL, &d.Status, &d.Attempts,
		&d.LastStatusCode, &d.LastError, &d.NextAttemptAt, &d.CreatedAt, &d.DeliveredAt, &log)
	d.Log = log
	d.CreatedAt, d.NextAttemptAt, d.DeliveredAt = d.CreatedAt.UTC(), utcPtr(d.NextAttemptAt), utcPtr(d.DeliveredAt)
	return d, err
}

// utcPtr is *t in UTC; nil for nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
