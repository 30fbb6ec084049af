package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svc/adapters/webhook"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// appendTimeout bounds recording an attempt, which happens while stopping
// too.
const appendTimeout = 10 * time.Second

// errAbandoned is an attempt cut short by stopping or a lost lease:
// nothing is recorded, and the attempt is made again, with the same
// number, later.
var errAbandoned = errors.New("webhooks: attempt abandoned")

// errSecretUnavailable is a delivery whose secret cannot be had: no
// registration, or a sealed secret the service key cannot open. The
// attempt is recorded as failed and not retried.
var errSecretUnavailable = errors.New("webhook secret unavailable")

// attempt makes the next attempt of delivery id if it is due, records it,
// and returns when the attempt after it is due (nil when none will be).
func (d *Dispatcher) attempt(ctx context.Context, id string) (*time.Time, error) {
	dl, err := d.repos.Deliveries.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("webhooks: delivery %s: %w", id, err)
	}
	start := d.now()
	if !dl.Due(start) {
		if dl.Done() {
			return nil, nil
		}
		next := dl.Next()
		return &next, nil
	}
	s := dl.Scheduled()
	var res webhook.Result
	secret, err := d.secret(ctx, s)
	switch {
	case errors.Is(err, errSecretUnavailable):
		res = webhook.Result{Err: err}
	case err != nil:
		return nil, err // a database error: the next poll tries again
	default:
		if res, err = d.send(ctx, s, secret, dl.NextAttempt()); err != nil {
			return nil, err
		}
	}
	rec := dl.Attempt(start, d.now(), outcome(s.DeliveryID, res), d.cfg.BackoffScale)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appendTimeout)
	defer cancel()
	m := event.Metadata{OrgID: s.OrgID, Actor: "system", CorrelationID: s.WorkflowID, CausationID: s.SourceEventID}
	// one try: a conflict means another dispatcher recorded this attempt
	_, err = d.repos.Store.Run(actx, eventstore.TxOptions{Attempts: 1, Metadata: m}, func(tx *eventstore.Tx) error {
		_, err := d.repos.Deliveries.Save(tx, id, dl, rec)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("webhooks: record attempt %d of %s: %w", rec.Attempt, id, err)
	}
	d.logAttempt(s, rec)
	return rec.NextAttemptAt, nil
}

// send makes one attempt, bounded by SendTimeout. ctx lasts StopGrace
// past the dispatcher's stop (jobs.Config.StopGrace); when it ends (or the
// lease is lost) before an answer arrived, the request is cancelled and
// the attempt abandoned (errAbandoned).
func (d *Dispatcher) send(ctx context.Context, dl delivery.Scheduled, secret string, number int) (webhook.Result, error) {
	sendCtx, cancel := context.WithTimeout(ctx, d.cfg.SendTimeout)
	defer cancel()
	res := d.sender.Send(sendCtx, webhook.Delivery{ID: dl.DeliveryID, URL: dl.URL, Secret: secret, EventType: dl.Event,
		WorkflowID: dl.WorkflowID, Body: []byte(dl.Body), Attempt: number})
	if ctx.Err() != nil && res.StatusCode == 0 {
		return res, errAbandoned
	}
	return res, nil
}

// outcome is what the sender's result says of an attempt, for the
// delivery to decide on; the error drops the sender's prefix.
func outcome(deliveryID string, res webhook.Result) delivery.Outcome {
	o := delivery.Outcome{StatusCode: res.StatusCode, Delivered: res.Delivered, Retryable: res.Retryable,
		RetryAfter: res.RetryAfter, Duration: res.Duration, ResponseSnippet: res.ResponseSnippet}
	if res.Err != nil {
		o.Err = strings.TrimPrefix(res.Err.Error(), "webhook: deliver "+deliveryID+": ")
	}
	return o
}

// secret returns the webhook secret of a delivery from its registration
// stream.
func (d *Dispatcher) secret(ctx context.Context, s delivery.Scheduled) (string, error) {
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
func (d *Dispatcher) logAttempt(dl delivery.Scheduled, a delivery.Attempted) {
	attrs := []any{"delivery_id", dl.DeliveryID, "workflow_id", dl.WorkflowID, "event", dl.Event, "attempt", a.Attempt, "duration_ms", a.DurationMS}
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
