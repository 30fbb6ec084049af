package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
)

// chain applies a chained execute (cmd.PriorWorkflowID) to q, inside the
// execute's transaction and before anything is appended: the prior must be
// a terminal workflow of the org, the chain at most workflow.MaxChainDepth
// links and the inherited text within workflow.MaxInheritedTokens. A plan
// that would run direct gets one direct_execution_not_eligible warning per
// reason (spec A, direct execution rule 5).
func (h ExecuteWorkflowHandler) chain(ctx context.Context, tx pgx.Tx, cmd ExecuteWorkflow, planned workflow.Planned, q *workflow.Queued) error {
	if cmd.PriorWorkflowID == "" {
		if cmd.ContextFields != nil {
			return ErrContextFieldsWithoutPrior
		}
		return nil
	}
	for _, f := range cmd.ContextFields {
		if !workflow.ValidContextField(f) {
			return fmt.Errorf("context field %q: %w", f, ErrUnknownContextField)
		}
	}
	prior, err := loadOwned(ctx, h.store, tx, cmd.OrgID, cmd.PriorWorkflowID)
	if errors.Is(err, workflow.ErrNotFound) {
		return workflow.ErrPriorNotFound
	}
	if err != nil {
		return fmt.Errorf("load prior workflow: %w", err)
	}
	link, err := prior.Extend(cmd.OrgID, cmd.ContextFields)
	if err != nil {
		return err
	}
	q.PriorWorkflowID, q.ContextFields, q.Inherited, q.ChainDepth = link.PriorWorkflowID, link.Fields, link.Inherited, link.Depth
	if wantsDirect(planned) {
		q.Warnings = append(q.Warnings, notEligible("prior_workflow_id"))
		if len(cmd.ContextFields) > 0 {
			q.Warnings = append(q.Warnings, notEligible("context_fields"))
		}
	}
	return nil
}

// Refusals of a chained execute's fields (the HTTP layer checks them first).
var (
	// ErrUnknownContextField is a context_fields name outside the vocabulary.
	ErrUnknownContextField = errors.New("unknown context field")
	// ErrContextFieldsWithoutPrior is context_fields without prior_workflow_id.
	ErrContextFieldsWithoutPrior = errors.New("context_fields without prior_workflow_id")
)

// wantsDirect reports whether the plan would run direct: selected by the
// planner or asked for in its preferences.
func wantsDirect(p workflow.Planned) bool {
	return p.Execution == workflow.ExecutionDirect || p.RequestedExecution() == workflow.ExecutionDirect
}

func notEligible(field string) workflow.Warning {
	return workflow.Warning{Code: "direct_execution_not_eligible",
		Message:    "Direct execution is not available for requests carrying " + field + "; the workflow runs as standard execution, with the inherited context applied.",
		Suggestion: "Execute without " + field + " to run direct, or drop preferences.execution to silence this warning."}
}
