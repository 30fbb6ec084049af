package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"svc/domain/folder"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// MoveWorkflows puts workflows of a workspace into one of its folders, out
// of the folder each was in: all of them or, when one is not a workflow of
// the workspace, none.
type MoveWorkflows struct {
	OrgID       string
	WorkspaceID string
	FolderID    string
	// WorkflowIDs: 1 to folder.MaxMove ids; repeated ones count once.
	WorkflowIDs []string
}

// WorkflowsMoved is the outcome of MoveWorkflows.
type WorkflowsMoved struct {
	// WorkflowIDs are the workflows now in the folder, in the order
	// given, each once.
	WorkflowIDs []string
	Position    event.Position
}

// MoveWorkflowsHandler handles MoveWorkflows.
type MoveWorkflowsHandler struct{ repos *Repositories }

// NewMoveWorkflowsHandler returns a handler over repos.
func NewMoveWorkflowsHandler(repos *Repositories) MoveWorkflowsHandler {
	return MoveWorkflowsHandler{repos: must(repos)}
}

// ErrMoveCount is a MoveWorkflows without ids or with more than
// folder.MaxMove.
var ErrMoveCount = errors.New("move 1 to 100 workflows at a time")

// Handle appends FolderWorkflowAdded to each workflow's assignment stream
// (at the version it read) in one transaction. Which workspace a workflow
// belongs to is read from its first event (WorkflowPlanned) alone: it
// never changes.
func (h MoveWorkflowsHandler) Handle(ctx context.Context, cmd MoveWorkflows) (WorkflowsMoved, error) {
	var ids []string
	for _, id := range cmd.WorkflowIDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || len(cmd.WorkflowIDs) > folder.MaxMove {
		return WorkflowsMoved{}, ErrMoveCount
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		f, err := loadFolder(tx, h.repos, cmd.OrgID, cmd.WorkspaceID, cmd.FolderID)
		if err != nil {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		for _, id := range ids {
			p, err := plannedOf(tx, id)
			if err != nil {
				return err
			}
			a, err := h.repos.FolderAssignments.Load(tx, id)
			if err != nil {
				return err
			}
			data, err := a.Add(f, id, p.OrgID, p.WorkspaceID)
			if err != nil {
				return err
			}
			if _, err := h.repos.FolderAssignments.Save(tx, id, a, data...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return WorkflowsMoved{}, fmt.Errorf("move workflows: %w", err)
	}
	return WorkflowsMoved{WorkflowIDs: ids, Position: pos}, nil
}

// plannedOf reads workflow id's plan (its first event) inside tx; an id of
// no workflow is a folder.WorkflowError.
func plannedOf(tx *eventstore.Tx, id string) (workflow.Planned, error) {
	if !workflow.ValidID(id) {
		return workflow.Planned{}, folder.WorkflowError{WorkflowID: id}
	}
	head, err := eventstore.ReadRange(tx.Context(), tx.DB(), workflow.Stream(id), 0, 0)
	if err != nil {
		return workflow.Planned{}, err
	}
	wf, err := workflow.Load(head)
	if errors.Is(err, workflow.ErrNotFound) {
		return workflow.Planned{}, folder.WorkflowError{WorkflowID: id}
	}
	if err != nil {
		return workflow.Planned{}, err
	}
	return wf.Planned(), nil
}
