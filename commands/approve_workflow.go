package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
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
	Position event.Position
}

// ApproveWorkflowHandler handles ApproveWorkflow.
type ApproveWorkflowHandler struct{ repos *Repositories }

// NewApproveWorkflowHandler returns a handler over repos.
func NewApproveWorkflowHandler(repos *Repositories) ApproveWorkflowHandler {
	return ApproveWorkflowHandler{repos: must(repos)}
}

// Handle appends WorkflowApproved (a worker takes the run on) or
// WorkflowRejected (the run fails with halt_reason rejected, releases what
// is left of its reservation and frees its slot; the steps that ran stay
// charged).
func (h ApproveWorkflowHandler) Handle(ctx context.Context, cmd ApproveWorkflow) (WorkflowDecided, error) {
	if cmd.Decision != DecisionApproved && cmd.Decision != DecisionRejected {
		return WorkflowDecided{}, ErrInvalidDecision
	}
	if cmd.AgentID == "" {
		cmd.AgentID = "board_chair"
	}
	var out WorkflowDecided
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		wf, err := h.repos.Workflows.LoadOwned(tx, cmd.OrgID, cmd.WorkflowID)
		if err != nil {
			return err
		}
		out.Gate = wf.PendingGate()
		decided, err := wf.Approve(cmd.Decision == DecisionApproved, cmd.Notes, cmd.AgentID, cmd.KeyID)
		if err != nil {
			return err
		}
		if _, err := h.repos.Workflows.Save(tx, wf.ID(), wf, decided); err != nil {
			return err
		}
		out.Status = workflow.StatusApproved
		if workflow.Ends(decided) { // rejected
			out.Status = workflow.StatusFailed
			return endRun(tx, h.repos, wf, decided.EventType())
		}
		return nil
	})
	if err != nil {
		return WorkflowDecided{}, fmt.Errorf("approve workflow: %w", err)
	}
	out.Position = pos
	return out, nil
}
