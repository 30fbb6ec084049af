package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/projections"
)

// maxNotificationIDs is how many ids one PATCH /api/notifications/read
// may name.
const maxNotificationIDs = 100

// notificationRoutes registers spec B's notifications: list, count and
// mark read, any role, with a key or a session; an organization's
// notifications are all its members' and keys'.
func (s *Server) notificationRoutes(r *mux.Router) {
	r.Handle("/api/notifications", s.platform("", s.listNotifications)).Methods(http.MethodGet).Name("notifications.list")
	r.Handle("/api/notifications/count", s.platform("", s.countNotifications)).Methods(http.MethodGet).Name("notifications.count")
	r.Handle("/api/notifications/read", s.platform("", s.readNotifications)).Methods(http.MethodPatch).Name("notifications.read")
}

// notificationBody is the Notification resource (spec B).
type notificationBody struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Body        string          `json:"body"`
	WorkflowID  *string         `json:"workflow_id"`
	ActionURL   string          `json:"action_url"`
	ActionLabel string          `json:"action_label"`
	Metadata    json.RawMessage `json:"metadata"`
	ReadAt      *time.Time      `json:"read_at"`
	CreatedAt   time.Time       `json:"created_at"`
}

// notificationsResponse is the answer of GET /api/notifications;
// next_cursor (beyond spec B; null on the last page) asks for the next
// page.
type notificationsResponse struct {
	OK            bool               `json:"ok"`
	Notifications []notificationBody `json:"notifications"`
	UnreadCount   int                `json:"unread_count"`
	HasMore       bool               `json:"has_more"`
	NextCursor    *string            `json:"next_cursor"`
}

type notificationCountResponse struct {
	OK          bool   `json:"ok"`
	UnreadCount int    `json:"unread_count"`
	RequestID   string `json:"request_id"`
}

type notificationsReadResponse struct {
	OK        bool   `json:"ok"`
	Updated   int    `json:"updated"`
	RequestID string `json:"request_id"`
}

// listNotifications is GET /api/notifications: unread_only (true or
// false), limit (1-50, default 20), cursor (next_cursor of the previous
// page); newest first.
func (s *Server) listNotifications(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	f := projections.NotificationFilter{OrgID: p.OrgID, Limit: 20}
	q := r.URL.Query()
	switch v := q.Get("unread_only"); v {
	case "", "false":
	case "true":
		f.UnreadOnly = true
	default:
		return platformField("unread_only", "true or false")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 50 {
			return platformField("limit", "an integer from 1 to 50").withDetail("min", 1).withDetail("max", 50)
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		c, err := projections.DecodeAuditCursor(v)
		if err != nil {
			return platformField("cursor", "pass next_cursor of the previous page unchanged")
		}
		f.After = &c
	}
	page, err := s.queries.Notifications(ctx, f)
	if err != nil {
		return err
	}
	out := notificationsResponse{OK: true, Notifications: make([]notificationBody, 0, len(page.Rows)),
		UnreadCount: page.Unread, HasMore: page.HasMore}
	for _, n := range page.Rows {
		b := notificationBody{ID: n.ID, Type: n.Type, Title: n.Title, Body: n.Body, WorkflowID: n.WorkflowID,
			ActionURL: notificationString(n.ActionURL), ActionLabel: notificationString(n.ActionLabel), Metadata: n.Metadata, CreatedAt: n.CreatedAt.UTC()}
		if n.ReadAt != nil {
			t := n.ReadAt.UTC()
			b.ReadAt = &t
		}
		out.Notifications = append(out.Notifications, b)
	}
	if page.Next != nil {
		c := page.Next.Encode()
		out.NextCursor = &c
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// countNotifications is GET /api/notifications/count.
func (s *Server) countNotifications(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	n, err := s.queries.UnreadNotifications(ctx, p.OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, notificationCountResponse{OK: true, UnreadCount: n, RequestID: requestID(ctx)})
	return nil
}

// notificationsReadBody is PATCH /api/notifications/read's body, read raw
// so a wrong type names its field.
type notificationsReadBody struct {
	IDs json.RawMessage `json:"notification_ids"`
	All json.RawMessage `json:"all"`
}

// readNotifications is PATCH /api/notifications/read: notification_ids
// (1-100 strings) or all (true), not both. Ids that are not the caller's
// organization's, unknown or already read are ignored and not counted in
// updated; all marks every unread notification derived so far.
func (s *Server) readNotifications(w http.ResponseWriter, r *http.Request) error {
	var body notificationsReadBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	cmd := commands.MarkNotificationsRead{OrgID: p.OrgID, By: p.Actor()}
	hasIDs := body.IDs != nil && string(bytes.TrimSpace(body.IDs)) != "null"
	if raw := bytes.TrimSpace(body.All); raw != nil && string(raw) != "null" {
		all, ok := rawBool(raw)
		if !ok || !all {
			return platformField("all", "must be true to mark every notification read")
		}
		if hasIDs {
			return platformField("notification_ids", "give notification_ids or all, not both")
		}
		cmd.All = true
	}
	updated := 0
	if cmd.All {
		n, err := s.queries.UnreadNotifications(ctx, p.OrgID)
		if err != nil {
			return err
		}
		updated = n
		if n == 0 {
			cmd.All = false // nothing to mark: no event
		}
	} else {
		var ids []string
		if !hasIDs || json.Unmarshal(body.IDs, &ids) != nil || len(ids) == 0 || len(ids) > maxNotificationIDs {
			return platformField("notification_ids", "an array of 1 to 100 notification ids is required unless all is true").
				withDetail("max", maxNotificationIDs)
		}
		for _, id := range ids {
			if id == "" {
				return platformField("notification_ids", "every id must be a non-empty string")
			}
		}
		mine, err := s.queries.UnreadNotificationIDs(ctx, p.OrgID, ids)
		if err != nil {
			return err
		}
		cmd.IDs, updated = mine, len(mine)
	}
	if _, err := s.commands.MarkNotificationsRead.Handle(ctx, cmd); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, notificationsReadResponse{OK: true, Updated: updated, RequestID: requestID(ctx)})
	return nil
}

func notificationString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
