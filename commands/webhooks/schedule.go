package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"svc/domain"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// handleTimeout bounds the database work of one message.
const handleTimeout = 10 * time.Second

// workflowPrefix starts the stream id of every workflow.
var workflowPrefix = workflow.Stream("")

// consume runs Handle on each message of msgs, acking it on success and
// nacking it (the subscriber redelivers it) on a transient failure.
func (d *Dispatcher) consume(msgs <-chan *message.Message) {
	for msg := range msgs {
		if err := d.Handle(msg); err != nil {
			if msg.Context().Err() == nil {
				d.log.Warn("scheduling a webhook delivery failed; retrying", "event_id", msg.UUID,
					"stream_id", msg.Metadata.Get("stream_id"), "error", err)
			}
			msg.Nack()
			continue
		}
		msg.Ack()
	}
}

// Handle is the watermill handler of the events topic: for a deliverable
// event of a workflow queued with delivery method webhook it appends
// WebhookDeliveryScheduled to a new delivery stream and tells the sender
// loop. Every other message, a redelivered one included, is accepted
// without effect. An error means the message should be redelivered; an
// event that cannot be read is logged and skipped, since redelivering it
// would block the subscription for good.
func (d *Dispatcher) Handle(msg *message.Message) error {
	stream := msg.Metadata.Get("stream_id")
	if !delivery.Delivers(msg.Metadata.Get("type")) || !strings.HasPrefix(stream, workflowPrefix) {
		return nil
	}
	version, err := strconv.ParseInt(msg.Metadata.Get("version"), 10, 64)
	if err != nil {
		d.log.Error("webhook scheduling: message without a version; skipped", "event_id", msg.UUID, "stream_id", stream)
		return nil
	}
	ctx, cancel := context.WithTimeout(msg.Context(), handleTimeout)
	defer cancel()
	s, err := d.schedule(ctx, stream, version, msg.UUID)
	switch {
	case errors.Is(err, errSkip):
		d.log.Error("webhook scheduling: event skipped", "event_id", msg.UUID, "stream_id", stream, "error", err)
		return nil
	case errors.Is(err, event.ErrConcurrency):
		d.log.Debug("webhook delivery already scheduled", "event_id", msg.UUID, "delivery_id", s.DeliveryID)
		return nil
	case err != nil:
		return err
	case s.DeliveryID != "":
		d.log.Debug("webhook delivery scheduled", "delivery_id", s.DeliveryID, "workflow_id", s.WorkflowID, "event", s.Event)
		d.Kick(s.DeliveryID)
	}
	return nil
}

// wantsWebhook reports whether the workflow of stream was queued for
// webhook delivery. It reads only the stream's first two events (planned,
// queued) and remembers the answer, since a delivery method never changes:
// most workflows poll or stream, and their step events must cost the
// handler, which holds back every reader while it runs, next to nothing.
func (d *Dispatcher) wantsWebhook(ctx context.Context, stream string) (bool, error) {
	d.methodsMu.Lock()
	want, known := d.methods[stream]
	d.methodsMu.Unlock()
	if known {
		return want, nil
	}
	head, err := eventstore.ReadRange(ctx, d.store.Pool(), stream, 0, 1)
	if err != nil {
		return false, err
	}
	wf, err := workflow.Load(head)
	if errors.Is(err, workflow.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: %w", errSkip, err)
	}
	want = delivery.Wants(wf) // not queued yet: nothing of it is delivered
	if wf.Queued() == nil {
		return false, nil
	}
	d.methodsMu.Lock()
	if len(d.methods) >= maxMethods {
		clear(d.methods)
	}
	d.methods[stream] = want
	d.methodsMu.Unlock()
	return want, nil
}

// maxMethods bounds the memory of wantsWebhook.
const maxMethods = 100_000

// errSkip marks events that can never be scheduled (unreadable data).
var errSkip = errors.New("unreadable workflow event")

// schedule appends the delivery of the event at version of stream, if its
// workflow wants webhooks. A zero Scheduled and nil mean nothing to do.
func (d *Dispatcher) schedule(ctx context.Context, stream string, version int64, eventID string) (delivery.Scheduled, error) {
	if want, err := d.wantsWebhook(ctx, stream); err != nil || !want {
		return delivery.Scheduled{}, err
	}
	// the workflow as it stood at the event: no later event is read
	events, err := eventstore.ReadRange(ctx, d.store.Pool(), stream, 0, version)
	if err != nil {
		return delivery.Scheduled{}, err
	}
	if version < 0 || version >= int64(len(events)) || events[version].ID.String() != eventID {
		return delivery.Scheduled{}, fmt.Errorf("%w: event %s is not version %d of %s", errSkip, eventID, version, stream)
	}
	src := events[version]
	wf, err := workflow.Load(events[:version+1])
	if errors.Is(err, workflow.ErrNotFound) {
		return delivery.Scheduled{}, nil // not a workflow stream
	}
	if err != nil {
		return delivery.Scheduled{}, fmt.Errorf("%w: %w", errSkip, err)
	}
	data, err := registry.Decode(src)
	if err != nil {
		return delivery.Scheduled{}, fmt.Errorf("%w: %w", errSkip, err)
	}
	typ, ok := delivery.TypeOf(data)
	if !ok {
		return delivery.Scheduled{}, nil
	}
	body, err := buildPayload(typ, delivery.ID(eventID, wf.Queued().Delivery.WebhookID), wf, src)
	if err != nil {
		return delivery.Scheduled{}, fmt.Errorf("%w: %w", errSkip, err)
	}
	s := delivery.Schedule(wf, eventID, typ, body, d.now())
	m := event.Metadata{OrgID: wf.OrgID(), Actor: "system", CorrelationID: wf.ID(), CausationID: eventID}
	_, err = d.store.Append(ctx, delivery.Stream(s.DeliveryID), event.NewStream, event.New{Data: s, Metadata: m})
	return s, err
}

// registry decodes the workflow event a delivery is scheduled for.
var registry = domain.Events()
