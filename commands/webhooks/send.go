package webhooks

import (
	"context"
	"errors"
	"time"

	"svc/projections"
)

// kickWithin is the longest retry pause for which the sender sets itself a
// timer; longer pauses are found by polling the read model.
const kickWithin = time.Minute

// Kick hints that delivery id is due now, so it is tried without waiting
// for the read model.
func (d *Dispatcher) Kick(id string) {
	select {
	case d.kick <- id:
	default: // the poll finds it
	}
}

// sendLoop tries due deliveries until ctx ends, then waits for the
// attempts in flight.
func (d *Dispatcher) sendLoop(ctx context.Context) {
	ticker := time.NewTicker(d.cfg.Poll)
	defer ticker.Stop()
	defer d.wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-d.kick:
			d.try(ctx, id)
		case <-ticker.C:
			free := d.free()
			if free == 0 {
				continue
			}
			ids, err := projections.DueDeliveries(ctx, d.store.Pool(), free)
			if err != nil {
				if ctx.Err() == nil {
					d.log.Warn("looking for due webhook deliveries", "error", err)
				}
				continue
			}
			for _, id := range ids {
				d.try(ctx, id)
			}
		}
	}
}

// free is how many more attempts may start now.
func (d *Dispatcher) free() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cfg.Concurrency - len(d.running)
}

// try makes the next attempt of delivery id in the background, unless it
// is in flight here already or the dispatcher is full.
func (d *Dispatcher) try(ctx context.Context, id string) {
	d.mu.Lock()
	if d.running[id] || len(d.running) >= d.cfg.Concurrency {
		d.mu.Unlock()
		return
	}
	d.running[id] = true
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		next := d.run(ctx, id)
		d.mu.Lock()
		delete(d.running, id)
		d.mu.Unlock()
		if next != nil && ctx.Err() == nil {
			if pause := next.Sub(d.now()); pause < kickWithin {
				time.AfterFunc(max(pause, 0), func() { d.Kick(id) })
			}
		}
	}()
}

// run makes the next attempt of delivery id under its lease and returns
// when the attempt after it is due, nil when none is scheduled.
func (d *Dispatcher) run(ctx context.Context, id string) *time.Time {
	ok, err := d.claim(ctx, id)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			d.log.Warn("claiming a webhook delivery", "delivery_id", id, "error", err)
		}
		return nil
	}
	defer d.release(id)
	next, err := d.attempt(ctx, id)
	switch {
	case errors.Is(err, errAbandoned):
		d.log.Info("webhook attempt abandoned: stopping", "delivery_id", id)
	case err != nil && ctx.Err() == nil:
		d.log.Warn("webhook delivery attempt", "delivery_id", id, "error", err)
	}
	return next
}
