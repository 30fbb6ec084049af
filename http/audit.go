package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"svc/projections"
)

// auditEvent is an audit event as spec B shows it.
type auditEvent struct {
	ID           string          `json:"id"`
	Action       string          `json:"action"`
	Actor        auditActor      `json:"actor"`
	ResourceType string          `json:"resource_type"`
	ResourceID   string          `json:"resource_id"`
	Metadata     json.RawMessage `json:"metadata"`
	CreatedAt    time.Time       `json:"created_at"`
}

// auditActor is who did it: a user, an API key, or the system ("operator"
// for the operator commands, "system" for the service itself).
type auditActor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// auditLogResponse is the answer of GET /api/workspaces/{id}/audit-log;
// next_cursor (null on the last page) asks for the next page.
type auditLogResponse struct {
	Events     []auditEvent `json:"events"`
	NextCursor *string      `json:"next_cursor"`
}

// auditLog is GET /api/workspaces/{id}/audit-log (admin): the workspace's
// security and admin events, newest first; the default workspace's log
// holds the organization's own events too.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	f, err := parseAuditFilter(r)
	if err != nil {
		return err
	}
	f.OrgID, f.WorkspaceID, f.WithOrg = a.ws.OrgID, a.ws.ID, a.ws.IsDefault
	page, err := s.queries.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	out := auditLogResponse{Events: make([]auditEvent, 0, len(page.Events))}
	for _, e := range page.Events {
		out.Events = append(out.Events, auditEvent{ID: e.ID, Action: e.Action, Actor: auditActor{Type: e.Actor.Type, ID: e.Actor.ID},
			ResourceType: e.ResourceType, ResourceID: e.ResourceID, Metadata: e.Metadata, CreatedAt: e.CreatedAt.UTC()})
	}
	if page.Next != nil {
		c := page.Next.Encode()
		out.NextCursor = &c
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// parseAuditFilter reads the query of the audit log: limit (1-100,
// default 50), cursor, and the optional filters action, actor (an actor's
// id) and resource_type. A bad value is 400 invalid_body naming it.
func parseAuditFilter(r *http.Request) (projections.AuditFilter, error) {
	q := r.URL.Query()
	f := projections.AuditFilter{Limit: 50, Action: strings.TrimSpace(q.Get("action")), ActorID: strings.TrimSpace(q.Get("actor")),
		ResourceType: strings.TrimSpace(q.Get("resource_type"))}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 100 {
			return f, platformField("limit", "an integer from 1 to 100").withDetail("min", 1).withDetail("max", 100)
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		c, err := projections.DecodeAuditCursor(v)
		if err != nil {
			return f, platformField("cursor", "pass next_cursor of the previous page unchanged")
		}
		f.After = &c
	}
	if f.Action != "" && !slices.Contains(projections.AuditActions(), f.Action) {
		return f, platformField("action", strconv.Quote(f.Action)+" is not an audit action").withDetail("allowed", projections.AuditActions())
	}
	if f.ResourceType != "" && !slices.Contains(projections.AuditResourceTypes(), f.ResourceType) {
		return f, platformField("resource_type", strconv.Quote(f.ResourceType)+" is not an audited resource type").
			withDetail("allowed", projections.AuditResourceTypes())
	}
	if len(f.ActorID) > 200 {
		return f, platformField("actor", "at most 200 characters").withDetail("max_length", 200)
	}
	return f, nil
}
