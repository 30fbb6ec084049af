package commands_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/org"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/domain/workspace"
)

var policyModels = planning.Models{Tier1: []string{"big"}, Tier2: []string{"small"}}

// policyOrg is a Team organization, with a plan and an execute handler
// routing to policyModels and a policy setter.
type policyOrg struct {
	commands.OrganizationCreated
	plan    commands.PlanWorkflowHandler
	execute commands.ExecuteWorkflowHandler
	set     commands.SetLLMPolicyHandler
}

func newPolicyOrg(t *testing.T) policyOrg {
	t.Helper()
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	if _, err := commands.NewChangeTierHandler(repos).Handle(context.Background(), commands.ChangeTier{OrgID: a.OrgID, Tier: org.Team, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	plan := commands.NewPlanWorkflowHandler(repos, planning.NewPlanner(catalog.Default(), planning.WithModels(policyModels)))
	return policyOrg{OrganizationCreated: a, plan: plan, execute: commands.NewExecuteWorkflowHandler(repos, plan, plainSealer{}, func() string { return "s" }),
		set: commands.NewSetLLMPolicyHandler(repos, policyModels)}
}

func (o policyOrg) policy(t *testing.T, allowed ...string) {
	t.Helper()
	cmd := commands.SetLLMPolicy{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, AllowedModels: allowed}
	if _, err := o.set.Handle(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
}

func (o policyOrg) planOne(t *testing.T, desc string) (planning.Plan, workflow.Planned, error) {
	t.Helper()
	res, err := o.plan.Handle(context.Background(), commands.PlanWorkflow{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, KeyID: o.KeyID,
		Request: planning.Request{Description: desc, TaskType: "competitive_analysis"}})
	if err != nil {
		return planning.Plan{}, workflow.Planned{}, err
	}
	wf, err := commands.NewRepositories(store).Workflows.Get(context.Background(), res.Result.Plans[0].WorkflowID)
	if err != nil {
		t.Fatal(err)
	}
	return res.Result.Plans[0], wf.Planned(), nil
}

func (o policyOrg) executeStored(id string) error {
	_, err := o.execute.Handle(context.Background(), commands.ExecuteWorkflow{OrgID: o.OrgID, KeyID: o.KeyID, Tier: string(org.Team),
		WorkflowID: id, Delivery: workflow.Delivery{Method: "polling"}})
	return err
}

// TestPlanFollowsTheLLMPolicy: a plan of a workspace with a policy records
// the allowed model of every step and of each tier (what the worker
// calls), and says what it substituted.
func TestPlanFollowsTheLLMPolicy(t *testing.T) {
	o := newPolicyOrg(t)
	_, free, err := o.planOne(t, "compare our pricing with three rivals")
	if err != nil {
		t.Fatal(err)
	}
	if free.Models != nil || slices.ContainsFunc(free.Steps, func(s workflow.PlannedStep) bool { return s.Model != "" }) {
		t.Fatalf("a plan without a policy pins models: %+v", free)
	}
	o.policy(t, "big")
	plan, planned, err := o.planOne(t, "compare our pricing with four rivals")
	if err != nil {
		t.Fatal(err)
	}
	if planned.Models == nil || *planned.Models != (workflow.ModelRouting{Tier1: "big", Tier2: "big"}) {
		t.Fatalf("routing %+v", planned.Models)
	}
	for _, s := range planned.Steps {
		if s.Model != "big" || s.Tier != 1 {
			t.Fatalf("step %+v", s)
		}
	}
	if !slices.ContainsFunc(plan.Warnings, func(w planning.Warning) bool { return w.Code == "model_substituted" }) {
		t.Fatalf("warnings %+v", plan.Warnings)
	}
	if planned.Credits <= free.Credits {
		t.Fatalf("tier-2 steps on the tier-1 model cost %d, without the policy %d", planned.Credits, free.Credits)
	}
}

// TestExecuteRechecksTheLLMPolicy: a stored plan whose models the policy
// no longer allows (or never allowed: planned before it) is refused at
// execute, naming them; once they are allowed it runs.
func TestExecuteRechecksTheLLMPolicy(t *testing.T) {
	o := newPolicyOrg(t)
	_, before, err := o.planOne(t, "compare our pricing with five rivals")
	if err != nil {
		t.Fatal(err)
	}
	o.policy(t, "big")
	_, under, err := o.planOne(t, "compare our pricing with six rivals")
	if err != nil {
		t.Fatal(err)
	}
	var refused *planning.ModelNotAllowedError
	if err := o.executeStored(before.WorkflowID); !errors.As(err, &refused) || !slices.Equal(refused.Disallowed, []string{"small"}) {
		t.Fatalf("a plan made before the policy: %v", err)
	}
	o.policy(t, "small")
	if err := o.executeStored(under.WorkflowID); !errors.As(err, &refused) || !slices.Equal(refused.Disallowed, []string{"big"}) ||
		!slices.Equal(refused.Allowed, []string{"small"}) {
		t.Fatalf("a plan under a policy changed since: %v", err)
	}
	o.policy(t, "small", "big")
	if err := o.executeStored(under.WorkflowID); err != nil {
		t.Fatalf("allowed again: %v", err)
	}
}

// TestNoAllowedModelAvailable: a policy whose models the service no
// longer routes to refuses plans; below the Team tier it is not enforced.
func TestNoAllowedModelAvailable(t *testing.T) {
	o := newPolicyOrg(t)
	old := commands.NewSetLLMPolicyHandler(commands.NewRepositories(store), planning.Models{Tier1: []string{"retired"}})
	if _, err := old.Handle(context.Background(), commands.SetLLMPolicy{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, AllowedModels: []string{"retired"}}); err != nil {
		t.Fatal(err)
	}
	var refused *planning.ModelNotAllowedError
	if _, _, err := o.planOne(t, "compare our pricing with seven rivals"); !errors.As(err, &refused) || len(refused.Disallowed) != 0 ||
		!slices.Equal(refused.Available, []string{"big", "small"}) {
		t.Fatalf("plan under a policy of no available model: %v", err)
	}
	if _, err := commands.NewChangeTierHandler(commands.NewRepositories(store)).Handle(context.Background(),
		commands.ChangeTier{OrgID: o.OrgID, Tier: org.Pro, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	if _, planned, err := o.planOne(t, "compare our pricing with eight rivals"); err != nil || planned.Models != nil {
		t.Fatalf("a Pro organization's plan: %+v %v", planned.Models, err)
	}
	if _, err := o.set.Handle(context.Background(), commands.SetLLMPolicy{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID}); !errors.Is(err, workspace.ErrTierRequired) {
		t.Fatalf("a Pro organization's policy change: %v", err)
	}
}

// modelRecorder records the model each call is pinned to.
type modelRecorder struct {
	llm.Provider
	models []string
}

func (m *modelRecorder) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	m.models = append(m.models, r.Model)
	return m.Provider.Complete(ctx, r)
}

// TestEnhanceFollowsTheLLMPolicy: enhance's llm tier (a tier-2 call) uses
// the policy's model for tier 2, the provider's without a policy.
func TestEnhanceFollowsTheLLMPolicy(t *testing.T) {
	o := newPolicyOrg(t)
	rec := &modelRecorder{Provider: offline.New()}
	h := commands.NewEnhanceTaskHandler(commands.NewRepositories(store), rec, commands.WithEnhanceModels(policyModels))
	enhance := func() {
		t.Helper()
		if _, err := h.Handle(context.Background(), commands.EnhanceTask{OrgID: o.OrgID, KeyID: o.KeyID, WorkspaceID: o.WorkspaceID,
			Description: "compare our pricing with three competitors"}); err != nil {
			t.Fatal(err)
		}
	}
	enhance()
	o.policy(t, "big")
	enhance()
	if !slices.Equal(rec.models, []string{"", "big"}) {
		t.Fatalf("enhance calls pinned to %q", rec.models)
	}
}
