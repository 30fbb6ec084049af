package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// PlanWorkflow classifies a task and persists its plan (or, for a
// multi-intent description, one plan per intent) as new workflows.
type PlanWorkflow struct {
	OrgID          string
	WorkspaceID    string
	KeyID          string
	Request        planning.Request
	RawPreferences json.RawMessage
}

// WorkflowsPlanned is the outcome of PlanWorkflow: the plans with their
// workflow ids set.
type WorkflowsPlanned struct {
	Result   planning.Result
	Position event.Position
}

// PlanWorkflowHandler handles PlanWorkflow.
type PlanWorkflowHandler struct {
	repos   *Repositories
	planner *planning.Planner
	checker ConnectionChecker
	history CostHistory
	// stored: plans also check the caller's stored connections
	// (plan_connections.go), whose credentials opener opens.
	stored bool
	opener Opener
}

// ConnectionChecker checks the context servers a plan names before it is
// built: it sets each connection's State, Detail and, for a server that
// lists them over MCP, its Resources.
type ConnectionChecker interface {
	CheckConnections(ctx context.Context, conns []planning.Connection)
}

// CostHistory is the observed cost of a task type's completed runs as a
// ratio of their estimate (cost.range); ok is false without history.
type CostHistory interface {
	CostRatio(ctx context.Context, taskType string) (min, max float64, ok bool, err error)
}

// PlanOption configures a PlanWorkflowHandler.
type PlanOption func(*PlanWorkflowHandler)

// WithConnectionChecker checks plans' context servers with c (default:
// none are checked; they stay as given).
func WithConnectionChecker(c ConnectionChecker) PlanOption {
	return func(h *PlanWorkflowHandler) { h.checker = c }
}

// WithCostHistory gives plans their cost.range from h (default: none).
func WithCostHistory(c CostHistory) PlanOption {
	return func(h *PlanWorkflowHandler) { h.history = c }
}

// NewPlanWorkflowHandler returns a handler planning with planner over repos.
func NewPlanWorkflowHandler(repos *Repositories, planner *planning.Planner, opts ...PlanOption) PlanWorkflowHandler {
	if planner == nil {
		panic("commands: nil planner")
	}
	h := PlanWorkflowHandler{repos: must(repos), planner: planner}
	for _, o := range opts {
		o(&h)
	}
	return h
}

// steps is the sequence as execution needs it.
func (h PlanWorkflowHandler) steps(seq []planning.Step) []workflow.PlannedStep {
	out := make([]workflow.PlannedStep, len(seq))
	for i, s := range seq {
		f, _ := h.planner.Catalog().Framework(s.Name)
		out[i] = workflow.PlannedStep{Step: s.Step, Name: s.Name, Kind: s.Kind, Tier: s.ModelTier, Credits: s.EstimatedCredits,
			PriorityClass: s.PriorityClass, NeedsContext: f.NeedsExternalContext, Model: s.Model}
	}
	return out
}

// prepare checks the plan's connections and plans, without appending: the
// result (workflow ids set) and the WorkflowPlanned event of each plan.
func (h PlanWorkflowHandler) prepare(ctx context.Context, cmd PlanWorkflow) (planning.Result, []workflow.Planned, error) {
	stored, access := h.storedConnections(ctx, cmd)
	if h.checker != nil {
		h.checker.CheckConnections(ctx, cmd.Request.Connections)
	}
	h.checkStored(ctx, stored, access)
	cmd.Request.Connections = slices.Concat(cmd.Request.Connections, stored)
	cmd.Request.External = h.readExternal(ctx, cmd.Request, access) // plan_external.go
	if h.history != nil && cmd.Request.History == nil {
		cmd.Request.History = func(taskType string) (float64, float64, bool) {
			lo, hi, ok, err := h.history.CostRatio(ctx, taskType)
			return lo, hi, ok && err == nil
		}
	}
	if err := ctx.Err(); err != nil {
		return planning.Result{}, nil, err
	}
	routing, err := h.policyRouting(ctx, cmd) // the workspace's llm policy (set_llm_policy.go)
	if err != nil {
		return planning.Result{}, nil, err
	}
	cmd.Request.Routing = routing
	res, err := h.planner.PlanContext(ctx, cmd.Request)
	if err != nil {
		return planning.Result{}, nil, err
	}
	group := ""
	if len(res.Plans) > 1 {
		group = workflow.NewID()
	}
	events := make([]workflow.Planned, len(res.Plans))
	for i := range res.Plans {
		p := &res.Plans[i]
		p.WorkflowID = workflow.NewID()
		if i < len(res.Groups) {
			res.Groups[i].WorkflowID = p.WorkflowID
		}
		body, err := json.Marshal(p)
		if err != nil {
			return planning.Result{}, nil, fmt.Errorf("plan workflow: %w", err)
		}
		mode := "standard"
		if p.Execution == "direct" {
			mode = "direct"
		}
		desc := cmd.Request.Description
		if len(res.Groups) > 0 {
			desc = res.Groups[i].Description
		}
		prefs := cmd.RawPreferences
		if len(prefs) == 0 {
			prefs = json.RawMessage("{}")
		}
		events[i] = workflow.Planned{WorkflowID: p.WorkflowID, OrgID: cmd.OrgID, WorkspaceID: cmd.WorkspaceID, KeyID: cmd.KeyID,
			TaskType: p.Classification.TaskType, ValueClass: p.Classification.ValueClass, Description: desc, Title: res.Title,
			RigorLevel: p.RigorLevel, TotalSteps: len(p.Sequence), Credits: p.Cost.Credits, Execution: mode,
			ApprovalGates: p.ApprovalGates, Plan: body, Preferences: prefs, AdditionalContext: cmd.Request.AdditionalContext, IntentGroup: group, ClassificationTier: res.Tier,
			Steps: h.steps(p.Sequence), ContextLess: !p.Context.Sufficient, ContextPersisted: true, Models: modelRouting(routing),
			External: externalContent(*p)}
		for _, c := range cmd.Request.Connections {
			name := c.Label
			if name == "" {
				name = c.ID
			}
			events[i].Connections = append(events[i].Connections, workflow.Connection{Name: name, ServerURL: c.ServerURL})
		}
	}
	return res, events, nil
}

// Handle plans and appends one WorkflowPlanned per plan, all in one transaction.
func (h PlanWorkflowHandler) Handle(ctx context.Context, cmd PlanWorkflow) (WorkflowsPlanned, error) {
	res, events, err := h.prepare(ctx, cmd)
	if err != nil {
		return WorkflowsPlanned{}, err
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		for _, e := range events {
			if _, err := tx.Append(workflow.Stream(e.WorkflowID), event.NewStream, e); err != nil {
				return err
			}
		}
		// the answer is the plan itself: it goes out on commit, and the
		// caller's next request waits for the read models (decision 331)
		tx.Fence(event.MetadataFrom(ctx).Actor)
		return nil
	})
	if err != nil {
		return WorkflowsPlanned{}, fmt.Errorf("plan workflow: %w", err)
	}
	return WorkflowsPlanned{Result: res, Position: pos}, nil
}
