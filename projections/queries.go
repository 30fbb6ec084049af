package projections

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// DefaultWaitBound is how long Queries.Wait waits for the read models by
// default.
const DefaultWaitBound = 3 * time.Second

// Queries are the reads the API makes: one method per question, over the
// read models, the event store (a workflow the projection has not reached
// yet) and the runner (read-your-writes). They also give plans their cost
// history (commands.CostHistory).
type Queries struct {
	store     *eventstore.Store
	workflows *eventstore.Repository[*workflow.Workflow]
	runner    *Runner
	costs     sync.Map // task type -> cachedCost
	log       *slog.Logger
	bound     time.Duration
	// principalHooks run when a command fed a principal read model
	// (OnPrincipalsWritten).
	principalHooks []func()
	// fenceReads share the reads of a caller's read fences among its
	// concurrent requests (AwaitFences)
	fenceReads Waves[string, []fence]
}

// QueriesOption configures Queries.
type QueriesOption func(*Queries)

// WithWaitBound bounds Wait by d instead of DefaultWaitBound.
func WithWaitBound(d time.Duration) QueriesOption {
	return func(q *Queries) {
		if d > 0 {
			q.bound = d
		}
	}
}

// NewQueries returns the queries over store; workflows is the workflow
// repository (commands.Repositories) that folds a workflow the read model
// has not reached; runner is the process's projection runner, whose
// progress Wait follows (nil: Wait returns at once). log receives reads
// that failed but did not fail the caller.
func NewQueries(store *eventstore.Store, workflows *eventstore.Repository[*workflow.Workflow], runner *Runner, log *slog.Logger, opts ...QueriesOption) *Queries {
	if store == nil || workflows == nil || log == nil {
		panic("projections: nil queries dependency")
	}
	q := &Queries{store: store, workflows: workflows, runner: runner, log: log, bound: DefaultWaitBound}
	for _, o := range opts {
		o(q)
	}
	return q
}

// Ping checks that the database answers.
func (q *Queries) Ping(ctx context.Context) error { return q.store.Pool().Ping(ctx) }

// Wait makes a read reflect a command's events: it waits until the named
// projections have applied pos, at most the wait bound; past it the error
// wraps ErrWaitTimeout (the read may then be stale).
func (q *Queries) Wait(ctx context.Context, pos event.Position, names ...string) error {
	if q.runner == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, q.bound)
	defer cancel()
	return q.runner.Wait(ctx, pos, names...)
}

// WaitFor makes a caller's next reads reflect what it wrote: it waits,
// bounded, until every projection that reads any event type on the
// receipt has applied the receipt's last event. A lag past the bound is
// logged, not returned: the write itself succeeded.
func (q *Queries) WaitFor(ctx context.Context, r *event.Receipt) {
	if q.runner == nil || r == nil || r.Last().IsZero() {
		return
	}
	names := q.runner.Feeding(r.Types()...)
	if len(names) == 0 {
		return
	}
	if err := q.Wait(ctx, r.Last(), names...); err != nil && ctx.Err() == nil {
		q.log.WarnContext(ctx, "read model lagging behind a command", "error", err, "projections", names)
	}
	q.principalsWritten(names)
}

// Balance is the balance of orgID: the spendable balance (Balance) and what
// its runs hold in reservation (Reserved); ErrNotFound before its first
// grant is projected.
func (q *Queries) Balance(ctx context.Context, orgID string) (BalanceRow, error) {
	return Balance(ctx, q.store.Pool(), orgID)
}

// Principal is the API key whose hash is hash; ErrNotFound for none.
func (q *Queries) Principal(ctx context.Context, hash string) (Principal, error) {
	return PrincipalByHash(ctx, q.store.Pool(), hash)
}

// Workflow is the Workflow resource of workflow id of orgID: the read
// model's, or, while the projection has not caught up with the
// workflow's stream, the stream folded (so a client reads its own
// writes). An unknown id, or another organization's, is
// workflow.ErrNotFound.
func (q *Queries) Workflow(ctx context.Context, orgID, id string) (workflow.View, error) {
	if !workflow.ValidID(id) {
		return workflow.View{}, workflow.ErrNotFound
	}
	row, err := Workflow(ctx, q.store.Pool(), orgID, id)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return workflow.View{}, err
	case row.Head <= row.Version: // the stream's head, read with the row
		return row.View, nil
	}
	wf, err := q.workflows.GetOwned(ctx, orgID, id)
	if err != nil {
		return workflow.View{}, err
	}
	return wf.View(true), nil
}

// WorkflowEvents are the events of workflow id's stream after version
// after (event.NewStream: from the start), oldest first.
func (q *Queries) WorkflowEvents(ctx context.Context, id string, after int64) ([]event.Event, error) {
	return q.store.LoadFrom(ctx, q.store.Pool(), workflow.Stream(id), after+1)
}

// Workflows is a page of the listing under f.
func (q *Queries) Workflows(ctx context.Context, f WorkflowFilter) (WorkflowPage, error) {
	return ListWorkflows(ctx, q.store.Pool(), f)
}

// Lineage is the chain that ends at workflow id of orgID, walked back
// through prior_workflow_id and answered oldest first: from the read model
// in one query, a link it has not caught up with from its stream. Errors:
// workflow.ErrNotFound, workflow.ErrChainDepth.
func (q *Queries) Lineage(ctx context.Context, orgID, id string) ([]workflow.View, error) {
	known, err := Chain(ctx, q.store.Pool(), orgID, id, workflow.MaxChainDepth+1)
	if err != nil {
		return nil, err
	}
	return workflow.Lineage(id, func(id string) (workflow.View, error) {
		if v, ok := known[id]; ok {
			return v, nil
		}
		return q.Workflow(ctx, orgID, id)
	})
}

// Deliveries is the webhook delivery log of workflow workflowID of orgID,
// never nil.
func (q *Queries) Deliveries(ctx context.Context, orgID, workflowID string) ([]DeliveryRow, error) {
	rows, err := Deliveries(ctx, q.store.Pool(), orgID, workflowID)
	if rows == nil && err == nil {
		rows = []DeliveryRow{}
	}
	return rows, err
}

// UsageCells are orgID's usage cells of [from, to) by buckets of unit.
func (q *Queries) UsageCells(ctx context.Context, orgID string, from, to time.Time, unit string) ([]UsageCell, error) {
	return UsageCells(ctx, q.store.Pool(), orgID, from, to, unit)
}

// UsageNames are the display names of orgID's keys and workspaces, by id.
func (q *Queries) UsageNames(ctx context.Context, orgID string) (keys, workspaces map[string]string, err error) {
	return UsageNames(ctx, q.store.Pool(), orgID)
}

// TaskCost is the observed cost range of taskType's completed runs; ok is
// false without history.
func (q *Queries) TaskCost(ctx context.Context, taskType string) (CostRatio, bool, error) {
	return TaskCost(ctx, q.store.Pool(), taskType)
}

// CostRatio is TaskCost as plans read it (commands.CostHistory); a failed
// read is logged and answered as no history by the planner.
//
// Every plan asks for its task type's range (and its alternatives'), and a
// range moves only when a run of that type completes: answers are kept for
// costTTL, so a burst of plans reads each type once.
func (q *Queries) CostRatio(ctx context.Context, taskType string) (minRatio, maxRatio float64, ok bool, err error) {
	if e, hit := q.costs.Load(taskType); hit {
		if c := e.(cachedCost); time.Since(c.at) < costTTL {
			return c.ratio.Min, c.ratio.Max, c.ok, nil
		}
	}
	c, ok, err := q.TaskCost(ctx, taskType)
	if err != nil {
		q.log.WarnContext(ctx, "cost history unavailable", "error", err)
		return c.Min, c.Max, ok, err
	}
	q.costs.Store(taskType, cachedCost{ratio: c, ok: ok, at: time.Now()})
	return c.Min, c.Max, ok, nil
}

// costTTL is how long a task type's cost range is reused.
const costTTL = 2 * time.Second

// cachedCost is a task type's cost range as read at.
type cachedCost struct {
	ratio CostRatio
	ok    bool
	at    time.Time
}
