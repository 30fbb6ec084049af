package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
)

// ExecuteWorkflow queues a workflow for the workers: a stored plan
// (WorkflowID) or a fresh one (Fresh, planned in the same transaction).
type ExecuteWorkflow struct {
	OrgID, KeyID string
	Tier         string
	WorkflowID   string
	Fresh        *workflow.Planned
	// Context is the body's context.additional_context; nil when omitted.
	Context  *string
	AgentID  string
	Language string
	Delivery workflow.Delivery
	// PriorWorkflowID chains the workflow off a terminal one (chain.go);
	// ContextFields names what it inherits (nil: the default fields).
	PriorWorkflowID string
	ContextFields   []string
	// Mode is full (default) or interactive.
	Mode string
}

// WorkflowQueued is the outcome of ExecuteWorkflow.
type WorkflowQueued struct {
	Planned workflow.Planned
	Queued  workflow.Queued
	// WebhookSecret is set when this execute registered the webhook URL.
	WebhookSecret string
	Position      eventstore.Position
}

// InsufficientCreditsError refuses a run the balance does not cover.
type InsufficientCreditsError struct{ Required, Balance int64 }

func (e *InsufficientCreditsError) Error() string {
	return fmt.Sprintf("insufficient credits: %d required, %d available", e.Required, e.Balance)
}

// Unwrap makes errors.Is(err, credit.ErrInsufficient) hold.
func (e *InsufficientCreditsError) Unwrap() error { return credit.ErrInsufficient }

// DuplicateTaskError names the workflow an identical task started.
type DuplicateTaskError struct{ ExistingID string }

func (e *DuplicateTaskError) Error() string { return "duplicate task of " + e.ExistingID }

// Unwrap makes errors.Is(err, workflow.ErrDuplicate) hold.
func (e *DuplicateTaskError) Unwrap() error { return workflow.ErrDuplicate }

// ConcurrentLimitError lists the active workflows at the limit.
type ConcurrentLimitError struct {
	Limit  int
	Active []string
}

func (e *ConcurrentLimitError) Error() string {
	return fmt.Sprintf("%d active workflows, limit %d", len(e.Active), e.Limit)
}

// Unwrap makes errors.Is(err, workflow.ErrConcurrentLimit) hold.
func (e *ConcurrentLimitError) Unwrap() error { return workflow.ErrConcurrentLimit }

// ErrForeignWorkflow is a stored workflow of another organization.
var ErrForeignWorkflow = errors.New("workflow belongs to another organization")

// Sealer encrypts secrets stored in events.
type Sealer interface {
	Seal(plaintext []byte) string
}

// ExecuteWorkflowHandler handles ExecuteWorkflow.
type ExecuteWorkflowHandler struct {
	store     *eventstore.Store
	sealer    Sealer
	newSecret func() string
	now       func() time.Time
}

// NewExecuteWorkflowHandler returns a handler appending to store; sealer
// encrypts webhook secrets made by newSecret.
func NewExecuteWorkflowHandler(store *eventstore.Store, sealer Sealer, newSecret func() string) ExecuteWorkflowHandler {
	if store == nil || sealer == nil || newSecret == nil {
		panic("nil dependency")
	}
	return ExecuteWorkflowHandler{store: store, sealer: sealer, newSecret: newSecret, now: time.Now}
}

// Handle checks the limits and appends, in one transaction: the plan (for
// a fresh execute), WorkflowQueued, the task's duplicate marker, the
// active slot, the free first run and the webhook registration.
func (h ExecuteWorkflowHandler) Handle(ctx context.Context, cmd ExecuteWorkflow) (WorkflowQueued, error) {
	var out WorkflowQueued
	err := eventstore.Retry(ctx, attempts, func() error {
		out = WorkflowQueued{}
		return h.store.Transact(ctx, func(tx pgx.Tx) error {
			var err error
			out, err = h.queue(ctx, tx, cmd)
			return err
		})
	})
	if err != nil {
		return WorkflowQueued{}, fmt.Errorf("execute workflow: %w", err)
	}
	return out, nil
}

func (h ExecuteWorkflowHandler) queue(ctx context.Context, tx pgx.Tx, cmd ExecuteWorkflow) (WorkflowQueued, error) {
	m := meta(ctx, cmd.OrgID)
	var (
		planned  workflow.Planned
		expected int64
		warnings []workflow.Warning
		extra    string
	)
	if cmd.Fresh != nil {
		planned, expected = *cmd.Fresh, eventstore.NewStream
		extra = planned.AdditionalContext
	} else {
		events, err := h.store.LoadFrom(ctx, tx, workflow.Stream(cmd.WorkflowID), 0)
		if err != nil {
			return WorkflowQueued{}, err
		}
		wf, err := workflow.Load(events)
		if err != nil {
			return WorkflowQueued{}, err
		}
		if wf.OrgID() != cmd.OrgID {
			return WorkflowQueued{}, ErrForeignWorkflow
		}
		if err := wf.CanQueue(); err != nil {
			return WorkflowQueued{}, err
		}
		planned, expected = wf.Planned(), wf.Version()
		extra, warnings = storedContext(planned, cmd.Context)
	}
	q := workflow.Queued{WorkflowID: planned.WorkflowID, OrgID: cmd.OrgID, KeyID: cmd.KeyID, AgentID: cmd.AgentID, Tier: cmd.Tier,
		Mode: cmp.Or(cmd.Mode, workflow.ModeFull), Language: cmd.Language, Delivery: cmd.Delivery, Estimated: planned.Credits, Context: extra, Warnings: warnings}
	if err := h.chain(ctx, tx, cmd, planned, &q); err != nil {
		return WorkflowQueued{}, err
	}
	q.Execution, q.ExecutionFallback = workflow.DecideExecution(planned, q)

	// duplicate task within the window
	taskStream := workflow.TaskStream(cmd.OrgID, planned.Description)
	last, seen, err := h.store.Last(ctx, tx, taskStream)
	if err != nil {
		return WorkflowQueued{}, err
	}
	if seen && h.now().Sub(last.RecordedAt) < workflow.DuplicateWindow {
		var d workflow.Submitted
		_ = last.Decode(&d)
		return WorkflowQueued{}, &DuplicateTaskError{ExistingID: d.WorkflowID}
	}
	taskVersion := eventstore.NewStream
	if seen {
		taskVersion = last.Version
	}

	// concurrent limit
	active, err := slots.load(ctx, h.store, tx, workflow.SlotsStream(cmd.OrgID))
	if err != nil {
		return WorkflowQueued{}, err
	}
	limit := workflow.ConcurrentLimit(cmd.Tier)
	slot, err := active.Take(planned.WorkflowID, limit)
	if err != nil {
		return WorkflowQueued{}, &ConcurrentLimitError{Limit: limit, Active: active.Active()}
	}

	// the first workflow of an org is free; the others need the balance
	_, ranBefore, err := h.store.Last(ctx, tx, workflow.FirstRunStream(cmd.OrgID))
	if err != nil {
		return WorkflowQueued{}, err
	}
	q.Free = !ranBefore
	if !q.Free {
		ledger, err := ledgers.load(ctx, h.store, tx, credit.Stream(cmd.OrgID))
		if err != nil {
			return WorkflowQueued{}, err
		}
		if ledger.Balance() < int64(planned.Credits) {
			return WorkflowQueued{}, &InsufficientCreditsError{Required: int64(planned.Credits), Balance: ledger.Balance()}
		}
	}

	add := func(stream string, expected int64, typ string, data any) error {
		_, err := h.store.AppendTx(ctx, tx, stream, expected, eventstore.NewEvent{Type: typ, Data: data, Metadata: m})
		return err
	}
	var out WorkflowQueued
	if cmd.Delivery.Method == "webhook" {
		stream := workflow.WebhookStream(cmd.OrgID, cmd.Delivery.WebhookURL)
		q.Delivery.WebhookID = stream
		_, registered, err := h.store.Last(ctx, tx, stream)
		if err != nil {
			return WorkflowQueued{}, err
		}
		if !registered {
			out.WebhookSecret = h.newSecret()
			reg := workflow.WebhookRegistered{OrgID: cmd.OrgID, URL: cmd.Delivery.WebhookURL, SealedSecret: h.sealer.Seal([]byte(out.WebhookSecret))}
			if err := add(stream, eventstore.NewStream, workflow.EventWebhookRegistered, reg); err != nil {
				return WorkflowQueued{}, err
			}
		}
	}
	if err := add(taskStream, taskVersion, workflow.EventTaskSubmitted, workflow.Submitted{WorkflowID: planned.WorkflowID}); err != nil {
		return WorkflowQueued{}, err
	}
	if err := add(workflow.SlotsStream(cmd.OrgID), active.Version(), workflow.EventSlotTaken, slot); err != nil {
		return WorkflowQueued{}, err
	}
	if q.Free {
		if err := add(workflow.FirstRunStream(cmd.OrgID), eventstore.NewStream, workflow.EventFirstRun, slot); err != nil {
			return WorkflowQueued{}, err
		}
	}
	events := []eventstore.NewEvent{{Type: workflow.EventQueued, Data: q, Metadata: m}}
	if cmd.Fresh != nil {
		events = append([]eventstore.NewEvent{{Type: workflow.EventPlanned, Data: planned, Metadata: m}}, events...)
	}
	pos, err := h.store.AppendTx(ctx, tx, workflow.Stream(planned.WorkflowID), expected, events...)
	if err != nil {
		return WorkflowQueued{}, err
	}
	out.Planned, out.Queued, out.Position = planned, q, pos
	return out, nil
}

// storedContext applies spec A's context persistence rules to a stored
// plan and the body's context.
func storedContext(p workflow.Planned, body *string) (string, []workflow.Warning) {
	switch {
	case body == nil && !p.ContextPersisted:
		return "", []workflow.Warning{{Code: "legacy_plan_context_unavailable",
			Message:    "This plan was made before plans kept their context; it runs without additional context.",
			Suggestion: "Pass context.additional_context with execute, or plan again."}}
	case body == nil || *body == p.AdditionalContext:
		return p.AdditionalContext, nil
	case p.AdditionalContext == "":
		return *body, nil
	}
	return *body, []workflow.Warning{{Code: "context_differs_from_plan",
		Message:    "The context given with execute differs from the plan's; the one given with execute is used.",
		Suggestion: "Omit context on execute to use the plan's, or plan again with the new context."}}
}
