package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/notification"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Notifications is the read model of in-app notifications (spec B): one
// row per event that tells an organization something (notification.From
// is the table of which), its id derived from the event's id so a rebuild
// makes the same rows, and its read_at set by NotificationsRead.
// notification_workflows keeps each workflow's organization and title,
// which its outcome events do not carry; notification_balances and
// notification_budgets the state the thresholds are decided on (an
// organization's credits, a workspace's monthly budget and spend:
// notification.Balance, notification.Budget). A notification's pos is its
// event's position times 4 plus its place among the notices of that event
// (0 the event's own, 1 a budget threshold, 2 a low balance), so each has
// its own place in the paging order.
type Notifications struct{}

// SchemaVersion implements Versioned: 2 added the thresholds' state and
// the place of a notice among its event's.
func (Notifications) SchemaVersion() int { return 2 }

// ThresholdNotificationID is the id of the threshold notice of type typ
// derived from event id (a charge may cross a budget threshold and the low
// balance at once).
func ThresholdNotificationID(eventID uuid.UUID, typ string) string {
	return uuid.NewSHA1(notificationSpace, append(eventID[:len(eventID):len(eventID)], typ...)).String()
}

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
			Name: "notification_balances",
			DDL: `org_id text PRIMARY KEY,
				credits bigint NOT NULL,
				low boolean NOT NULL`,
			Storage: "fillfactor = 70",
		},
		{
			Name: "notification_budgets",
			DDL: `workspace_id text PRIMARY KEY,
				org_id text NOT NULL,
				budget bigint NOT NULL,
				month text NOT NULL,
				spent bigint NOT NULL,
				notified integer NOT NULL`,
			Storage: "fillfactor = 70",
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
	out := append([]string{workflow.EventPlanned, notification.EventRead}, notification.EventTypes()...)
	return append(out, notification.ThresholdEventTypes()...)
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
	th, err := loadThresholds(ctx, tx, t, events)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	queue := func(e event.Event, id, org string, n notification.Notice, place int64) error {
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
			id, org, n.Type, n.Title, n.Body, wfID, n.ActionURL, n.ActionLabel, metaJSON,
			e.RecordedAt, int64(e.Position.TransactionID), e.Position.Global*4+place)
		return nil
	}
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
		for _, n := range th.apply(e) {
			if err := queue(e, ThresholdNotificationID(e.ID, n.notice.Type), n.notice.OrgID, n.notice, n.place); err != nil {
				return err
			}
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
		if err := queue(e, NotificationID(e.ID), org, n, 0); err != nil {
			return err
		}
	}
	th.save(b, t)
	return sendBatch(ctx, tx, b)
}

// thresholds is the state of the organizations and workspaces a batch's
// ledger and budget events touch, folded through the batch.
type thresholds struct {
	balances map[string]*notification.Balance
	budgets  map[string]*notification.Budget
	// owners are the budgets' organizations
	owners map[string]string
}

// placed is a threshold notice and its place among its event's notices.
type placed struct {
	notice notification.Notice
	place  int64
}

// loadThresholds reads the state of the organizations and workspaces the
// ledger and budget events of events name.
func loadThresholds(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) (*thresholds, error) {
	th := &thresholds{balances: map[string]*notification.Balance{}, budgets: map[string]*notification.Budget{}, owners: map[string]string{}}
	var orgs, workspaces []string
	for _, e := range events {
		switch d := e.Payload.(type) {
		case credit.Granted:
			orgs = append(orgs, d.OrgID)
		case credit.Charged:
			orgs, workspaces = append(orgs, d.OrgID), append(workspaces, d.WorkspaceID)
		case credit.Refunded:
			orgs, workspaces = append(orgs, d.OrgID), append(workspaces, d.WorkspaceID)
		case workspace.BudgetSet:
			workspaces = append(workspaces, d.WorkspaceID)
		}
	}
	if len(orgs) > 0 {
		r, err := tx.Query(ctx, `SELECT org_id, credits, low FROM `+t.Of("notification_balances")+` WHERE org_id = ANY($1)`, orgs)
		if err != nil {
			return nil, fmt.Errorf("notifications: balances: %w", err)
		}
		for r.Next() {
			var id string
			var b notification.Balance
			if err := r.Scan(&id, &b.Credits, &b.Low); err != nil {
				r.Close()
				return nil, fmt.Errorf("notifications: balances: %w", err)
			}
			th.balances[id] = &b
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("notifications: balances: %w", err)
		}
	}
	if len(workspaces) > 0 {
		r, err := tx.Query(ctx, `SELECT workspace_id, org_id, budget, month, spent, notified FROM `+t.Of("notification_budgets")+`
			WHERE workspace_id = ANY($1)`, workspaces)
		if err != nil {
			return nil, fmt.Errorf("notifications: budgets: %w", err)
		}
		for r.Next() {
			var id, org string
			var b notification.Budget
			if err := r.Scan(&id, &org, &b.Limit, &b.Month, &b.Spent, &b.Notified); err != nil {
				r.Close()
				return nil, fmt.Errorf("notifications: budgets: %w", err)
			}
			th.budgets[id], th.owners[id] = &b, org
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("notifications: budgets: %w", err)
		}
	}
	return th, nil
}

// apply folds a ledger or budget event and returns the threshold notices
// it gives.
func (th *thresholds) apply(e event.Event) []placed {
	var out []placed
	budget := func(org, ws string) *notification.Budget {
		b, ok := th.budgets[ws]
		if !ok {
			b = &notification.Budget{}
			th.budgets[ws] = b
		}
		th.owners[ws] = org
		return b
	}
	spend := func(org, ws, month string, n int64) {
		if ws == "" || month == "" {
			return
		}
		if notice, ok := budget(org, ws).Spend(org, ws, month, n); ok {
			out = append(out, placed{notice, 1})
		}
	}
	balance := func(org string, d event.Data) {
		b, ok := th.balances[org]
		if !ok {
			b = &notification.Balance{}
			th.balances[org] = b
		}
		if notice, ok := b.Apply(d); ok {
			out = append(out, placed{notice, 2})
		}
	}
	switch d := e.Payload.(type) {
	case workspace.BudgetSet:
		budget(d.OrgID, d.WorkspaceID).SetLimit(d.MonthlyCreditBudget)
	case credit.Granted:
		balance(d.OrgID, d)
	case credit.Charged:
		spend(d.OrgID, d.WorkspaceID, d.Month, d.Amount)
		balance(d.OrgID, d)
	case credit.Refunded:
		spend(d.OrgID, d.WorkspaceID, d.Month, -d.Amount)
		balance(d.OrgID, d)
	}
	return out
}

// save queues the state the batch changed.
func (th *thresholds) save(b *pgx.Batch, t Tables) {
	for id, s := range th.balances {
		b.Queue(`INSERT INTO `+t.Of("notification_balances")+` (org_id, credits, low) VALUES ($1, $2, $3)
			ON CONFLICT (org_id) DO UPDATE SET credits = excluded.credits, low = excluded.low`, id, s.Credits, s.Low)
	}
	for id, s := range th.budgets {
		b.Queue(`INSERT INTO `+t.Of("notification_budgets")+` (workspace_id, org_id, budget, month, spent, notified)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (workspace_id) DO UPDATE SET org_id = excluded.org_id, budget = excluded.budget, month = excluded.month,
				spent = excluded.spent, notified = excluded.notified`, id, th.owners[id], s.Limit, s.Month, s.Spent, s.Notified)
	}
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
