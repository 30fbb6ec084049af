package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"svc/adapters/webhook"
	"svc/domain/workflow"
	"svc/eventstore"
)

// appendTimeout bounds recording an attempt, which happens while stopping
// too.
const appendTimeout = 10 * time.Second

// errAbandoned is an attempt cut short by stopping: nothing is recorded,
// and the attempt is made again, with the same number, later.
var errAbandoned = errors.New("webhooks: attempt abandoned while stopping")

// errSecretUnavailable is a delivery whose secret cannot be had: no
// registration, or a sealed secret the service key cannot open. The
// attempt is recorded as failed and not retried.
var errSecretUnavailable = errors.New("webhook secret unavailable")

// attempt makes the next attempt of delivery id if it is due, records it,
// and returns when the attempt after it is due (nil when none will be).
func (d *Dispatcher) attempt(ctx context.Context, id string) (*time.Time, error) {
	events, err := d.store.Load(ctx, Stream(id))
	if err != nil {
		return nil, err
	}
	dl, err := loadDelivery(events)
	if err != nil {
		return nil, fmt.Errorf("webhooks: delivery %s: %w", id, err)
	}
	start := d.now()
	if !dl.due(start) {
		if dl.done {
			return nil, nil
		}
		return &dl.next, nil
	}
	number := dl.attempts + 1
	var res webhook.Result
	secret, err := d.secret(ctx, dl.Scheduled)
	switch {
	case errors.Is(err, errSecretUnavailable):
		res = webhook.Result{Err: err}
	case err != nil:
		return nil, err // a database error: the next poll tries again
	default:
		if res, err = d.send(ctx, dl, secret, number); err != nil {
			return nil, err
		}
	}
	rec := d.outcome(dl.DeliveryID, number, start, res)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appendTimeout)
	defer cancel()
	m := eventstore.Metadata{OrgID: dl.OrgID, Actor: "system", CorrelationID: dl.WorkflowID, CausationID: dl.SourceEventID}
	if _, err := d.store.Append(actx, Stream(id), dl.version, eventstore.NewEvent{Type: EventDeliveryAttempted, Data: rec, Metadata: m}); err != nil {
		return nil, fmt.Errorf("webhooks: record attempt %d of %s: %w", number, id, err)
	}
	d.logAttempt(dl, rec)
	return rec.NextAttemptAt, nil
}

// send makes one attempt. Once ctx ends the attempt has StopGrace to
// finish; past it the request is cancelled and, when no answer arrived,
// the attempt is abandoned (errAbandoned).
func (d *Dispatcher) send(ctx context.Context, dl *delivery, secret string, number int) (webhook.Result, error) {
	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.cfg.SendTimeout)
	defer cancel()
	var abandoned atomic.Bool
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(d.cfg.StopGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			abandoned.Store(true)
			cancel()
		}
	}()
	res := d.sender.Send(sendCtx, webhook.Delivery{ID: dl.DeliveryID, URL: dl.URL, Secret: secret, EventType: dl.EventType,
		WorkflowID: dl.WorkflowID, Body: []byte(dl.Body), Attempt: number})
	if abandoned.Load() && res.StatusCode == 0 {
		return res, errAbandoned
	}
	return res, nil
}

// outcome turns the result of attempt number into its record: delivered,
// due again after the backoff (or the receiver's longer Retry-After), or
// given up.
func (d *Dispatcher) outcome(deliveryID string, number int, start time.Time, res webhook.Result) Attempted {
	a := Attempted{Attempt: number, AttemptedAt: start.UTC(), Delivered: res.Delivered,
		DurationMS: res.Duration.Milliseconds(), ResponseSnippet: res.ResponseSnippet}
	if res.StatusCode != 0 {
		code := res.StatusCode
		a.StatusCode = &code
	}
	if res.Err != nil && !res.Delivered {
		msg := strings.TrimPrefix(res.Err.Error(), "webhook: deliver "+deliveryID+": ")
		a.Error = &msg
	}
	switch {
	case res.Delivered:
	case res.Retryable && number < webhook.MaxAttempts:
		pause := max(webhook.ScaledBackoff(number, d.cfg.BackoffScale), res.RetryAfter)
		next := d.now().Add(pause).UTC()
		a.NextAttemptAt = &next
	default:
		a.GaveUp = true
	}
	return a
}

// secret returns the webhook secret of a delivery from its registration
// stream.
func (d *Dispatcher) secret(ctx context.Context, s Scheduled) (string, error) {
	events, err := d.store.Load(ctx, s.WebhookID)
	if err != nil {
		return "", err
	}
	var (
		reg   workflow.WebhookRegistered
		found bool
	)
	for _, e := range events {
		if e.Type != workflow.EventWebhookRegistered {
			continue
		}
		if err := e.Decode(&reg); err != nil {
			return "", fmt.Errorf("%w: %w", errSecretUnavailable, err)
		}
		found = true // the latest registration wins
	}
	if !found || reg.OrgID != s.OrgID {
		return "", fmt.Errorf("%w: no registration %s for the organization", errSecretUnavailable, s.WebhookID)
	}
	plain, err := d.box.Open(reg.SealedSecret)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errSecretUnavailable, err)
	}
	return string(plain), nil
}

// logAttempt logs an attempt's outcome.
func (d *Dispatcher) logAttempt(dl *delivery, a Attempted) {
	attrs := []any{"delivery_id", dl.DeliveryID, "workflow_id", dl.WorkflowID, "event", dl.EventType, "attempt", a.Attempt, "duration_ms", a.DurationMS}
	if a.StatusCode != nil {
		attrs = append(attrs, "status_code", *a.StatusCode)
	}
	if a.Error != nil {
		attrs = append(attrs, "error", *a.Error)
	}
	switch {
	case a.Delivered:
		d.log.Debug("webhook delivered", attrs...)
	case a.GaveUp:
		d.log.Warn("webhook delivery given up", attrs...)
	default:
		d.log.Info("webhook attempt failed; will retry", append(attrs, "next_attempt_at", a.NextAttemptAt)...)
	}
}
