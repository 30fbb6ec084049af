package commands

import (
	"context"
	"errors"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// Refusals of an ExecuteWorkflows as a whole, beside the bulk actions'
// ErrNoWorkflowIDs and ErrBulkLimit (at most BulkLimit ids).
var (
	// ErrRepeatedWorkflowID is an id listed twice (a *WorkflowRefusedError
	// names it).
	ErrRepeatedWorkflowID = errors.New("workflow id listed twice")
	// ErrSeveralDelivery is a delivery several workflows cannot share:
	// they are delivered by polling or webhook, not one SSE stream each.
	ErrSeveralDelivery = errors.New("several workflows are delivered by polling or webhook")
)

// ExecuteWorkflows queues several stored plans (a multi-intent plan's
// workflows: POST /api/rigor/execute with workflow_ids). Each is queued
// as ExecuteWorkflow would queue it alone (full mode, the same context,
// agent, language and delivery), in the order given.
type ExecuteWorkflows struct {
	OrgID, KeyID string
	Tier         string
	WorkflowIDs  []string
	// Context is the body's context.additional_context; nil when omitted.
	Context  *string
	AgentID  string
	Language string
	// Delivery is polling or webhook.
	Delivery workflow.Delivery
}

// Validate checks what does not need the store: 1 to BulkLimit ids, none twice, a polling or webhook delivery (ValidateDelivery).
func (c ExecuteWorkflows) Validate() error {
	switch {
	case len(c.WorkflowIDs) == 0:
		return ErrNoWorkflowIDs
	case len(c.WorkflowIDs) > BulkLimit:
		return ErrBulkLimit
	}
	seen := make(map[string]bool, len(c.WorkflowIDs))
	for _, id := range c.WorkflowIDs {
		if seen[id] {
			return &WorkflowRefusedError{WorkflowID: id, Err: ErrRepeatedWorkflowID}
		}
		seen[id] = true
	}
	if c.Delivery.Method != "polling" && c.Delivery.Method != "webhook" {
		return ErrSeveralDelivery
	}
	return ValidateDelivery(c.Delivery)
}

// WorkflowRefusedError is the refusal of one of an ExecuteWorkflows' ids;
// Err is what ExecuteWorkflow would have answered for it alone
// (workflow.ErrNotFound, ErrForeignWorkflow, workflow.ErrNoPlan,
// *DuplicateTaskError, *ConcurrentLimitError, ...).
type WorkflowRefusedError struct {
	WorkflowID string
	Err        error
}

func (e *WorkflowRefusedError) Error() string {
	return "workflow " + e.WorkflowID + ": " + e.Err.Error()
}

// Unwrap returns the refusal.
func (e *WorkflowRefusedError) Unwrap() error { return e.Err }

// WorkflowsQueued is the outcome of ExecuteWorkflows: at least one
// workflow was queued.
type WorkflowsQueued struct {
	// Queued are the queued workflows, in the command's order.
	Queued []WorkflowQueued
	// Refused are the ids the limits refused at queue time, each with
	// its refusal, in the command's order.
	Refused []*WorkflowRefusedError
	// Position is the last queued workflow's.
	Position event.Position
}

// ExecuteWorkflowsHandler handles ExecuteWorkflows.
type ExecuteWorkflowsHandler struct {
	repos   *Repositories
	execute Handler[ExecuteWorkflow, WorkflowQueued]
}

// NewExecuteWorkflowsHandler returns a handler over repos queueing each
// workflow with execute (an ExecuteWorkflowHandler).
func NewExecuteWorkflowsHandler(repos *Repositories, execute Handler[ExecuteWorkflow, WorkflowQueued]) ExecuteWorkflowsHandler {
	if execute == nil {
		panic("commands: nil dependency")
	}
	return ExecuteWorkflowsHandler{repos: must(repos), execute: execute}
}

// Handle validates the command, then checks every id as execute checks a
// workflow_id (the org's, has a plan, no progress, still planned): one
// that fails refuses the whole command and nothing is queued. Then it
// queues each workflow in a transaction of its own, through
// ExecuteWorkflow: the limits (duplicate task, concurrent limit, balance)
// may refuse one without undoing the others. When none is queued, the
// first refusal is the error (a *WorkflowRefusedError).
func (h ExecuteWorkflowsHandler) Handle(ctx context.Context, cmd ExecuteWorkflows) (WorkflowsQueued, error) {
	if err := cmd.Validate(); err != nil {
		return WorkflowsQueued{}, err
	}
	for _, id := range cmd.WorkflowIDs {
		wf, err := h.repos.Workflows.Get(ctx, id)
		if err == nil && wf.OrgID() != cmd.OrgID {
			err = ErrForeignWorkflow
		}
		if err == nil {
			err = wf.CanQueue()
		}
		if err != nil {
			return WorkflowsQueued{}, &WorkflowRefusedError{WorkflowID: id, Err: err}
		}
	}
	var out WorkflowsQueued
	for _, id := range cmd.WorkflowIDs {
		res, err := h.execute.Handle(ctx, ExecuteWorkflow{OrgID: cmd.OrgID, KeyID: cmd.KeyID, Tier: cmd.Tier, WorkflowID: id,
			Context: cmd.Context, AgentID: cmd.AgentID, Language: cmd.Language, Delivery: cmd.Delivery})
		if err != nil {
			out.Refused = append(out.Refused, &WorkflowRefusedError{WorkflowID: id, Err: err})
			continue
		}
		out.Queued = append(out.Queued, res)
		if out.Position.Less(res.Position) {
			out.Position = res.Position
		}
	}
	if len(out.Queued) == 0 {
		return WorkflowsQueued{}, out.Refused[0]
	}
	return out, nil
}
