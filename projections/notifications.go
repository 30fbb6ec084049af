package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/notification"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// Notifications is the read model of in-app notifications (spec B): one
// row per event that tells an organization something (notification.From
// is the table of which), its id derived from the event's id so a rebuild
// makes the same rows, and its read_at set by NotificationsRead.
// notification_workflows keeps each workflow's organization and title,
// which its outcome events do not carry.
type Notifications struct{}

// notificationSpace is the uuid v5 namespace of notification ids.
var notificationSpace = uuid.MustParse("6b1f3c2e-5d0a-4e7b-9a41-2f8c7d9e0b13")

// NotificationID is the id of the notification derived from event id.
func NotificationID(eventID uuid.UUID) string {
	return uuid.NewSHA1(notificationSpace, eventID[:]).String()
}

// Name implements Projection.
func (Notifications) Name() string { return "notifications" }

// Tables implements Projection.
func (Notifications) Tables() []Table {
	return []Table{
		{
			Name: "notification_workflows",
			DDL: `workflow_id text PRIMARY KEY,
				org_id text NOT NULL,
				title text NOT NULL`,
		},
		{
			Name: "notifications",
			DDL: `id text PRIMARY KEY,
				org_id text NOT NULL,
				type text NOT NULL,
				title text NOT NULL,
				body text NOT NULL,
				workflow_id text,
				action_url text,
				action_label text,
				metadata jsonb NOT NULL,
				read_at timestamptz,
				created_at timestamptz NOT NULL,
				tx bigint NOT NULL,
				pos bigint NOT NULL`,
			Indexes: []string{
				`CREATE INDEX {{table}}_org ON {{table}} (org_id, tx DESC, pos DESC)`,
				`CREATE INDEX {{table}}_unread ON {{table}} (org_id) WHERE read_at IS NULL`,
			},
		},
	}
}

// EventTypes implements Projection.
func (Notifications) EventTypes() []string {
	return append([]string{workflow.EventPlanned, notification.EventRead}, notification.EventTypes()...)
}

type notificationWorkflow struct{ org, title string }

// Apply implements Projection.
func (Notifications) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	wfs, rows := t.Of("notification_workflows"), t.Of("notifications")
	// The organizations and titles of the batch's workflows: planned in
	// the batch, else from the table.
	known := map[string]notificationWorkflow{}
	var missing []string
	for _, e := range events {
		switch d := e.Payload.(type) {
		case workflow.Planned:
			known[d.WorkflowID] = notificationWorkflow{org: d.OrgID, title: d.Title}
		case notification.Read:
		default:
			if id, ok := workflow.IDOf(e.StreamID); ok {
				if _, seen := known[id]; !seen {
					missing = append(missing, id)
				}
			}
		}
	}
	if len(missing) > 0 {
		r, err := tx.Query(ctx, `SELECT workflow_id, org_id, title FROM `+wfs+` WHERE workflow_id = ANY($1)`, missing)
		if err != nil {
			return fmt.Errorf("notifications: workflows: %w", err)
		}
		for r.Next() {
			var id string
			var w notificationWorkflow
			if err := r.Scan(&id, &w.org, &w.title); err != nil {
				r.Close()
				return fmt.Errorf("notifications: workflows: %w", err)
			}
			if _, seen := known[id]; !seen {
				known[id] = w
			}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return fmt.Errorf("notifications: workflows: %w", err)
		}
	}
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case workflow.Planned:
			b.Queue(`INSERT INTO `+wfs+` (workflow_id, org_id, title) VALUES ($1, $2, $3)
				ON CONFLICT (workflow_id) DO UPDATE SET org_id = excluded.org_id, title = excluded.title`,
				d.WorkflowID, d.OrgID, d.Title)
			continue
		case notification.Read:
			if d.All {
				b.Queue(`UPDATE `+rows+` SET read_at = $2 WHERE org_id = $1 AND read_at IS NULL`, d.OrgID, e.RecordedAt)
			} else if len(d.IDs) > 0 {
				b.Queue(`UPDATE `+rows+` SET read_at = $3 WHERE org_id = $1 AND id = ANY($2) AND read_at IS NULL`,
					d.OrgID, d.IDs, e.RecordedAt)
			}
			continue
		}
		var w notificationWorkflow
		if id, ok := workflow.IDOf(e.StreamID); ok {
			w = known[id]
		}
		n, ok := notification.From(e, w.title)
		if !ok {
			continue
		}
		org := n.OrgID
		if org == "" {
			org = w.org
		}
		if org == "" {
			org = e.Metadata.OrgID
		}
		if org == "" {
			continue // nobody to tell
		}
		meta := n.Metadata
		if meta == nil {
			meta = map[string]any{}
		}
		metaJSON, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("notifications: metadata: %w", err)
		}
		var wfID *string
		if n.WorkflowID != "" {
			wfID = &n.WorkflowID
		}
		b.Queue(`INSERT INTO `+rows+` (id, org_id, type, title, body, workflow_id, action_url, action_label, metadata,
				created_at, tx, pos)
			VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''), nullif($8, ''), $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
			NotificationID(e.ID), org, n.Type, n.Title, n.Body, wfID, n.ActionURL, n.ActionLabel, metaJSON,
			e.RecordedAt, int64(e.Position.TransactionID), e.Position.Global)
	}
	return sendBatch(ctx, tx, b)
}

// NotificationRow is a notification as the read model has it.
type NotificationRow struct {
	ID, Type, Title, Body  string
	WorkflowID             *string
	ActionURL, ActionLabel *string
	Metadata               json.RawMessage
	ReadAt                 *time.Time
	CreatedAt              time.Time
	transaction, position  int64
}

// NotificationFilter selects a page of an organization's notifications,
// newest first.
type NotificationFilter struct {
	OrgID      string
	UnreadOnly bool
	Limit      int
	// After continues past a cursor (a place in the log, as the audit
	// log's).
	After *AuditCursor
}

// NotificationPage is a page of notifications with the organization's
// unread count.
type NotificationPage struct {
	Rows    []NotificationRow
	HasMore bool
	// Next is the cursor of the following page; nil on the last one.
	Next   *AuditCursor
	Unread int
}

// Notifications lists a page of f.OrgID's notifications, newest first.
func (q *Queries) Notifications(ctx context.Context, f NotificationFilter) (NotificationPage, error) {
	page := NotificationPage{Rows: []NotificationRow{}}
	tx, pos := int64(1<<62), int64(1<<62)
	if f.After != nil {
		tx, pos = f.After.TransactionID, f.After.Position
	}
	r, err := q.store.Pool().Query(ctx, `SELECT id, type, title, body, workflow_id, action_url, action_label, metadata,
			read_at, created_at, tx, pos
		FROM notifications WHERE org_id = $1 AND (tx, pos) < ($2, $3) AND (NOT $4 OR read_at IS NULL)
		ORDER BY tx DESC, pos DESC LIMIT $5`, f.OrgID, tx, pos, f.UnreadOnly, f.Limit+1)
	if err != nil {
		return page, fmt.Errorf("notifications: %w", err)
	}
	page.Rows, err = pgx.CollectRows(r, func(row pgx.CollectableRow) (NotificationRow, error) {
		var n NotificationRow
		err := row.Scan(&n.ID, &n.Type, &n.Title, &n.Body, &n.WorkflowID, &n.ActionURL, &n.ActionLabel, &n.Metadata,
			&n.ReadAt, &n.CreatedAt, &n.transaction, &n.position)
		return n, err
	})
	if err != nil {
		return page, fmt.Errorf("notifications: %w", err)
	}
	if page.Rows == nil {
		page.Rows = []NotificationRow{}
	}
	if len(page.Rows) > f.Limit {
		page.Rows, page.HasMore = page.Rows[:f.Limit], true
		last := page.Rows[len(page.Rows)-1]
		page.Next = &AuditCursor{TransactionID: last.transaction, Position: last.position}
	}
	page.Unread, err = q.UnreadNotifications(ctx, f.OrgID)
	return page, err
}

// UnreadNotifications counts orgID's unread notifications.
func (q *Queries) UnreadNotifications(ctx context.Context, orgID string) (int, error) {
	var n int
	if err := q.store.Pool().QueryRow(ctx, `SELECT count(*) FROM notifications WHERE org_id = $1 AND read_at IS NULL`,
		orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("unread notifications: %w", err)
	}
	return n, nil
}

// UnreadNotificationIDs keeps, of ids, orgID's unread notifications (each
// once); other organizations' and unknown ids are dropped, never told.
func (q *Queries) UnreadNotificationIDs(ctx context.Context, orgID string, ids []string) ([]string, error) {
	r, err := q.store.Pool().Query(ctx, `SELECT id FROM notifications WHERE org_id = $1 AND id = ANY($2) AND read_at IS NULL
		ORDER BY id`, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("unread notifications: %w", err)
	}
	out, err := pgx.CollectRows(r, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("unread notifications: %w", err)
	}
	return out, nil
}
