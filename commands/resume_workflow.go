package commands

import (
	"context"
	"fmt"

	"svc/commands/jobs"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// ErrResumeConflict is a resume that lost the race to another one, or of a
// workflow a worker is running.
var ErrResumeConflict = workflow.ErrResumeConflict

// ResumeWorkflow continues a stalled, failed, paused or timed-out workflow
// from its first step without a result.
type ResumeWorkflow struct {
	OrgID, KeyID string
	Tier         string
	WorkflowID   string
	// Approve is the query's approve=true (pending_human_review).
	Approve          bool
	RevisionGuidance string
}

// WorkflowResumed is the outcome of ResumeWorkflow.
type WorkflowResumed struct {
	FromStep   int
	TotalSteps int
	Position   event.Position
}

// ResumeWorkflowHandler handles ResumeWorkflow.
type ResumeWorkflowHandler struct{ repos *Repositories }

// NewResumeWorkflowHandler returns a handler over repos.
func NewResumeWorkflowHandler(repos *Repositories) ResumeWorkflowHandler {
	return ResumeWorkflowHandler{repos: must(repos)}
}

// Handle appends WorkflowResumed with the version it read (the optimistic
// lock: a concurrent resume gets ErrResumeConflict, as does a resume of a
// workflow a worker is running), takes the workflow's slot again if it had
// given it up, and reserves what the remaining steps and the fee cost
// (only those are charged; a run that still holds a reservation reserves
// only the difference): *InsufficientCreditsError when the spendable
// balance does not cover it.
func (h ResumeWorkflowHandler) Handle(ctx context.Context, cmd ResumeWorkflow) (WorkflowResumed, error) {
	var out WorkflowResumed
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		wf, err := h.repos.Workflows.LoadOwned(tx, cmd.OrgID, cmd.WorkflowID)
		if err != nil {
			return err
		}
		running, err := leased(tx, wf.ID())
		if err != nil {
			return err
		}
		resumed, err := wf.Resume(cmd.Approve, running, cmd.RevisionGuidance, cmd.KeyID)
		if err != nil {
			return err
		}
		// decided before anything is appended: 402, then 429
		remaining := wf.Remaining()
		if err := covers(tx, h.repos, wf, remaining); err != nil {
			return err
		}
		active, err := h.repos.Slots.Load(tx, wf.OrgID())
		if err != nil {
			return err
		}
		if _, _, err := claim(active, wf.ID(), cmd.Tier); err != nil {
			return err
		}
		out = WorkflowResumed{FromStep: resumed.FromStep, TotalSteps: len(wf.Planned().Steps)}
		// the workflow, then under the org's lock the ledger and the slot
		// (control.go)
		_, err = h.repos.Workflows.Save(tx, wf.ID(), wf, resumed)
		if h.repos.Workflows.Conflict(err, wf.ID()) {
			return ErrResumeConflict
		}
		if err != nil {
			return err
		}
		if err := reserveRun(tx, h.repos, wf.OrgID(), wf.Planned().WorkspaceID, cmd.Tier, wf.ID(), remaining); err != nil { // takes the org's lock
			return err
		}
		return takeSlot(tx, h.repos, wf.OrgID(), wf.ID(), cmd.Tier)
	})
	if err != nil {
		return WorkflowResumed{}, fmt.Errorf("resume workflow: %w", err)
	}
	out.Position = pos
	return out, nil
}

// leased reports whether a worker holds a live lease on workflow id (the
// workflow is being run, not stalled).
func leased(tx *eventstore.Tx, id string) (bool, error) {
	return jobs.Held(tx.Context(), tx.DB(), jobs.KindWorkflow, id)
}
