package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/org"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// fakeModels are the models openAIAt serves.
var fakeModels = planning.Models{Tier1: []string{"fake-tier1"}, Tier2: []string{"fake-tier2"}}

// planUnderPolicy plans taskType for o, a Team organization whose
// workspace allows only allowed, with preferences prefs.
func planUnderPolicy(t *testing.T, o testOrg, taskType, prefs string, allowed ...string) workflow.Planned {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(testStore)
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: o.ID, Tier: org.Team, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewSetLLMPolicyHandler(repos, fakeModels).Handle(ctx,
		commands.SetLLMPolicy{OrgID: o.ID, WorkspaceID: o.WorkspaceID, AllowedModels: allowed}); err != nil {
		t.Fatal(err)
	}
	var p planning.Preferences
	if err := json.Unmarshal([]byte(prefs), &struct {
		RigorLevel *string `json:"rigor_level"`
		Execution  *string `json:"execution"`
	}{&p.RigorLevel, &p.Execution}); err != nil {
		t.Fatal(err)
	}
	desc := fmt.Sprintf("Prepare a thorough %s for Acme, a payroll software company; reference run %d.", taskType, descriptions.Add(1))
	h := commands.NewPlanWorkflowHandler(repos, planning.NewPlanner(catalog.Default(), planning.WithModels(fakeModels)))
	planned, err := planStored(t, h, commands.PlanWorkflow{OrgID: o.ID, WorkspaceID: o.WorkspaceID, KeyID: o.KeyID, RawPreferences: json.RawMessage(prefs),
		Request: planning.Request{TaskType: taskType, Description: desc, Preferences: p, SingleIntent: true}})
	if err != nil || len(planned) != 1 {
		t.Fatalf("plan %s: %v", taskType, err)
	}
	return planned[0]
}

// The worker calls the models the plan recorded under the workspace's llm
// policy: every step, the quality review, and direct execution's composed
// tier-2 call, which the policy routes to the allowed tier-1 model.
func TestRunUsesThePolicyModels(t *testing.T) {
	for _, prefs := range []string{`{"rigor_level":"quick"}`, `{"rigor_level":"standard","execution":"direct"}`} {
		fake := newFake(t)
		o := newOrg(t)
		p := execute(t, o, planUnderPolicy(t, o, "competitive_analysis", prefs, "fake-tier1"))
		runs := runAll(t, fakeProvider(t, fake, 0, nil), p)
		if st := runs[0].Status(); st != workflow.StatusCompleted {
			t.Fatalf("%s: status %s", prefs, st)
		}
		calls := fake.Requests()
		if len(calls) == 0 {
			t.Fatal("no calls")
		}
		for _, c := range calls {
			if c.Model != "fake-tier1" {
				t.Errorf("%s: a %s call (%s) on %q, want only the allowed fake-tier1", prefs, c.Kind, c.Framework, c.Model)
			}
		}
	}
}

// Without a policy the tiers keep their models.
func TestRunWithoutPolicyUsesBothTiers(t *testing.T) {
	fake := newFake(t)
	o := newOrg(t)
	runs := runAll(t, fakeProvider(t, fake, 0, nil), queue(t, o, "competitive_analysis", planOpts{}))
	if st := runs[0].Status(); st != workflow.StatusCompleted {
		t.Fatalf("status %s", st)
	}
	seen := map[string]bool{}
	for _, c := range fake.Requests() {
		seen[c.Model] = true
	}
	if !seen["fake-tier1"] || !seen["fake-tier2"] {
		t.Fatalf("models called %v", seen)
	}
}
