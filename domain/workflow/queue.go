package workflow

import (
	"cmp"
	"time"
)

// Request is what execute asks of a planned workflow.
type Request struct {
	OrgID, KeyID string
	Tier         string
	AgentID      string
	Language     string
	Mode         string // full (default) or interactive
	Delivery     Delivery
	// Context is the body's context.additional_context; nil when omitted.
	Context *string
	// Fresh marks a plan made by this same execute: its context is the
	// body's, with no persistence rules to apply.
	Fresh bool
	// Link is the chain link off a prior workflow (Extend); nil when not
	// chained. ContextFields are the names the caller gave (nil: none).
	Link          *Link
	ContextFields []string
	// Free marks the org's first workflow: nothing is charged.
	Free bool
}

// Queue decides WorkflowQueued for request r: the plan must be queueable
// (CanQueue), the context follows spec A's persistence rules (with their
// warnings), a chain link carries its inherited context, and what runs
// (direct or standard) is decided here.
func (w *Workflow) Queue(r Request) (Queued, error) {
	if err := w.CanQueue(); err != nil {
		return Queued{}, err
	}
	p := w.planned
	q := Queued{WorkflowID: p.WorkflowID, OrgID: r.OrgID, KeyID: r.KeyID, AgentID: r.AgentID, Tier: r.Tier,
		Mode: cmp.Or(r.Mode, ModeFull), Language: r.Language, Delivery: r.Delivery, Estimated: p.Credits, Free: r.Free}
	if r.Fresh {
		q.Context = p.AdditionalContext
	} else {
		q.Context, q.Warnings = storedContext(p, r.Context)
	}
	if l := r.Link; l != nil {
		q.PriorWorkflowID, q.ContextFields, q.Inherited, q.ChainDepth = l.PriorWorkflowID, l.Fields, l.Inherited, l.Depth
		if p.WantsDirect() {
			q.Warnings = append(q.Warnings, notEligible("prior_workflow_id"))
			if len(r.ContextFields) > 0 {
				q.Warnings = append(q.Warnings, notEligible("context_fields"))
			}
		}
	}
	q.Execution, q.ExecutionFallback = DecideExecution(p, q)
	return q, nil
}

// Duplicate reports whether a task last submitted at last is a duplicate
// at now (spec A's five-minute window).
func Duplicate(last, now time.Time) bool { return now.Sub(last) < DuplicateWindow }

// storedContext applies spec A's context persistence rules to a stored
// plan and the body's context.
func storedContext(p Planned, body *string) (string, []Warning) {
	switch {
	case body == nil && !p.ContextPersisted:
		return "", []Warning{{Code: "legacy_plan_context_unavailable",
			Message:    "This plan was made before plans kept their context; it runs without additional context.",
			Suggestion: "Pass context.additional_context with execute, or plan again."}}
	case body == nil || *body == p.AdditionalContext:
		return p.AdditionalContext, nil
	case p.AdditionalContext == "":
		return *body, nil
	}
	return *body, []Warning{{Code: "context_differs_from_plan",
		Message:    "The context given with execute differs from the plan's; the one given with execute is used.",
		Suggestion: "Omit context on execute to use the plan's, or plan again with the new context."}}
}

// WantsDirect reports whether the plan would run direct: selected by the
// planner or asked for in its preferences.
func (p Planned) WantsDirect() bool {
	return p.Execution == ExecutionDirect || p.RequestedExecution() == ExecutionDirect
}

func notEligible(field string) Warning {
	return Warning{Code: "direct_execution_not_eligible",
		Message:    "Direct execution is not available for requests carrying " + field + "; the workflow runs as standard execution, with the inherited context applied.",
		Suggestion: "Execute without " + field + " to run direct, or drop preferences.execution to silence this warning."}
}
