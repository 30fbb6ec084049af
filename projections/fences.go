package projections

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/eventstore/event"
)

// Read fences (decision 230; migrations 0012) are read-your-writes for
// operations that answer from their own aggregates: instead of waiting
// for the read models after the write (Queries.WaitFor), the write leaves
// a fence for its caller, and the caller's next request, on any instance,
// waits for the read models it reads before it runs (AwaitFences).

// fenceMaxAge is how old a fence a reader still honours: past it the read
// models have applied it, or lag past any wait bound anyway.
const fenceMaxAge = 10 * time.Minute

// Fenced is the commands.Waiter of the operations that answer from their
// own aggregates and fence their writes (eventstore.Tx.Fence): the answer
// goes out as soon as the transaction commits, and the wait, if any,
// falls on the caller's next request (AwaitFences). A write that left no
// fence for the context's actor (event.Metadata) is waited for here, as
// Queries.WaitFor does.
type Fenced struct{ q *Queries }

// NewFenced returns the waiter over q.
func NewFenced(q *Queries) Fenced { return Fenced{q: q} }

// WaitFor implements commands.Waiter.
func (f Fenced) WaitFor(ctx context.Context, r *event.Receipt) {
	if caller := event.MetadataFrom(ctx).Actor; caller != "" && r.FencedFor(caller) {
		return
	}
	f.q.WaitFor(ctx, r)
}

// AwaitFences makes a request of caller reflect the caller's earlier
// writes (Fenced): it waits, bounded, until every read model fed by a
// fenced event type has applied the caller's last event of that type.
// reads narrows the wait to the event types whose read models the
// request reads; nil means every type, an empty list none. A lag past
// the bound is logged, and the request goes on.
func (q *Queries) AwaitFences(ctx context.Context, caller string, reads []string) {
	if q.runner == nil || caller == "" || (reads != nil && len(reads) == 0) {
		return
	}
	// a caller's concurrent requests (an agent's parallel checks) share one
	// read of its fences, never one that began before they arrived
	fences, err := q.fenceReads.Do(ctx, caller, func(ctx context.Context) ([]fence, error) { return q.readFences(ctx, caller) })
	if err != nil {
		if ctx.Err() == nil {
			q.log.WarnContext(ctx, "read fences unreadable", "error", err)
		}
		return
	}
	wait := map[string]event.Position{} // projection -> the furthest position it must reach
	for _, f := range fences {
		if reads != nil && !slices.Contains(reads, f.eventType) {
			continue
		}
		for _, name := range q.runner.Feeding(f.eventType) {
			if w := wait[name]; f.pos.Reached(w) {
				wait[name] = f.pos
			}
		}
	}
	for name, pos := range wait {
		if q.runner.caughtUpTo(ctx, name, pos) {
			continue
		}
		if err := q.Wait(ctx, pos, name); err != nil && ctx.Err() == nil {
			q.log.WarnContext(ctx, "read model lagging behind a caller's write", "error", err, "projection", name)
		}
	}
}

// fence is one row of read_fences.
type fence struct {
	eventType string
	pos       event.Position
}

// readFences are caller's fences younger than fenceMaxAge.
func (q *Queries) readFences(ctx context.Context, caller string) ([]fence, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT event_type, transaction_id, position FROM read_fences
		WHERE caller = $1 AND updated_at > now() - make_interval(secs => $2)`, caller, fenceMaxAge.Seconds())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (fence, error) {
		var (
			f       fence
			tx, pos int64
		)
		err := r.Scan(&f.eventType, &tx, &pos)
		f.pos = event.Position{TransactionID: uint64(tx), Global: pos}
		return f, err
	})
}

// caughtUpTo reports whether projection name has applied pos: as this
// process last saw it, else as its checkpoint says (another instance may
// run it, or this process has just started).
func (r *Runner) caughtUpTo(ctx context.Context, name string, pos event.Position) bool {
	r.mu.Lock()
	here := r.reached[name].Reached(pos)
	r.mu.Unlock()
	if here {
		return true
	}
	cp, err := ActiveCheckpoint(ctx, r.store.Pool(), name)
	if err != nil || !cp.Position.Reached(pos) {
		return false
	}
	r.moved(name, cp.Position)
	return true
}
