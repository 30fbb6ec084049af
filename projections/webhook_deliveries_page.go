package projections

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DeliveryCursor is a place in a webhook endpoint's delivery log: the last
// delivery of a page, by its creation time and id (the log's order).
type DeliveryCursor struct {
	CreatedAt  time.Time
	DeliveryID string
}

// Encode renders the cursor opaque: base64url of "<unix µs>.<delivery id>".
func (c DeliveryCursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.DeliveryID))
}

// DecodeDeliveryCursor parses what Encode made; anything else is
// ErrBadCursor.
func DecodeDeliveryCursor(s string) (DeliveryCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return DeliveryCursor{}, fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	a, id, ok := strings.Cut(string(raw), ".")
	us, err := strconv.ParseInt(a, 10, 64)
	if !ok || err != nil || us < 0 || !strings.HasPrefix(id, "dlv_") || len(id) != 36 {
		return DeliveryCursor{}, ErrBadCursor
	}
	return DeliveryCursor{CreatedAt: time.UnixMicro(us).UTC(), DeliveryID: id}, nil
}

// DeliveryPage is a page of an endpoint's deliveries, newest first.
type DeliveryPage struct {
	Deliveries []DeliveryRow
	// Next is the cursor of the following page; nil on the last one.
	Next *DeliveryCursor
}

// EndpointDeliveries answers a page of limit (at least 1) deliveries to
// workspace webhook endpoint endpointID, newest first, after a cursor
// (nil: from the newest). The caller checks that the endpoint is the
// workspace's.
func (q *Queries) EndpointDeliveries(ctx context.Context, endpointID string, after *DeliveryCursor, limit int) (DeliveryPage, error) {
	limit = max(limit, 1)
	args := pgx.NamedArgs{"endpoint": endpointID, "n": limit + 1}
	cond := ""
	if after != nil {
		cond = ` AND (created_at, delivery_id) < (@at, @id)`
		args["at"], args["id"] = after.CreatedAt, after.DeliveryID
	}
	rows, err := q.store.Pool().Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries WHERE endpoint_id = @endpoint`+cond+`
		ORDER BY created_at DESC, delivery_id DESC LIMIT @n`, args)
	if err != nil {
		return DeliveryPage{}, fmt.Errorf("endpoint deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return DeliveryPage{}, fmt.Errorf("endpoint deliveries: %w", err)
	}
	page := DeliveryPage{Deliveries: out}
	if len(out) > limit {
		page.Deliveries = out[:limit]
		last := out[limit-1]
		page.Next = &DeliveryCursor{CreatedAt: last.CreatedAt, DeliveryID: last.DeliveryID}
	}
	return page, nil
}
