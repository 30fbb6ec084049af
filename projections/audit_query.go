package projections

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// AuditCursor is a place in the audit log: the last row of a page, by its
// event's position in the log.
type AuditCursor struct {
	TransactionID int64
	Position      int64
}

// Encode renders the cursor opaque: base64url of "<transaction>.<position>".
func (c AuditCursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.TransactionID, 10) + "." + strconv.FormatInt(c.Position, 10)))
}

// DecodeAuditCursor parses what Encode made; anything else is ErrBadCursor.
func DecodeAuditCursor(s string) (AuditCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return AuditCursor{}, fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	a, b, ok := strings.Cut(string(raw), ".")
	tx, err1 := strconv.ParseInt(a, 10, 64)
	pos, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || tx < 0 || pos < 0 {
		return AuditCursor{}, ErrBadCursor
	}
	return AuditCursor{TransactionID: tx, Position: pos}, nil
}

// AuditFilter selects a page of one workspace's audit log.
type AuditFilter struct {
	OrgID, WorkspaceID string
	// WithOrg adds the organization's own events (tier, grants ...): the
	// log of its default workspace.
	WithOrg bool
	// Action, ActorID and ResourceType, when set, must equal the row's.
	Action, ActorID, ResourceType string
	// After continues past a cursor.
	After *AuditCursor
	Limit int
}

// AuditRow is one event of the audit log.
type AuditRow struct {
	ID           string
	Action       string
	Actor        Actor
	ResourceType string
	ResourceID   string
	Metadata     json.RawMessage
	CreatedAt    time.Time
}

// AuditPage is a page of the audit log, newest first.
type AuditPage struct {
	Events []AuditRow
	// Next is the cursor of the following page; nil on the last one.
	Next *AuditCursor
}

// AuditLog answers a page of a workspace's audit log, newest first (by the
// events' order in the log).
func (q *Queries) AuditLog(ctx context.Context, f AuditFilter) (AuditPage, error) {
	if f.Limit < 1 {
		f.Limit = 1
	}
	args := pgx.NamedArgs{"ws": f.WorkspaceID, "org": f.OrgID, "n": f.Limit + 1}
	var cond []string
	for _, c := range []struct{ col, arg, v string }{{"action", "action", f.Action}, {"actor_id", "actor", f.ActorID}, {"resource_type", "rtype", f.ResourceType}} {
		if c.v != "" {
			cond = append(cond, c.col+" = @"+c.arg)
			args[c.arg] = c.v
		}
	}
	if f.After != nil {
		cond = append(cond, "(log_tx, log_pos) < (@tx, @pos)")
		args["tx"], args["pos"] = f.After.TransactionID, f.After.Position
	}
	branch := func(scope string) string {
		return `(SELECT id::text, action, actor_type, actor_id, resource_type, resource_id, metadata, created_at, log_tx, log_pos
			FROM audit_events WHERE ` + strings.Join(append([]string{scope}, cond...), " AND ") + `
			ORDER BY log_tx DESC, log_pos DESC LIMIT @n)`
	}
	// each branch walks its own index in order; the union of two short
	// pages is sorted again
	sql := branch("workspace_id = @ws")
	if f.WithOrg {
		sql = `SELECT * FROM (` + sql + ` UNION ALL ` + branch("workspace_id IS NULL AND org_id = @org") + `) u
			ORDER BY log_tx DESC, log_pos DESC LIMIT @n`
	}
	rows, err := q.store.Pool().Query(ctx, sql, args)
	if err != nil {
		return AuditPage{}, fmt.Errorf("audit log: %w", err)
	}
	var last []AuditCursor
	events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AuditRow, error) {
		var a AuditRow
		var c AuditCursor
		err := r.Scan(&a.ID, &a.Action, &a.Actor.Type, &a.Actor.ID, &a.ResourceType, &a.ResourceID, &a.Metadata, &a.CreatedAt, &c.TransactionID, &c.Position)
		last = append(last, c)
		return a, err
	})
	if err != nil {
		return AuditPage{}, fmt.Errorf("audit log: %w", err)
	}
	out := AuditPage{Events: events}
	if len(events) > f.Limit {
		out.Events = events[:f.Limit]
		out.Next = &last[f.Limit-1]
	}
	return out, nil
}
