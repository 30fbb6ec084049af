package webhooks

import (
	"errors"
	"fmt"
	"time"

	"svc/eventstore"
)

// errNoDelivery is a delivery stream that is empty or does not start with
// WebhookDeliveryScheduled.
var errNoDelivery = errors.New("no such webhook delivery")

// delivery is a delivery stream folded.
type delivery struct {
	Scheduled
	version  int64 // of the last event
	attempts int
	done     bool // delivered or given up
	next     time.Time
}

// loadDelivery folds the events of a delivery stream.
func loadDelivery(events []eventstore.Event) (*delivery, error) {
	if len(events) == 0 || events[0].Type != EventDeliveryScheduled {
		return nil, errNoDelivery
	}
	d := &delivery{}
	for _, e := range events {
		switch e.Type {
		case EventDeliveryScheduled:
			if err := e.Decode(&d.Scheduled); err != nil {
				return nil, fmt.Errorf("webhooks: %w", err)
			}
			d.next = d.NextAttemptAt
		case EventDeliveryAttempted:
			var a Attempted
			if err := e.Decode(&a); err != nil {
				return nil, fmt.Errorf("webhooks: %w", err)
			}
			d.attempts = a.Attempt
			d.done = a.Delivered || a.GaveUp || a.NextAttemptAt == nil
			if a.NextAttemptAt != nil {
				d.next = *a.NextAttemptAt
			}
		}
		d.version = e.Version
	}
	return d, nil
}

// due reports whether the next attempt may be made at now.
func (d *delivery) due(now time.Time) bool {
	return !d.done && !d.next.After(now)
}
