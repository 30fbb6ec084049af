package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"svc/commands"
	"svc/domain/workflow"
)

// chainFields validates execute's prior_workflow_id and context_fields
// into cmd. Names are trimmed and lower-cased; an explicit empty list
// inherits nothing (the workflow is only linked), an omitted one the
// default fields.
func chainFields(body *executeBody, cmd *commands.ExecuteWorkflow) error {
	prior := strings.TrimSpace(body.PriorWorkflowID)
	if prior == "" {
		if body.ContextFields != nil {
			return errInvalidField("context_fields", "context_fields needs prior_workflow_id, the workflow to inherit from")
		}
		return nil
	}
	if !workflow.ValidID(prior) {
		return errPriorNotFound(prior)
	}
	cmd.PriorWorkflowID = prior
	if body.ContextFields == nil {
		return nil
	}
	cmd.ContextFields = []string{}
	for i, f := range body.ContextFields {
		name := strings.ToLower(strings.TrimSpace(f))
		if !workflow.ValidContextField(name) {
			return errInvalidField(fmt.Sprintf("context_fields[%d]", i), strconv.Quote(f)+" is not a context field; use "+strings.Join(workflow.ContextFields, ", "))
		}
		cmd.ContextFields = append(cmd.ContextFields, name)
	}
	return nil
}

func errPriorNotFound(id string) *apiError {
	return newError(http.StatusNotFound, "prior_not_found", "No workflow "+strconv.Quote(id)+" in your organization to chain from.").
		withFix("Pass the workflow_id of a finished workflow of your organization as prior_workflow_id.")
}

// chainError maps the refusals of a chained execute to spec A's codes;
// nil when err is none of them.
func chainError(err error) *apiError {
	var (
		terminal *workflow.PriorNotTerminalError
		large    *workflow.ContextTooLargeError
	)
	switch {
	case errors.Is(err, workflow.ErrPriorNotFound):
		return newError(http.StatusNotFound, "prior_not_found", "prior_workflow_id names no workflow of your organization.").
			withFix("Pass the workflow_id of a finished workflow of your organization.")
	case errors.As(err, &terminal):
		return newError(http.StatusConflict, "prior_not_terminal", "The prior workflow is "+terminal.Status+"; a chain continues only from a finished workflow.").
			withFix("Wait until the prior workflow is completed, completed_partial, failed, halted, cancelled or timed out.").withDetail("status", terminal.Status)
	case errors.Is(err, workflow.ErrChainDepth):
		return newError(http.StatusUnprocessableEntity, "chain_depth_exceeded", fmt.Sprintf("The chain would exceed %d links.", workflow.MaxChainDepth)).
			withFix("Start a new chain: execute without prior_workflow_id, passing what matters in context.additional_context.").
			withDetail("max_depth", workflow.MaxChainDepth)
	case errors.As(err, &large):
		return newError(http.StatusUnprocessableEntity, "context_too_large", "The context inherited from the prior workflow is over the maximum size.").
			withFix("Name fewer context_fields (for example only step_summaries).").
			withDetail("estimated_tokens", large.Estimated).withDetail("max_tokens", large.Max)
	case errors.Is(err, commands.ErrUnknownContextField):
		return errInvalidField("context_fields", err.Error())
	case errors.Is(err, commands.ErrContextFieldsWithoutPrior):
		return errInvalidField("context_fields", "context_fields needs prior_workflow_id, the workflow to inherit from")
	}
	return nil
}
