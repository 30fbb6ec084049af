package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"svc/projections"
)

// webhookDeliveryBody is one delivery of a workspace webhook: spec A's
// delivery log entry (GET /api/rigor/webhooks/deliveries) with the
// workflow whose event it carries.
type webhookDeliveryBody struct {
	WorkflowID string `json:"workflow_id"`
	projections.DeliveryRow
}

func webhookDeliveryOut(d projections.DeliveryRow) webhookDeliveryBody {
	return webhookDeliveryBody{WorkflowID: d.WorkflowID, DeliveryRow: d}
}

// webhookDeliveriesResponse is the answer of GET
// .../webhooks/{webhook_id}/deliveries; next_cursor (null on the last
// page) asks for the next page.
type webhookDeliveriesResponse struct {
	Deliveries []webhookDeliveryBody `json:"deliveries"`
	NextCursor *string               `json:"next_cursor"`
}

// listWebhookDeliveries is GET
// /api/workspaces/{id}/webhooks/{webhook_id}/deliveries (member, Pro+):
// the webhook's deliveries, newest first, each with its state, attempts
// and every attempt's record; limit (1-100, default 20) and cursor page
// them. An unknown webhook, a deleted one or another workspace's is 404.
func (s *Server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	limit, after, err := parseDeliveryPage(r)
	if err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	e, err := s.queries.WebhookEndpoint(ctx, workspaceOf(ctx).ws.ID, mux.Vars(r)["webhook_id"])
	if errors.Is(err, projections.ErrNotFound) {
		return newError(http.StatusNotFound, "not_found", "No such webhook in this workspace.")
	}
	if err != nil {
		return err
	}
	page, err := s.queries.EndpointDeliveries(ctx, e.ID, after, limit)
	if err != nil {
		return err
	}
	out := webhookDeliveriesResponse{Deliveries: make([]webhookDeliveryBody, 0, len(page.Deliveries))}
	for _, d := range page.Deliveries {
		out.Deliveries = append(out.Deliveries, webhookDeliveryOut(d))
	}
	if page.Next != nil {
		c := page.Next.Encode()
		out.NextCursor = &c
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// parseDeliveryPage reads limit (1-100, default 20) and cursor; a bad
// value is 400 invalid_body naming it.
func parseDeliveryPage(r *http.Request) (int, *projections.DeliveryCursor, error) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 100 {
			return 0, nil, platformField("limit", "an integer from 1 to 100").withDetail("min", 1).withDetail("max", 100)
		}
		limit = n
	}
	var after *projections.DeliveryCursor
	if v := q.Get("cursor"); v != "" {
		c, err := projections.DecodeDeliveryCursor(v)
		if err != nil {
			return 0, nil, platformField("cursor", "pass next_cursor of the previous page unchanged")
		}
		after = &c
	}
	return limit, after, nil
}
