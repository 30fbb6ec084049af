package projections

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Runner keeps projections up to date with the event log.
type Runner struct {
	store       *eventstore.Store
	log         *slog.Logger
	projections []Projection
	registry    *event.Registry
	reads       map[string]map[string]bool // projection name -> the event types it reads
	batch       int
	poll        time.Duration
	linger      time.Duration

	mu      sync.Mutex
	reached map[string]event.Position
	wanted  map[string]event.Position // the furthest position Wait waits for
	nudges  map[string]chan struct{}  // Wait wakes a follower: it may have to pass events it does not read
	changed chan struct{}             // closed and replaced whenever a checkpoint moves
}

// Option configures a Runner.
type Option func(*Runner)

// WithBatch sets how many events one transaction applies (default 1,000).
func WithBatch(n int) Option { return func(r *Runner) { r.batch = n } }

// WithRegistry sets the registry that decodes events (default: every
// event of the service, domain.Events).
func WithRegistry(reg *event.Registry) Option { return func(r *Runner) { r.registry = reg } }

// WithPoll sets how often a runner looks for events appended by other
// processes (default 200 ms); appends of its own process wake it at once,
// and so do other processes' while the store's Push runs: then 0, no
// poll, is the setting (the store's head check is the safety net).
func WithPoll(d time.Duration) Option { return func(r *Runner) { r.poll = d } }

// WithLinger makes a follower that finds more events waiting right after a
// step wait d before the next one (default 0: at once), so that under a
// steady stream of commits one transaction applies several of them
// instead of one each: fewer, larger steps, for at most d more lag. A
// follower whose read model a caller of Wait here waits for does not
// linger (a command's read-your-writes wait is not lengthened).
func WithLinger(d time.Duration) Option { return func(r *Runner) { r.linger = d } }

// ServeLinger is the linger `svc serve` runs its projections with
// (decision 273): under a steady stream of suite calls, a GuardRail
// check's group and the next few share each read model's transaction.
const ServeLinger = 5 * time.Millisecond

// NewRunner returns a runner for projections over store.
func NewRunner(store *eventstore.Store, log *slog.Logger, projections []Projection, opts ...Option) *Runner {
	r := &Runner{store: store, log: log, projections: projections, batch: 1000, poll: 200 * time.Millisecond,
		reached: map[string]event.Position{}, wanted: map[string]event.Position{}, changed: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	if r.registry == nil {
		r.registry = domain.Events()
	}
	r.reads = map[string]map[string]bool{}
	r.nudges = map[string]chan struct{}{}
	for _, p := range projections {
		r.nudges[p.Name()] = make(chan struct{}, 1)
		types := map[string]bool{}
		for _, t := range p.EventTypes() {
			types[t] = true
		}
		r.reads[p.Name()] = types
	}
	return r
}

// Projections returns the runner's projections.
func (r *Runner) Projections() []Projection { return r.projections }

// Find returns the projection called name.
func (r *Runner) Find(name string) (Projection, bool) {
	for _, p := range r.projections {
		if p.Name() == name {
			return p, true
		}
	}
	return nil, false
}

// Setup creates the first generation of every projection that has none.
func (r *Runner) Setup(ctx context.Context) error {
	for _, p := range r.projections {
		err := pgx.BeginFunc(ctx, r.store.Pool(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockID(p.Name())); err != nil {
				return err
			}
			var exists bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM projection_checkpoints WHERE name = $1 AND active)", p.Name()).Scan(&exists); err != nil {
				return err
			}
			if exists {
				return nil
			}
			if err := createTables(ctx, tx, p, 1); err != nil {
				return err
			}
			if err := pointViews(ctx, tx, p, 1); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO projection_checkpoints (name, generation, active, schema_version) VALUES ($1, 1, true, $2)", p.Name(), schemaVersion(p))
			return err
		})
		if err != nil {
			return fmt.Errorf("set up projection %s: %w", p.Name(), err)
		}
	}
	return nil
}

// Upgrade rebuilds every projection whose live generation was built by an
// older schema version of its tables (see Versioned), before Run starts.
func (r *Runner) Upgrade(ctx context.Context) error {
	for _, p := range r.projections {
		cp, err := ActiveCheckpoint(ctx, r.store.Pool(), p.Name())
		if err != nil {
			return err
		}
		if cp.SchemaVersion >= schemaVersion(p) {
			continue
		}
		r.log.Info("projection schema changed: rebuilding", "projection", p.Name(), "from", cp.SchemaVersion, "to", schemaVersion(p))
		if _, err := r.Rebuild(ctx, p, nil); err != nil && !errors.Is(err, ErrRebuildRunning) {
			return err
		}
	}
	return nil
}

func lockID(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("projection:" + name))
	return int64(h.Sum64() & 0x7fffffffffffffff)
}

// Run applies events to every projection until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, p := range r.projections {
		// woken by this process's appends of the events p reads; the
		// poll covers other processes' appends and moves p's checkpoint
		// past events it does not read
		wake, stop := r.store.SubscribeTypes(p.EventTypes()...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer stop()
			r.follow(ctx, p, wake)
		}()
	}
	wg.Wait()
	return nil
}

func (r *Runner) follow(ctx context.Context, p Projection, wake <-chan struct{}) {
	var tick <-chan time.Time // nil without a poll: only wake-ups
	if r.poll > 0 {
		ticker := time.NewTicker(r.poll)
		defer ticker.Stop()
		tick = ticker.C
	}
	backoff := max(r.poll, 100*time.Millisecond)
	// hidden counts the steps in a row that found nothing after a wake-up:
	// the event that woke us is committed but still hidden behind an
	// older transaction that has not ended (the xmin rule), often another
	// projection's batch, whose commit signals nobody; look again soon
	// rather than at the next poll
	hidden := 0
	mode := lookHead // at the start: all the way to the head
	for {
		if hidden == 1 {
			mode = noLook // right after a wake-up: there is something
		}
		n, err := r.step(ctx, p, mode)
		mode = lookMine
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.log.Error("projection step failed", "projection", p.Name(), "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		case n > 0:
			backoff, hidden = max(r.poll, 100*time.Millisecond), 0
			select {
			case <-wake: // more came meanwhile: no need to look first
				mode = noLook
				// and more is coming: let it gather, unless a caller of
				// Wait here waits for this projection (then at once)
				if r.linger > 0 && !r.awaited(p.Name()) {
					select {
					case <-ctx.Done():
						return
					case <-r.nudges[p.Name()]:
					case <-time.After(r.linger):
					}
				}
			default:
				if n == r.batch { // a full batch: more is there
					mode = noLook
				}
			}
			continue
		case hidden > 0 && (hidden <= eventstore.QuickLooks || r.hiddenEvents(ctx)):
			// the quick looks; then every 100 ms while committed events
			// are still held back
			pause := 100 * time.Millisecond
			if hidden <= eventstore.QuickLooks {
				pause = eventstore.QuickLook(hidden)
			}
			hidden++
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-time.After(pause):
			}
			continue
		case hidden > 0:
			// nothing is held back now: what was hidden at the last step
			// may have become visible since; one more look, then wait
			hidden = 0
			continue
		}
		hidden = 0
		select {
		case <-ctx.Done():
			return
		case <-wake:
			hidden = 1
		case <-r.nudges[p.Name()]:
			hidden = 1
		case <-tick:
			mode = lookHead // past the events p does not read, too
		}
	}
}

// hiddenEvents (past the quick looks, eventstore.QuickLook) reports
// whether committed events are held back from
// readers by a transaction still running (the xmin rule): a wake-up that
// found nothing may be owed them. (False on error: the next wake-up
// or the store's head check comes anyway.)
func (r *Runner) hiddenEvents(ctx context.Context) bool {
	// the primary key, backwards from its end: one index entry at most
	var one int
	err := r.store.Pool().QueryRow(ctx, `SELECT 1 FROM events
		WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY transaction_id DESC LIMIT 1`).Scan(&one)
	return err == nil
}

// Step applies one batch to the active generation of p and returns how many
// events it applied (0 when there were none, or another runner holds p);
// when the batch was not full, p's checkpoint is at the head of the log.
func (r *Runner) Step(ctx context.Context, p Projection) (int, error) { return r.step(ctx, p, noLook) }

// look says what step checks, without a transaction, before it locks p's
// checkpoint: the lock makes a write transaction (a commit and a WAL
// flush) even when there is nothing to do.
type look int

const (
	// noLook: lock at once (a woken follower knows there is something).
	noLook look = iota
	// lookMine: lock if an event p reads follows the checkpoint, or a
	// caller of Wait here waits for a position past it.
	lookMine
	// lookHead: lock if any event follows the checkpoint (it moves past
	// the events p does not read too).
	lookHead
)

// step is Step after the look of mode.
func (r *Runner) step(ctx context.Context, p Projection, mode look) (int, error) {
	var (
		applied    int
		before, cp Checkpoint
		err        error
	)
	if mode != noLook {
		if empty, err := r.caughtUp(ctx, p, mode == lookHead); err != nil || empty {
			return 0, err
		}
	}
	// a read model is derived data: see applyBatch on synchronous_commit
	err = pgx.BeginTxFunc(ctx, r.store.Pool(), pgx.TxOptions{BeginQuery: eventstore.BeginAsync}, func(tx pgx.Tx) error {
		var (
			head        event.Position
			ok, hasHead bool
		)
		before, head, ok, hasHead, err = lockActiveWithHead(ctx, tx, p.Name())
		if err != nil || !ok {
			return err
		}
		cp = before
		if !hasHead {
			return nil
		}
		applied, cp, err = r.applyLive(ctx, tx, p, before, head)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("projection %s: %w", p.Name(), err)
	}
	if cp.Position != before.Position {
		r.moved(p.Name(), cp.Position)
	}
	if applied > 0 {
		// what reads the model (a worker's Find, the key cache) looks again,
		// in every process
		r.store.NotifyTypes(Moved(p.Name()))
	}
	return applied, nil
}

// caughtUp reports whether no event p reads (any event, with all),
// visible now, follows p's checkpoint, and no caller of Wait here waits for
// a position past it.
func (r *Runner) caughtUp(ctx context.Context, p Projection, all bool) (bool, error) {
	cur, err := ActiveCheckpoint(ctx, r.store.Pool(), p.Name())
	if err != nil {
		return false, nil // the locked step finds out
	}
	r.mu.Lock()
	wanted := r.wanted[p.Name()]
	r.mu.Unlock()
	if !cur.Position.Reached(wanted) {
		return false, nil // the locked step moves the checkpoint to the head
	}
	f := eventstore.Filter{Types: p.EventTypes()}
	if all {
		f = eventstore.Filter{}
	}
	next, err := r.store.ReadAll(ctx, r.store.Pool(), cur.Position, 1, f)
	if err != nil {
		return false, fmt.Errorf("projection %s: %w", p.Name(), err)
	}
	return len(next) == 0, nil
}

// applyLive is a live runner's batch: it reads only the events p reads,
// up to head (the visible head), applies them and saves the checkpoint, in tx:
// at the last event read when the batch is full, else at the head, so the
// checkpoint passes the events p does not read without reading them. It
// returns how many events it applied.
func (r *Runner) applyLive(ctx context.Context, tx pgx.Tx, p Projection, cp Checkpoint, head event.Position) (int, Checkpoint, error) {
	if cp.Position.Reached(head) {
		return 0, cp, nil
	}
	events, err := r.store.ReadAll(ctx, tx, cp.Position, r.batch, eventstore.Filter{Types: p.EventTypes(), Until: head})
	if err != nil {
		return 0, cp, err
	}
	if len(events) > 0 {
		selected, err := r.selectFor(p, events)
		if err != nil {
			return 0, cp, err
		}
		if err := p.Apply(ctx, tx, Tables{generation: cp.Generation}, selected); err != nil {
			return 0, cp, err
		}
	}
	cp.Position = head
	if len(events) == r.batch {
		cp.Position = events[len(events)-1].Position
	}
	if err := saveCheckpoint(ctx, tx, cp, len(events)); err != nil {
		return 0, cp, err
	}
	return len(events), cp, nil
}

// applyBatch reads the events after cp, every type, applies those p reads
// to cp's generation and saves the new checkpoint, all in tx: a rebuild's
// batch, which stops at an event no aggregate registers (selectFor).
//
// The transaction commits without waiting for its WAL flush
// (synchronous_commit off): a read model is derived data, and since the
// model and its checkpoint share the transaction, a crash can only lose both
// together, and the runner applies those events again. Readers see the
// commit at once either way.
func (r *Runner) applyBatch(ctx context.Context, tx pgx.Tx, p Projection, cp Checkpoint) (int, Checkpoint, error) {
	events, err := r.store.ReadAll(ctx, tx, cp.Position, r.batch, eventstore.Filter{})
	if err != nil || len(events) == 0 {
		return 0, cp, err
	}
	if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit TO off"); err != nil {
		return 0, cp, err
	}
	selected, err := r.selectFor(p, events)
	if err != nil {
		return 0, cp, err
	}
	if len(selected) > 0 {
		if err := p.Apply(ctx, tx, Tables{generation: cp.Generation}, selected); err != nil {
			return 0, cp, err
		}
	}
	cp.Position = events[len(events)-1].Position
	if err := saveCheckpoint(ctx, tx, cp, len(events)); err != nil {
		return 0, cp, err
	}
	return len(events), cp, nil
}

// Moved is the pseudo event type a store's subscribers (SubscribeTypes)
// are signalled with, in every process while the store's Push runs, after
// projection name applied events to its live read model.
func Moved(name string) string { return "projection:" + name }

// selectFor returns the events of a batch p reads, decoded. A stored event
// of a type no aggregate registers, or whose data does not decode, stops
// the projection with an error naming its position: the log is never
// silently skipped.
func (r *Runner) selectFor(p Projection, events []event.Event) ([]event.Event, error) {
	reads := r.reads[p.Name()]
	out := make([]event.Event, 0, len(events))
	for _, e := range events {
		if !reads[e.Type] {
			if !r.registry.Known(e.Type) {
				_, err := r.registry.Decode(e) // the error names the event
				return nil, err
			}
			continue
		}
		d, err := r.registry.Decode(e)
		if err != nil {
			return nil, err
		}
		e.Payload = d
		out = append(out, e)
	}
	return out, nil
}

// CatchUp steps p until no event is left: its checkpoint is at the head.
func (r *Runner) CatchUp(ctx context.Context, p Projection) error {
	for {
		n, err := r.Step(ctx, p)
		if err != nil || n == 0 {
			return err
		}
	}
}

func (r *Runner) moved(name string, pos event.Position) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev := r.reached[name]; pos.Reached(prev) {
		r.reached[name] = pos
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// awaited reports whether a caller of Wait here waits for projection name
// to reach a position it has not reached.
func (r *Runner) awaited(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.reached[name].Reached(r.wanted[name])
}

// ErrWaitTimeout means a projection did not reach a position in time.
var ErrWaitTimeout = errors.New("projection did not catch up in time")

// Feeding lists the projections that read any of types, in the runner's
// order.
func (r *Runner) Feeding(types ...string) []string {
	var out []string
	for _, p := range r.projections {
		for _, t := range types {
			if r.reads[p.Name()][t] {
				out = append(out, p.Name())
				break
			}
		}
	}
	return out
}

// Wait blocks until each named projection (every one when none is named) has
// applied the event at pos, or ctx ends. Commands use it so that an HTTP
// response reflects the command's own events.
func (r *Runner) Wait(ctx context.Context, pos event.Position, names ...string) error {
	if pos.IsZero() {
		return nil
	}
	if len(names) == 0 {
		for _, p := range r.projections {
			names = append(names, p.Name())
		}
	}
	r.mu.Lock()
	for _, n := range names {
		if pos.Reached(r.wanted[n]) {
			r.wanted[n] = pos
		}
		if !r.reached[n].Reached(pos) {
			select { // its follower here looks, and passes what it does not read
			case r.nudges[n] <- struct{}{}:
			default:
			}
		}
	}
	r.mu.Unlock()
	// another process may run the projection: its announcement (Moved)
	// or the poll sends us to its checkpoint
	types := make([]string, len(names))
	for i, n := range names {
		types[i] = Moved(n)
	}
	elsewhere, stop := r.store.SubscribeTypes(types...)
	defer stop()
	poll := time.NewTicker(25 * time.Millisecond)
	defer poll.Stop()
	for {
		r.mu.Lock()
		pending := names[:0:0]
		for _, n := range names {
			if !r.reached[n].Reached(pos) {
				pending = append(pending, n)
			}
		}
		changed := r.changed
		r.mu.Unlock()
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrWaitTimeout, pending)
		case <-changed:
			continue
		case <-elsewhere:
		case <-poll.C:
		}
		for _, n := range pending {
			r.mu.Lock()
			here := r.reached[n].Reached(pos) // this process's runner moved it (its Moved woke us too)
			r.mu.Unlock()
			if here {
				continue
			}
			cp, err := ActiveCheckpoint(ctx, r.store.Pool(), n)
			if err == nil && cp.Position.Reached(pos) {
				r.moved(n, cp.Position)
				continue
			}
			// still behind: nudge its follower here again (a lingering
			// follower may have taken the first nudge and then found
			// nothing new to step on before the events it waits for)
			select {
			case r.nudges[n] <- struct{}{}:
			default:
			}
		}
	}
}
