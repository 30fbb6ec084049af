package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// BulkLimit is the most workflow ids one bulk action takes.
const BulkLimit = 20

// Bulk action errors.
var (
	ErrNoWorkflowIDs = errors.New("workflow_ids missing or empty")
	ErrBulkLimit     = errors.New("more than 20 workflow ids")
)

// CancelWorkflows cancels up to 20 workflows of an org; without Confirm it
// only previews. Ids of other orgs (and unknown ids) are silently skipped.
type CancelWorkflows struct {
	OrgID, KeyID string
	IDs          []string
	Force        bool
	Confirm      bool
}

// CancelPlan is one workflow a bulk cancel touches or skips.
type CancelPlan struct {
	WorkflowID string
	Status     string // before the cancel
	Action     string // cancel or force_cancel; "" when skipped
	Reason     string // why it is skipped
}

// WorkflowsCancelled is the outcome of CancelWorkflows: the preview's
// plan, and with Confirm what happened to each.
type WorkflowsCancelled struct {
	Affected  []CancelPlan
	Skipped   []CancelPlan
	Succeeded []CancelPlan
	Failed    []CancelPlan
	Position  event.Position
}

// CancelWorkflowsHandler handles CancelWorkflows.
type CancelWorkflowsHandler struct{ repos *Repositories }

// NewCancelWorkflowsHandler returns a handler over repos.
func NewCancelWorkflowsHandler(repos *Repositories) CancelWorkflowsHandler {
	return CancelWorkflowsHandler{repos: must(repos)}
}

// Handle previews, or cancels each workflow in a transaction of its own
// (WorkflowCancelled, the release of its reservation and of its slot:
// EndRun): one workflow's failure does not undo the others'.
func (h CancelWorkflowsHandler) Handle(ctx context.Context, cmd CancelWorkflows) (WorkflowsCancelled, error) {
	ids := dedupe(cmd.IDs)
	if len(ids) == 0 {
		return WorkflowsCancelled{}, ErrNoWorkflowIDs
	}
	if len(ids) > BulkLimit {
		return WorkflowsCancelled{}, ErrBulkLimit
	}
	var out WorkflowsCancelled
	for _, id := range ids {
		var p CancelPlan
		pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
			wf, err := h.repos.Workflows.LoadOwned(tx, cmd.OrgID, id)
			if err != nil {
				return err
			}
			p = CancelPlan{WorkflowID: wf.ID(), Status: wf.Status()}
			p.Action, p.Reason = wf.CancelPlan(cmd.Force)
			if p.Action == "" || !cmd.Confirm {
				return nil
			}
			cancelled, err := wf.Cancel(cmd.Force, cmd.KeyID)
			if err != nil {
				return err
			}
			if _, err := h.repos.Workflows.Save(tx, wf.ID(), wf, cancelled); err != nil {
				return err
			}
			return endRun(tx, h.repos, wf, cancelled.EventType())
		})
		if err == nil && p.Action != "" && cmd.Confirm {
			out.Position = pos // only a committed cancel is waited for
		}
		switch {
		case errors.Is(err, workflow.ErrNotFound):
			continue // unknown or another org's: silently skipped
		case err != nil && ctx.Err() != nil:
			return WorkflowsCancelled{}, fmt.Errorf("cancel workflows: %w", err)
		case err != nil:
			p.WorkflowID, p.Reason = id, "The cancel could not be recorded; retry."
			out.Failed = append(out.Failed, p)
		case p.Action == "":
			out.Skipped = append(out.Skipped, p)
		case cmd.Confirm:
			out.Succeeded = append(out.Succeeded, p)
		default:
			out.Affected = append(out.Affected, p)
		}
	}
	return out, nil
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
