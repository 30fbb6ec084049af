package commands

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
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
	Position eventstore.Position
}

// PlanWorkflowHandler handles PlanWorkflow.
type PlanWorkflowHandler struct {
	store   *eventstore.Store
	planner *planning.Planner
}

// NewPlanWorkflowHandler returns a handler planning with planner and
// appending to store.
func NewPlanWorkflowHandler(store *eventstore.Store, planner *planning.Planner) PlanWorkflowHandler {
	if store == nil || planner == nil {
		panic("nil dependency")
	}
	return PlanWorkflowHandler{store: store, planner: planner}
}

// steps is the sequence as execution needs it.
func (h PlanWorkflowHandler) steps(seq []planning.Step) []workflow.PlannedStep {
	out := make([]workflow.PlannedStep, len(seq))
	for i, s := range seq {
		f, _ := h.planner.Catalog().Framework(s.Name)
		out[i] = workflow.PlannedStep{Step: s.Step, Name: s.Name, Kind: s.Kind, Tier: s.ModelTier, Credits: s.EstimatedCredits,
			PriorityClass: s.PriorityClass, NeedsContext: f.NeedsExternalContext}
	}
	return out
}

// Prepare plans without appending: the result (workflow ids set) and the
// WorkflowPlanned event of each plan.
func (h PlanWorkflowHandler) Prepare(cmd PlanWorkflow) (planning.Result, []workflow.Planned, error) {
	res, err := h.planner.Plan(cmd.Request)
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
			desc = res.Groups[i].Intents[0].SourcePhrase
		}
		prefs := cmd.RawPreferences
		if len(prefs) == 0 {
			prefs = json.RawMessage("{}")
		}
		events[i] = workflow.Planned{WorkflowID: p.WorkflowID, OrgID: cmd.OrgID, WorkspaceID: cmd.WorkspaceID, KeyID: cmd.KeyID,
			TaskType: p.Classification.TaskType, ValueClass: p.Classification.ValueClass, Description: desc, Title: res.Title,
			RigorLevel: p.RigorLevel, TotalSteps: len(p.Sequence), Credits: p.Cost.Credits, Execution: mode,
			ApprovalGates: p.ApprovalGates, Plan: body, Preferences: prefs, AdditionalContext: cmd.Request.AdditionalContext, IntentGroup: group,
			Steps: h.steps(p.Sequence), ContextLess: !p.Context.Sufficient, ContextPersisted: true}
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
	res, events, err := h.Prepare(cmd)
	if err != nil {
		return WorkflowsPlanned{}, err
	}
	out := WorkflowsPlanned{Result: res}
	m := meta(ctx, cmd.OrgID)
	err = h.store.Transact(ctx, func(tx pgx.Tx) error {
		for _, e := range events {
			pos, err := h.store.AppendTx(ctx, tx, workflow.Stream(e.WorkflowID), eventstore.NewStream,
				eventstore.NewEvent{Type: workflow.EventPlanned, Data: e, Metadata: m})
			if err != nil {
				return err
			}
			out.Position = pos
		}
		return nil
	})
	if err != nil {
		return WorkflowsPlanned{}, fmt.Errorf("plan workflow: %w", err)
	}
	return out, nil
}
