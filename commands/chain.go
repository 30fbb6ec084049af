package commands

import (
	"errors"
	"fmt"

	"svc/domain/workflow"
	"svc/eventstore"
)

// chain decides the link of a chained execute (cmd.PriorWorkflowID),
// inside the execute's transaction and before anything is appended: the
// prior must be a terminal workflow of the org, the chain at most
// workflow.MaxChainDepth links and the inherited text within
// workflow.MaxInheritedTokens. Nil when the execute is not chained.
func (h ExecuteWorkflowHandler) chain(tx *eventstore.Tx, cmd ExecuteWorkflow) (*workflow.Link, error) {
	if cmd.PriorWorkflowID == "" {
		if cmd.ContextFields != nil {
			return nil, ErrContextFieldsWithoutPrior
		}
		return nil, nil
	}
	for _, f := range cmd.ContextFields {
		if !workflow.ValidContextField(f) {
			return nil, fmt.Errorf("context field %q: %w", f, ErrUnknownContextField)
		}
	}
	prior, err := h.repos.Workflows.LoadOwned(tx, cmd.OrgID, cmd.PriorWorkflowID)
	if errors.Is(err, workflow.ErrNotFound) {
		return nil, workflow.ErrPriorNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load prior workflow: %w", err)
	}
	link, err := prior.Extend(cmd.OrgID, cmd.ContextFields)
	if err != nil {
		return nil, err
	}
	return &link, nil
}

// Refusals of a chained execute's fields (the HTTP layer checks them first).
var (
	// ErrUnknownContextField is a context_fields name outside the vocabulary.
	ErrUnknownContextField = errors.New("unknown context field")
	// ErrContextFieldsWithoutPrior is context_fields without prior_workflow_id.
	ErrContextFieldsWithoutPrior = errors.New("context_fields without prior_workflow_id")
)
