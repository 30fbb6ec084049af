package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
)

// ErrResumeConflict is a resume that lost the race to another one.
var ErrResumeConflict = errors.New("another resume of the workflow is in flight")

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
	Position   eventstore.Position
}

// ResumeWorkflowHandler handles ResumeWorkflow.
type ResumeWorkflowHandler struct{ store *eventstore.Store }

// NewResumeWorkflowHandler returns a handler appending to store.
func NewResumeWorkflowHandler(store *eventstore.Store) ResumeWorkflowHandler {
	if store == nil {
		panic("nil dependency")
	}
	return ResumeWorkflowHandler{store: store}
}

// Handle appends WorkflowResumed with the version it read (the optimistic
// lock: a concurrent resume gets ErrResumeConflict, as does a resume of a
// workflow a worker is running), takes the workflow's
// slot again if it had given it up, and checks the balance covers the
// remaining steps (only those are charged).
func (h ResumeWorkflowHandler) Handle(ctx context.Context, cmd ResumeWorkflow) (WorkflowResumed, error) {
	var out WorkflowResumed
	err := onWorkflow(ctx, h.store, cmd.OrgID, cmd.WorkflowID, func(tx pgx.Tx, wf *workflow.Workflow) error {
		var err error
		if wf.Status() == workflow.StatusResuming {
			return ErrResumeConflict
		}
		if running, err := leased(ctx, tx, wf.ID()); err != nil {
			return err
		} else if running { // a worker holds it: it is not stalled, it runs
			return ErrResumeConflict
		}
		if err := wf.CheckResume(cmd.Approve); err != nil {
			return err
		}
		next, _ := wf.NextOpen()
		if err := covers(ctx, h.store, tx, wf, wf.Remaining()); err != nil {
			return err
		}
		if err := takeSlot(ctx, h.store, tx, wf, cmd.Tier); err != nil {
			return err
		}
		out = WorkflowResumed{FromStep: next.Step, TotalSteps: len(wf.Planned().Steps)}
		out.Position, err = appendWorkflow(ctx, h.store, tx, wf, ErrResumeConflict, eventstore.NewEvent{Type: workflow.EventResumed,
			Data: workflow.Resumed{From: wf.Status(), FromStep: next.Step, RevisionGuidance: cmd.RevisionGuidance, KeyID: cmd.KeyID}})
		return err
	})
	if err != nil {
		return WorkflowResumed{}, fmt.Errorf("resume workflow: %w", err)
	}
	return out, nil
}

// leased reports whether a worker holds a live lease on workflow id (the
// workflow is being run, not stalled).
func leased(ctx context.Context, tx pgx.Tx, id string) (bool, error) {
	var held bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workflow_leases WHERE workflow_id = $1 AND expires_at > now())`, id).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("read lease: %w", err)
	}
	return held, nil
}
