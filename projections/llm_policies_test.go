package projections_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/projections"
)

func TestLLMPolicies(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.LLMPolicies{}}
	r := newRunner(t, ps)
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	signup, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "p-" + workflow.NewID() + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	orgID, first := signup.OrgID, signup.WorkspaceID
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: orgID, Tier: org.Team, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	second, err := commands.NewCreateWorkspaceHandler(repos).Handle(ctx, commands.CreateWorkspace{OrgID: orgID, Name: "Second"})
	if err != nil {
		t.Fatal(err)
	}
	set := commands.NewSetLLMPolicyHandler(repos, planning.Models{Tier1: []string{"big"}, Tier2: []string{"small"}})
	for _, c := range []commands.SetLLMPolicy{
		{OrgID: orgID, WorkspaceID: first, AllowedModels: []string{"big", "small"}},
		{OrgID: orgID, WorkspaceID: first, AllowedModels: []string{"Small"}},
		{OrgID: orgID, WorkspaceID: second.WorkspaceID, AllowedModels: []string{"big"}},
		{OrgID: orgID, WorkspaceID: second.WorkspaceID},
	} {
		if _, err := set.Handle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	catchUp(t, r)
	q := projections.NewQueries(store, repos.Workflows, nil, quiet)
	never := uuid.NewString()
	got, err := q.LLMPolicies(ctx, []string{first, second.WorkspaceID, never})
	if err != nil {
		t.Fatal(err)
	}
	if p := got[first]; !slices.Equal(p.AllowedModels, []string{"small"}) || p.UpdatedAt == nil {
		t.Fatalf("first workspace %+v", p)
	}
	if p := got[second.WorkspaceID]; p.AllowedModels != nil || p.UpdatedAt == nil {
		t.Fatalf("removed policy %+v", p)
	}
	if _, ok := got[never]; ok || len(got) != 2 {
		t.Fatalf("policies %+v", got)
	}
	if p, err := q.LLMPolicy(ctx, never); err != nil || p.WorkspaceID != never || p.AllowedModels != nil || p.UpdatedAt != nil {
		t.Fatalf("a workspace without a policy: %+v %v", p, err)
	}

	live := dump(t, ps)
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(1)).Rebuild(ctx, ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt llm policies differ:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}
