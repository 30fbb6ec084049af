package delivery

import (
	"errors"
	"fmt"
	"time"

	"svc/eventstore/event"
)

// ErrNotFound is a delivery stream that is empty or does not start with
// WebhookDeliveryScheduled.
var ErrNotFound = errors.New("no such webhook delivery")

// Delivery is the aggregate: a delivery stream folded.
type Delivery struct {
	scheduled Scheduled
	version   int64
	attempts  int
	done      bool // delivered or given up
	next      time.Time
}

// New is a delivery with no events yet.
func New() *Delivery { return &Delivery{version: event.NewStream} }

// Load folds the events of a delivery stream.
func Load(events []event.Event) (*Delivery, error) {
	if len(events) == 0 || events[0].Type != EventDeliveryScheduled {
		return nil, ErrNotFound
	}
	d := New()
	if err := event.Fold(d, events); err != nil {
		return nil, err
	}
	return d, nil
}

// Apply folds one event.
func (d *Delivery) Apply(e event.Event) error {
	data, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("webhook delivery: %w", err)
	}
	switch a := data.(type) {
	case Scheduled:
		d.scheduled = a
		d.next = a.NextAttemptAt
	case Attempted:
		d.attempts = a.Attempt
		d.done = a.Delivered || a.GaveUp || a.NextAttemptAt == nil
		if a.NextAttemptAt != nil {
			d.next = *a.NextAttemptAt
		}
	}
	d.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (d *Delivery) Version() int64 { return d.version }

// Scheduled is what the delivery sends, to where.
func (d *Delivery) Scheduled() Scheduled { return d.scheduled }

// Done reports whether the delivery was made or given up.
func (d *Delivery) Done() bool { return d.done }

// Next is when the next attempt is due.
func (d *Delivery) Next() time.Time { return d.next }

// Due reports whether the next attempt may be made at now.
func (d *Delivery) Due(now time.Time) bool { return !d.done && !d.next.After(now) }

// NextAttempt is the number of the attempt to make now.
func (d *Delivery) NextAttempt() int { return d.attempts + 1 }

// Outcome is what one attempt found out.
type Outcome struct {
	StatusCode      int // 0 when no answer arrived
	Err             string
	Delivered       bool
	Retryable       bool
	RetryAfter      time.Duration
	Duration        time.Duration
	ResponseSnippet string
}

// Attempt decides the record of the attempt started at start with outcome
// o: delivered, due again after the backoff (scaled by scale, or the
// receiver's longer Retry-After), or given up after MaxAttempts.
func (d *Delivery) Attempt(start, now time.Time, o Outcome, scale float64) Attempted {
	number := d.NextAttempt()
	a := Attempted{Attempt: number, AttemptedAt: start.UTC(), Delivered: o.Delivered,
		DurationMS: o.Duration.Milliseconds(), ResponseSnippet: o.ResponseSnippet}
	if o.StatusCode != 0 {
		code := o.StatusCode
		a.StatusCode = &code
	}
	if o.Err != "" && !o.Delivered {
		msg := o.Err
		a.Error = &msg
	}
	switch {
	case o.Delivered:
	case o.Retryable && number < MaxAttempts:
		next := now.Add(max(ScaledBackoff(number, scale), o.RetryAfter)).UTC()
		a.NextAttemptAt = &next
	default:
		a.GaveUp = true
	}
	return a
}
