package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/webhook"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// ExecuteWorkflow queues a workflow for the workers: a stored plan
// (WorkflowID) or a fresh one (Plan: planned, persisted and queued in one
// transaction).
type ExecuteWorkflow struct {
	OrgID, KeyID string
	Tier         string
	WorkflowID   string
	// Plan plans the workflow in the same call (a single intent).
	Plan *PlanWorkflow
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
	// Plan is the plan a fresh execute made (nil for a stored plan).
	Plan *planning.Plan
	// WebhookSecret is set when this execute registered the webhook URL.
	WebhookSecret string
	Position      event.Position
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

// DeliveryError refuses an execute's delivery: Code is spec A's code
// (webhook_url_required, webhook_url_https or webhook_url_invalid) and
// Field the request field it is about (delivery.webhook_url).
type DeliveryError struct {
	Code  string
	Field string
	Err   error
}

// Error names the field and why it was refused.
func (e *DeliveryError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the cause (one of adapters/webhook's URL errors).
func (e *DeliveryError) Unwrap() error { return e.Err }

// ValidateDelivery checks an execute's delivery: a webhook delivery needs
// an absolute https URL of at most 2,048 bytes, without user information.
// A refusal is a *DeliveryError. The host is not resolved here: private
// addresses are refused when a delivery connects.
func ValidateDelivery(d workflow.Delivery) error {
	if d.Method != "webhook" {
		return nil
	}
	if err := webhook.ValidateURL(d.WebhookURL); err != nil {
		return &DeliveryError{Code: webhook.Code(err), Field: "delivery.webhook_url", Err: err}
	}
	return nil
}

// ErrForeignWorkflow is a stored workflow of another organization.
var ErrForeignWorkflow = errors.New("workflow belongs to another organization")

// Sealer encrypts secrets stored in events.
type Sealer interface {
	Seal(plaintext []byte) string
}

// ExecuteWorkflowHandler handles ExecuteWorkflow.
type ExecuteWorkflowHandler struct {
	repos     *Repositories
	planner   PlanWorkflowHandler
	sealer    Sealer
	newSecret func() string
	now       func() time.Time
}

// NewExecuteWorkflowHandler returns a handler over repos planning fresh
// executes with planner; sealer encrypts webhook secrets made by newSecret.
func NewExecuteWorkflowHandler(repos *Repositories, planner PlanWorkflowHandler, sealer Sealer, newSecret func() string) ExecuteWorkflowHandler {
	if sealer == nil || newSecret == nil || planner.planner == nil {
		panic("commands: nil dependency")
	}
	return ExecuteWorkflowHandler{repos: must(repos), planner: planner, sealer: sealer, newSecret: newSecret, now: time.Now}
}

// Handle validates the delivery (ValidateDelivery), plans a fresh execute,
// then checks the limits and appends, in one transaction: the plan (for a
// fresh execute), WorkflowQueued, the task's duplicate marker, the active
// slot, the reservation of the plan's estimate in the org's ledger (or the
// free first run) and the webhook registration. An estimate the spendable
// balance does not cover is an *InsufficientCreditsError.
func (h ExecuteWorkflowHandler) Handle(ctx context.Context, cmd ExecuteWorkflow) (WorkflowQueued, error) {
	if err := ValidateDelivery(cmd.Delivery); err != nil {
		return WorkflowQueued{}, err
	}
	var fresh *workflow.Planned
	var plan *planning.Plan
	if cmd.Plan != nil {
		pc := *cmd.Plan
		pc.Request.SingleIntent = true
		res, planned, err := h.planner.prepare(ctx, pc)
		if err != nil {
			return WorkflowQueued{}, err
		}
		fresh, plan = &planned[0], &res.Plans[0]
	}
	var out WorkflowQueued
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		var err error
		out, err = h.queue(tx, cmd, fresh)
		return err
	})
	if err != nil {
		return WorkflowQueued{}, fmt.Errorf("execute workflow: %w", err)
	}
	out.Plan, out.Position = plan, pos
	return out, nil
}

func (h ExecuteWorkflowHandler) queue(tx *eventstore.Tx, cmd ExecuteWorkflow, fresh *workflow.Planned) (WorkflowQueued, error) {
	wf := workflow.New()
	if fresh != nil {
		if err := wf.Apply(event.Recorded(workflow.Stream(fresh.WorkflowID), 0, h.now(), *fresh)); err != nil {
			return WorkflowQueued{}, err
		}
	} else {
		var err error
		if wf, err = h.repos.Workflows.Load(tx, cmd.WorkflowID); err != nil {
			return WorkflowQueued{}, err
		}
		if wf.OrgID() != cmd.OrgID {
			return WorkflowQueued{}, ErrForeignWorkflow
		}
		if err := h.recheckPolicy(tx, cmd.Tier, wf.Planned()); err != nil { // set_llm_policy.go
			return WorkflowQueued{}, err
		}
	}
	planned := wf.Planned()
	if err := wf.CanQueue(); err != nil {
		return WorkflowQueued{}, err
	}
	link, err := h.chain(tx, cmd)
	if err != nil {
		return WorkflowQueued{}, err
	}
	// the first workflow of an org is free; the others need the balance
	_, ranBefore, err := h.repos.Store.Last(tx.Context(), tx.DB(), workflow.FirstRunStream(cmd.OrgID))
	if err != nil {
		return WorkflowQueued{}, err
	}
	q, err := wf.Queue(workflow.Request{OrgID: cmd.OrgID, KeyID: cmd.KeyID, Tier: cmd.Tier, AgentID: cmd.AgentID, Language: cmd.Language,
		Mode: cmd.Mode, Delivery: cmd.Delivery, Context: cmd.Context, Fresh: fresh != nil, Link: link, ContextFields: cmd.ContextFields, Free: !ranBefore})
	if err != nil {
		return WorkflowQueued{}, err
	}

	// duplicate task within the window
	taskStream := workflow.TaskStream(cmd.OrgID, planned.Description)
	last, seen, err := h.repos.Store.Last(tx.Context(), tx.DB(), taskStream)
	if err != nil {
		return WorkflowQueued{}, err
	}
	if seen && workflow.Duplicate(last.RecordedAt, h.now()) {
		var d workflow.Submitted
		_ = last.Decode(&d)
		return WorkflowQueued{}, &DuplicateTaskError{ExistingID: d.WorkflowID}
	}
	taskVersion := event.NewStream
	if seen {
		taskVersion = last.Version
	}

	// concurrent limit
	active, err := h.repos.Slots.Load(tx, cmd.OrgID)
	if err != nil {
		return WorkflowQueued{}, err
	}
	limit := workflow.ConcurrentLimit(cmd.Tier)
	slot, err := active.Take(planned.WorkflowID, limit)
	if err != nil {
		return WorkflowQueued{}, &ConcurrentLimitError{Limit: limit, Active: active.Active()}
	}

	var out WorkflowQueued
	if cmd.Delivery.Method == "webhook" {
		stream := workflow.WebhookStream(cmd.OrgID, cmd.Delivery.WebhookURL)
		q.Delivery.WebhookID = stream
		_, registered, err := h.repos.Store.Last(tx.Context(), tx.DB(), stream)
		if err != nil {
			return WorkflowQueued{}, err
		}
		if !registered {
			out.WebhookSecret = h.newSecret()
			reg := workflow.WebhookRegistered{OrgID: cmd.OrgID, URL: cmd.Delivery.WebhookURL, SealedSecret: h.sealer.Seal([]byte(out.WebhookSecret))}
			if _, err := tx.Append(stream, event.NewStream, reg); err != nil {
				return WorkflowQueued{}, err
			}
		}
	}
	if _, err := tx.Append(taskStream, taskVersion, workflow.Submitted{WorkflowID: planned.WorkflowID}); err != nil {
		return WorkflowQueued{}, err
	}
	if q.Free {
		if _, err := tx.Append(workflow.FirstRunStream(cmd.OrgID), event.NewStream, workflow.FirstRunClaimed(slot)); err != nil {
			return WorkflowQueued{}, err
		}
	}
	if fresh != nil {
		_, err = tx.Append(workflow.Stream(planned.WorkflowID), event.NewStream, planned, q)
	} else {
		_, err = h.repos.Workflows.Save(tx, planned.WorkflowID, wf, q)
	}
	if err != nil {
		return WorkflowQueued{}, err
	}
	// after the workflow, under the org's lock, the ledger then the slot
	// (control.go): an accepted run holds its estimate, so what other runs
	// and charges hold or spend meanwhile cannot halt it (decision 34);
	// the slot, decided above, is taken at the version read now
	amount := planned.Credits
	if q.Free {
		amount = 0 // the lock alone
	}
	if err := reserveRun(tx, h.repos, cmd.OrgID, planned.WorkspaceID, cmd.Tier, planned.WorkflowID, amount); err != nil {
		return WorkflowQueued{}, err
	}
	if err := takeSlot(tx, h.repos, cmd.OrgID, planned.WorkflowID, cmd.Tier); err != nil {
		return WorkflowQueued{}, err
	}
	out.Planned, out.Queued = planned, q
	return out, nil
}
