package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svc/adapters/webhook"
	"svc/domain/delivery"
	"svc/domain/hook"
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

// errEndpointOff is a delivery to a workspace endpoint that was deleted
// or turned off since it was scheduled: no attempt is made, the delivery
// is recorded as given up, and the endpoint's run of failures is not
// counted.
var errEndpointOff = errors.New("webhook endpoint deleted or disabled")

// errRecorded is an attempt another dispatcher recorded first.
var errRecorded = errors.New("attempt recorded by another dispatcher")

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
	var (
		res webhook.Result
		ep  *hook.Endpoint // the workspace endpoint an attempt was made to
	)
	to, err := d.target(ctx, s, start)
	switch {
	case errors.Is(err, errSecretUnavailable), errors.Is(err, errEndpointOff):
		res = webhook.Result{Err: err}
	case err != nil:
		return nil, err // a database error: the next poll tries again
	default:
		if res, err = d.send(ctx, s, to, dl.NextAttempt()); err != nil {
			return nil, err
		}
		ep = to.endpoint
	}
	rec := dl.Attempt(start, d.now(), outcome(s.DeliveryID, res), d.cfg.BackoffScale)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appendTimeout)
	defer cancel()
	m := event.Metadata{OrgID: s.OrgID, Actor: "system", CorrelationID: s.WorkflowID, CausationID: s.SourceEventID}
	if err := d.record(actx, m, id, dl, rec, ep); err != nil {
		return nil, fmt.Errorf("webhooks: record attempt %d of %s: %w", rec.Attempt, id, err)
	}
	d.logAttempt(s, rec)
	return rec.NextAttemptAt, nil
}

// send makes one attempt to t, bounded by SendTimeout. ctx lasts
// StopGrace past the dispatcher's stop (jobs.Config.StopGrace); when it
// ends (or the lease is lost) before an answer arrived, the request is
// cancelled and the attempt abandoned (errAbandoned).
func (d *Dispatcher) send(ctx context.Context, dl delivery.Scheduled, t target, number int) (webhook.Result, error) {
	sendCtx, cancel := context.WithTimeout(ctx, d.cfg.SendTimeout)
	defer cancel()
	res := d.sender.Send(sendCtx, webhook.Delivery{ID: dl.DeliveryID, URL: t.url, Secret: t.secret, Previous: t.previous,
		EventType: dl.Event, WorkflowID: dl.WorkflowID, Body: []byte(dl.Body), Attempt: number})
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

// target is where and with what an attempt is made.
type target struct {
	url, secret, previous string
	// endpoint is the workspace endpoint, nil for a workflow's webhook
	endpoint *hook.Endpoint
}

// target returns the URL and secrets of an attempt of s made at now: a
// workflow webhook's from its registration, a workspace endpoint's from
// the endpoint as it is now (its URL, and both secrets during a
// rotation's overlap).
func (d *Dispatcher) target(ctx context.Context, s delivery.Scheduled, now time.Time) (target, error) {
	if s.EndpointID == "" {
		secret, err := d.secret(ctx, s)
		return target{url: s.URL, secret: secret}, err
	}
	ep, err := d.repos.Endpoints.Get(ctx, s.EndpointID)
	switch {
	case errors.Is(err, hook.ErrNotFound):
		return target{}, fmt.Errorf("%w: %s was deleted", errEndpointOff, s.EndpointID)
	case err != nil:
		return target{}, err
	case ep.OrgID() != s.OrgID:
		return target{}, fmt.Errorf("%w: endpoint %s is not the organization's", errSecretUnavailable, s.EndpointID)
	case !ep.Settings().Active:
		return target{}, fmt.Errorf("%w: %s is disabled", errEndpointOff, s.EndpointID)
	}
	t := target{url: ep.Settings().URL, endpoint: ep}
	for i, sealed := range ep.Secrets(now) {
		plain, err := d.box.Open(sealed)
		if err != nil {
			return target{}, fmt.Errorf("%w: %w", errSecretUnavailable, err)
		}
		if i == 0 {
			t.secret = string(plain)
		} else {
			t.previous = string(plain)
		}
	}
	return t, nil
}

// record appends the attempt rec of delivery id (folded as dl) and, for a
// workspace endpoint ep whose run of failures it changes, what it tells
// the endpoint, in one transaction. An attempt that changes no endpoint
// is a single append, which concurrent attempts share a commit with
// (Store.Append groups them). A version conflict on the delivery means
// another dispatcher recorded this attempt.
func (d *Dispatcher) record(ctx context.Context, m event.Metadata, id string, dl *delivery.Delivery, rec delivery.Attempted, ep *hook.Endpoint) error {
	if !endpointChanges(ep, rec) {
		_, err := d.repos.Store.Append(ctx, delivery.Stream(id), dl.Version(), event.New{Data: rec, Metadata: m})
		return err
	}
	var off *hook.Disabled
	_, err := d.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: m}, func(tx *eventstore.Tx) error {
		if _, err := d.repos.Deliveries.Save(tx, id, dl, rec); err != nil {
			if d.repos.Deliveries.Conflict(err, id) {
				return errRecorded // another dispatcher recorded this attempt
			}
			return err
		}
		var err error
		off, err = d.endpointOutcome(tx, ep, id, rec)
		return err
	})
	if err == nil && off != nil {
		d.log.Warn("workspace webhook disabled after failed deliveries", "webhook_id", off.EndpointID,
			"workspace_id", off.WorkspaceID, "failures", off.Failures)
	}
	return err
}

// endpointChanges reports whether an attempt to endpoint ep (nil when none
// was made to one) that ended as rec changes its run of failures: a
// delivery that gave up, or one that arrived after failures.
func endpointChanges(ep *hook.Endpoint, rec delivery.Attempted) bool {
	return ep != nil && (rec.GaveUp || (rec.Delivered && ep.Failures() > 0))
}

// endpointOutcome records, in tx, what an attempt to endpoint ep (nil
// when none was made to one) that ended as rec tells it: a delivery that
// gave up counts in its run of failures (and may disable it: the
// disabling is returned), one that arrived ends the run.
func (d *Dispatcher) endpointOutcome(tx *eventstore.Tx, ep *hook.Endpoint, deliveryID string, rec delivery.Attempted) (*hook.Disabled, error) {
	if !endpointChanges(ep, rec) {
		return nil, nil
	}
	cur, err := d.repos.Endpoints.Load(tx, ep.ID())
	if errors.Is(err, hook.ErrNotFound) {
		return nil, nil // deleted meanwhile
	}
	if err != nil {
		return nil, err
	}
	data := cur.Delivered(deliveryID)
	var off *hook.Disabled
	if !rec.Delivered {
		data = cur.GaveUp(deliveryID, d.cfg.DisableAfter)
		for _, e := range data {
			if e, ok := e.(hook.Disabled); ok {
				off = &e
			}
		}
	}
	_, err = d.repos.Endpoints.Save(tx, cur.ID(), cur, data...)
	return off, err
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
