package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
)

// Approval decisions.
const (
	DecisionApproved = "approved"
	DecisionRejected = "rejected"
)

// ErrInvalidDecision is a decision other than approved and rejected.
var ErrInvalidDecision = errors.New("decision must be approved or rejected")

// ApproveWorkflow decides the approval gate a workflow waits at.
type ApproveWorkflow struct {
	OrgID, KeyID string
	WorkflowID   string
	Decision     string
	Notes        string
	AgentID      string // default board_chair
}

// WorkflowDecided is the outcome of ApproveWorkflow.
type WorkflowDecided struct {
	Status   string // approved (the run resumes) or failed
	Gate     int
	Position eventstore.Position
}

// ApproveWorkflowHandler handles ApproveWorkflow.
type ApproveWorkflowHandler struct{ store *eventstore.Store }

// NewApproveWorkflowHandler returns a handler appending to store.
func NewApproveWorkflowHandler(store *eventstore.Store) ApproveWorkflowHandler {
	if store == nil {
		panic("nil dependency")
	}
	return ApproveWorkflowHandler{store: store}
}

// Handle appends WorkflowApproved (a worker takes the run on) or
// WorkflowRejected (the run fails with halt_reason rejected and frees its
// slot; the steps that ran stay charged).
func (h ApproveWorkflowHandler) Handle(ctx context.Context, cmd ApproveWorkflow) (WorkflowDecided, error) {
	if cmd.Decision != DecisionApproved && cmd.Decision != DecisionRejected {
		return WorkflowDecided{}, ErrInvalidDecision
	}
	if cmd.AgentID == "" {
		cmd.AgentID = "board_chair"
	}
	var out WorkflowDecided
	err := onWorkflow(ctx, h.store, cmd.OrgID, cmd.WorkflowID, func(tx pgx.Tx, wf *workflow.Workflow) error {
		var err error
		gate := wf.PendingGate()
		if gate < 0 {
			return fmt.Errorf("%w: %s", workflow.ErrInvalidStatus, wf.Status())
		}
		d := workflow.Decision{Gate: gate, Notes: cmd.Notes, AgentID: cmd.AgentID, KeyID: cmd.KeyID}
		out = WorkflowDecided{Status: workflow.StatusApproved, Gate: gate}
		typ := workflow.EventApproved
		if cmd.Decision == DecisionRejected {
			typ, out.Status = workflow.EventRejected, workflow.StatusFailed
		}
		if out.Position, err = appendWorkflow(ctx, h.store, tx, wf, nil, eventstore.NewEvent{Type: typ, Data: d}); err != nil {
			return err
		}
		if cmd.Decision == DecisionRejected {
			return releaseSlot(ctx, h.store, tx, wf)
		}
		return nil
	})
	if err != nil {
		return WorkflowDecided{}, fmt.Errorf("approve workflow: %w", err)
	}
	return out, nil
}
