package webhooks

import (
	"context"
	"errors"
	"time"

	"svc/projections"
)

// Kick hints that delivery id is due now, so it is tried without waiting
// for the read model.
func (d *Dispatcher) Kick(id string) { d.jobs.Kick(id) }

// due lists up to limit due deliveries whose lease is free.
func (d *Dispatcher) due(ctx context.Context, limit int) ([]string, error) {
	return projections.DueDeliveries(ctx, d.store.Pool(), limit)
}

// next makes the next attempt of delivery id under its lease and returns
// when the attempt after it is due, nil when none is scheduled.
func (d *Dispatcher) next(ctx context.Context, id string) *time.Time {
	next, err := d.attempt(ctx, id)
	switch {
	case errors.Is(err, errAbandoned):
		d.log.Info("webhook attempt abandoned", "delivery_id", id, "cause", context.Cause(ctx))
	case err != nil && ctx.Err() == nil:
		d.log.Warn("webhook delivery attempt", "delivery_id", id, "error", err)
	}
	return next
}
