package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/delivery"
	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// FanoutGroup names the fan-out's place in the log: its row of
// watermill_offsets_events, the table where each reader of the events
// topic keeps its offset (migration 0003).
const FanoutGroup = "webhook_endpoints"

// fanoutBatch bounds the events one fan-out transaction reads.
const fanoutBatch = 500

// fanout schedules the deliveries of workflow events to the workspace
// webhook endpoints (spec B) subscribed to them. It reads the log in
// global order from its own offset and, in one transaction per batch,
// appends a WebhookDeliveryScheduled per delivery and moves the offset:
// each event is decided once, by whichever instance holds the offset's
// row lock, and a crash loses or repeats nothing. Which endpoints an
// event goes to is decided as of the event's place in the log: the
// workspace's endpoints (the webhook_endpoints read model, which the
// fan-out never overtakes on an endpoint's events) folded from their own
// streams up to that place, so an endpoint created, changed or disabled
// after the event does not change who gets it. An endpoint deleted since
// gets nothing more. The sending is the dispatcher's, the same leased
// job as a workflow's own webhook deliveries.
type fanout struct {
	d     *Dispatcher
	group string
	// types are the event types read: the endpoint sources and the
	// endpoints' own events (to wait for their read model)
	types []string
	hooks map[string]bool
	// refs remembers each workflow's organization and workspace (its
	// WorkflowPlanned never changes)
	refs map[string]workflowRef
	// folds keeps, by stream, the workflows in flight folded up to their
	// last event sent to an endpoint: their next events fold from there
	folds map[string]*workflow.Workflow
}

// workflowRef is what the fan-out needs of a workflow's plan.
type workflowRef struct{ org, workspace string }

func newFanout(d *Dispatcher, group string) *fanout {
	f := &fanout{d: d, group: group, hooks: map[string]bool{}, refs: map[string]workflowRef{}, folds: map[string]*workflow.Workflow{}}
	f.types = delivery.EndpointSourceTypes()
	for _, t := range (projections.WebhookEndpoints{}).EventTypes() {
		f.hooks[t] = true
		f.types = append(f.types, t)
	}
	return f
}

// run follows the log until ctx ends. The group's first start (a
// deployment upgrading, or a new database) begins at the log's head: what
// happened before is not delivered.
func (f *fanout) run(ctx context.Context) {
	log := f.d.log.With("reader", f.group)
	for {
		head, started, err := eventstore.StartAtHead(ctx, f.d.store.Pool(), f.group)
		if err == nil {
			if started {
				log.Info("webhook fan-out starts at the head of the log", "transaction_id", head.TransactionID, "position", head.Global)
			}
			break
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("webhook fan-out start", "error", err)
		if !sleep(ctx, time.Second) {
			return
		}
	}
	var wake <-chan struct{}
	if f.d.cfg.Push {
		w, stop := f.d.store.SubscribeTypes(append(f.types, projections.Moved(projections.WebhookEndpoints{}.Name()))...)
		defer stop()
		wake = w
	}
	ticker := time.NewTicker(f.d.cfg.Poll)
	defer ticker.Stop()
	backoff := 100 * time.Millisecond
	// hidden counts looks in a row that found nothing after a wake-up: the
	// event that woke us may be committed but still hidden behind an older
	// transaction (the xmin rule); look again soon, as the projection
	// runners do
	hidden := 0
	look := false // a poll: step only if anything follows the offset
	for {
		moved, blocked, err := f.step(ctx, look)
		look = false
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("webhook fan-out", "error", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		case moved:
			backoff, hidden = 100*time.Millisecond, 0
			continue
		case hidden > 0 && hidden <= eventstore.QuickLooks && !blocked:
			pause := eventstore.QuickLook(hidden)
			hidden++
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-time.After(pause):
			}
			continue
		}
		hidden = 0
		select {
		case <-ctx.Done():
			return
		case <-wake:
			hidden = 1
		case <-ticker.C:
			look = true
		}
	}
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// offsetSQL locks the group's offset; another instance holding it is
// skipped (it is fanning out).
const offsetSQL = `SELECT coalesce(offset_acked, 0), last_processed_transaction_id::text FROM watermill_offsets_events
	WHERE consumer_group = $1 FOR UPDATE SKIP LOCKED`

// anyAfterSQL tells whether any readable event follows the group's
// offset (one index entry), before a poll takes the lock.
const anyAfterSQL = `SELECT EXISTS (SELECT 1 FROM events e, watermill_offsets_events o
	WHERE o.consumer_group = $1 AND (e.transaction_id, e.position) > (o.last_processed_transaction_id, coalesce(o.offset_acked, 0))
	AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot()))`

// step fans out one batch: the events of its types after the offset, up
// to the head of the log, and moves the offset past them (to the head
// when the batch was not full), in one transaction. moved reports that
// the offset moved; blocked that it stopped before an endpoint event the
// endpoints' read model has not applied yet (a wake-up follows once it
// has). With look, it first checks that anything follows the offset.
func (f *fanout) step(ctx context.Context, look bool) (moved, blocked bool, err error) {
	if look {
		var found bool
		if err := f.d.store.Pool().QueryRow(ctx, anyAfterSQL, f.group).Scan(&found); err != nil || !found {
			return false, false, err
		}
	}
	var scheduled []delivery.Scheduled
	_, err = f.d.store.Run(ctx, eventstore.TxOptions{Attempts: 1, Metadata: event.Metadata{Actor: "system"}}, func(tx *eventstore.Tx) error {
		moved, blocked, scheduled = false, false, nil
		db := tx.DB()
		var (
			off    event.Position
			txText string
		)
		err := db.QueryRow(ctx, offsetSQL, f.group).Scan(&off.Global, &txText)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // another instance holds it
		}
		if err != nil {
			return fmt.Errorf("fan-out offset: %w", err)
		}
		if off.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
			return fmt.Errorf("fan-out offset %q: %w", txText, err)
		}
		head, ok, err := eventstore.Head(ctx, db)
		if err != nil || !ok || off.Reached(head) {
			return err
		}
		events, err := f.d.store.ReadAll(ctx, db, off, fanoutBatch, eventstore.Filter{Types: f.types, Until: head})
		if err != nil {
			return err
		}
		end := head
		if len(events) == fanoutBatch {
			end = events[len(events)-1].Position
		}
		work := events
		var applied *event.Position // the endpoints read model's checkpoint, read once
		for i, e := range events {
			if !f.hooks[e.Type] {
				continue
			}
			if applied == nil {
				cp, err := projections.ActiveCheckpoint(ctx, db, projections.WebhookEndpoints{}.Name())
				if err != nil {
					return err
				}
				applied = &cp.Position
			}
			if applied.Reached(e.Position) {
				continue
			}
			// the read model has not applied this endpoint event: stop
			// before it, and wait
			blocked, work, end = true, events[:i], off
			if i > 0 {
				end = events[i-1].Position
			}
			break
		}
		if scheduled, err = f.decide(ctx, tx, work); err != nil {
			return err
		}
		if end == off {
			return nil
		}
		moved = true
		_, err = db.Exec(ctx, `UPDATE watermill_offsets_events SET offset_acked = $2, last_processed_transaction_id = $3::text::xid8
			WHERE consumer_group = $1`, f.group, end.Global, strconv.FormatUint(end.TransactionID, 10))
		return err
	})
	if err != nil {
		return false, false, fmt.Errorf("webhooks: fan-out: %w", err)
	}
	for _, s := range scheduled {
		f.d.log.Debug("webhook endpoint delivery scheduled", "delivery_id", s.DeliveryID, "webhook_id", s.EndpointID,
			"workflow_id", s.WorkflowID, "event", s.Event)
		f.d.Kick(s.DeliveryID)
	}
	return moved, blocked, nil
}

// candidate is an event of a batch that some endpoint may be sent.
type candidate struct {
	e    event.Event
	data event.Data
	typ  string
	ref  workflowRef
	to   []*hook.Endpoint
}

// decide appends, in tx, the deliveries of the workflow events of batch to
// the endpoints subscribed to them at each event's place in the log, and
// returns them. A delivery whose stream exists already is skipped.
func (f *fanout) decide(ctx context.Context, tx *eventstore.Tx, batch []event.Event) ([]delivery.Scheduled, error) {
	db := tx.DB()
	var cands []*candidate
	var workspaces []string
	seen := map[string]bool{}
	for _, e := range batch {
		if f.hooks[e.Type] {
			continue
		}
		data, err := registry.Decode(e)
		if err != nil {
			f.d.log.Error("webhook fan-out: event skipped", "event_id", e.ID, "stream_id", e.StreamID, "error", err)
			continue
		}
		typ, ok := delivery.EndpointTypeOf(data)
		if !ok {
			continue
		}
		ref, err := f.workflowRef(ctx, db, e.StreamID)
		if err != nil {
			return nil, err
		}
		if ref.workspace == "" || uuid.Validate(ref.workspace) != nil {
			continue
		}
		cands = append(cands, &candidate{e: e, data: data, typ: typ, ref: ref})
		if !seen[ref.workspace] {
			seen[ref.workspace] = true
			workspaces = append(workspaces, ref.workspace)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	endpoints, err := projections.WorkspaceEndpointIDs(ctx, db, workspaces)
	if err != nil || len(endpoints) == 0 {
		return nil, err
	}
	// each endpoint's history, read once per batch
	histories := map[string][]event.Event{}
	for _, c := range cands {
		for _, id := range endpoints[c.ref.workspace] {
			h, ok := histories[id]
			if !ok {
				if h, err = eventstore.ReadStream(ctx, db, hook.Stream(id), 0); err != nil {
					return nil, err
				}
				histories[id] = h
			}
			ep, err := endpointAt(h, c.e.Position)
			if err != nil {
				f.d.log.Error("webhook fan-out: endpoint unreadable", "webhook_id", id, "error", err)
				continue
			}
			if ep.Subscribed(c.typ) && ep.WorkspaceID() == c.ref.workspace && ep.OrgID() == c.ref.org {
				c.to = append(c.to, ep)
			}
		}
	}
	out, err := f.render(ctx, db, cands)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	exists, err := existingStreams(ctx, db, out)
	if err != nil {
		return nil, err
	}
	var (
		saved  []delivery.Scheduled
		starts []eventstore.StreamStart
	)
	for _, s := range out {
		if exists[delivery.Stream(s.DeliveryID)] {
			continue
		}
		m := event.Metadata{OrgID: s.OrgID, Actor: "system", CorrelationID: s.WorkflowID, CausationID: s.SourceEventID}
		starts = append(starts, eventstore.StreamStart{Stream: delivery.Stream(s.DeliveryID), Events: []event.New{{Data: s, Metadata: m}}})
		saved = append(saved, s)
	}
	// one statement for the batch's deliveries
	if err := tx.AppendNew(starts...); err != nil {
		return nil, err
	}
	return saved, nil
}

// endpointAt folds an endpoint's history up to position at.
func endpointAt(history []event.Event, at event.Position) (*hook.Endpoint, error) {
	ep := hook.New()
	for _, e := range history {
		if !at.Reached(e.Position) {
			break
		}
		if err := ep.Apply(e); err != nil {
			return nil, err
		}
	}
	return ep, nil
}

// render renders every delivery's body at its event: each workflow of
// cands folded once, from where the fan-out's fold of it stood (the
// events after it read for all the batch's workflows in one statement),
// up to its last candidate.
func (f *fanout) render(ctx context.Context, db pgx.Tx, cands []*candidate) ([]delivery.Scheduled, error) {
	byStream := map[string][]*candidate{}
	var order []string
	for _, c := range cands {
		if len(c.to) == 0 {
			continue
		}
		if _, ok := byStream[c.e.StreamID]; !ok {
			order = append(order, c.e.StreamID)
		}
		byStream[c.e.StreamID] = append(byStream[c.e.StreamID], c)
	}
	if len(order) == 0 {
		return nil, nil
	}
	ranges := make([]eventstore.StreamRange, len(order))
	for i, stream := range order {
		list := byStream[stream]
		from := int64(0)
		if wf, ok := f.folds[stream]; ok && wf.Version() < list[0].e.Version {
			from = wf.Version() + 1
		} else {
			delete(f.folds, stream) // none, or past this batch (a batch tried again)
		}
		ranges[i] = eventstore.StreamRange{Stream: stream, From: from, To: list[len(list)-1].e.Version}
	}
	events, err := eventstore.ReadRanges(ctx, db, ranges)
	if err != nil {
		return nil, err
	}
	byStreamEvents := map[string][]event.Event{}
	for _, e := range events {
		byStreamEvents[e.StreamID] = append(byStreamEvents[e.StreamID], e)
	}
	now := f.d.now()
	var out []delivery.Scheduled
	for _, stream := range order {
		wf, ok := f.folds[stream]
		if !ok {
			wf = workflow.New()
		}
		delete(f.folds, stream)
		evs, next, broken := byStreamEvents[stream], 0, false
		for _, c := range byStream[stream] {
			for ; !broken && next < len(evs) && evs[next].Version <= c.e.Version; next++ {
				if err := wf.Apply(evs[next]); err != nil {
					f.d.log.Error("webhook fan-out: workflow unreadable; its events skipped", "stream_id", stream, "error", err)
					broken = true
				}
			}
			if broken || wf.Version() != c.e.Version || wf.ID() == "" {
				f.d.log.Error("webhook fan-out: workflow unreadable at its event; skipped", "stream_id", stream, "version", c.e.Version)
				continue
			}
			for _, ep := range c.to {
				id := delivery.EndpointDeliveryID(c.e.ID.String(), ep.ID())
				body, err := endpointPayload(c.typ, id, ep.ID(), ep.WorkspaceID(), wf, c.e, c.data)
				if err != nil {
					f.d.log.Error("webhook fan-out: payload", "stream_id", stream, "version", c.e.Version, "error", err)
					continue
				}
				out = append(out, delivery.ScheduleEndpoint(ep, c.ref.org, wf.ID(), c.e.ID.String(), c.typ, body, now))
			}
		}
		// kept for the workflow's next events, unless it ended (or is
		// unreadable); the fold is of committed events, whatever becomes
		// of this transaction
		if !broken && !wf.Ended() {
			if len(f.folds) >= maxFolds {
				clear(f.folds)
			}
			f.folds[stream] = wf
		}
	}
	return out, nil
}

// maxFolds bounds the workflows whose fold the fan-out keeps: those in
// flight whose events went to an endpoint lately.
const maxFolds = 2048

// existingStreams tells which of the deliveries' streams exist already.
func existingStreams(ctx context.Context, db pgx.Tx, out []delivery.Scheduled) (map[string]bool, error) {
	streams := make([]string, len(out))
	for i, s := range out {
		streams[i] = delivery.Stream(s.DeliveryID)
	}
	rows, err := db.Query(ctx, `SELECT stream_id FROM events WHERE stream_id = ANY($1) AND version = 0`, streams)
	if err != nil {
		return nil, fmt.Errorf("webhook fan-out: existing deliveries: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("webhook fan-out: existing deliveries: %w", err)
	}
	exists := make(map[string]bool, len(found))
	for _, s := range found {
		exists[s] = true
	}
	return exists, nil
}

// workflowRef is the organization and workspace of the workflow of
// stream, from its first event (remembered).
func (f *fanout) workflowRef(ctx context.Context, db pgx.Tx, stream string) (workflowRef, error) {
	if ref, ok := f.refs[stream]; ok {
		return ref, nil
	}
	head, err := eventstore.ReadRange(ctx, db, stream, 0, 0)
	if err != nil {
		return workflowRef{}, err
	}
	var ref workflowRef
	if len(head) == 1 && head[0].Type == workflow.EventPlanned {
		var p workflow.Planned
		if err := head[0].Decode(&p); err != nil {
			f.d.log.Error("webhook fan-out: unreadable plan", "stream_id", stream, "error", err)
		}
		ref = workflowRef{org: p.OrgID, workspace: p.WorkspaceID}
	}
	if len(f.refs) >= maxMethods {
		clear(f.refs)
	}
	f.refs[stream] = ref
	return ref, nil
}
