package httpapi_test

import (
	"context"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/org"
)

// teamWorkspace signs a user up, moves their organization to the Team tier
// and returns their session, an owner key of their default workspace and
// the workspace's id.
func teamWorkspace(t *testing.T, f *fixture) (access, key, wsID string) {
	t.Helper()
	access, _, wsID = f.signUp(t)
	code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/api-keys", access, map[string]any{"role": "owner"})
	if code != 201 {
		t.Fatalf("owner key: %d %v", code, body)
	}
	key = body["key"].(string)
	_, verify := f.call(t, "GET", "/api/keys/verify", key, nil)
	ctx := context.Background()
	tier, err := commands.NewChangeTierHandler(commands.NewRepositories(store)).Handle(ctx,
		commands.ChangeTier{OrgID: verify["org_id"].(string), Tier: org.Team, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, tier.Position); err != nil {
		t.Fatal(err)
	}
	waitKey(t, f, key)
	return access, key, wsID
}

// llmPolicyWalks are TestEveryWriteIsReadBack's walks of the llm policy
// route, in workspace wsID of owner key key (an Enterprise organization):
// a policy set or removed is read back from the policy, the workspace
// resource and the workspace list, and the next plan follows it. The walk
// ends with the policy removed.
func llmPolicyWalks(t *testing.T, f *fixture, key, wsID string) map[string]func(t *testing.T) {
	ws := "/api/workspaces/" + wsID
	put := func(t *testing.T, allowed any) {
		t.Helper()
		if code, body := f.call(t, "PUT", ws+"/llm-policy", key, map[string]any{"allowed_models": allowed}); code != 200 {
			t.Fatalf("put: %d %v", code, body)
		}
	}
	readBack := func(t *testing.T, want []string) {
		t.Helper()
		code, body := f.call(t, "GET", ws+"/llm-policy", key, nil)
		if code != 200 || len(body["allowed_models"].([]any)) != len(want) {
			t.Fatalf("policy read back: %d %v, want %v", code, body, want)
		}
		_, one := f.call(t, "GET", ws, key, nil)
		_, list := f.call(t, "GET", "/api/workspaces", key, nil)
		listed := ids(list, "workspaces", "id")[wsID].(map[string]any)
		for _, w := range []map[string]any{one, listed} {
			p, _ := w["llm_policy"].(map[string]any)
			switch {
			case want == nil && (w["llm_policy"] != nil || w["enforcement_status"] != nil):
				t.Fatalf("removed policy still shown: %v", w)
			case want != nil && (p == nil || len(p["allowed_models"].([]any)) != len(want) || w["enforcement_status"] != "enforced"):
				t.Fatalf("workspace %v, want policy %v enforced", w, want)
			}
		}
	}
	return map[string]func(t *testing.T){
		"PUT workspaces.llm_policy.set": func(t *testing.T) {
			defer put(t, nil)
			put(t, []string{"gpt-4o"})
			readBack(t, []string{"gpt-4o"})
			code, body := f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": "compare our pricing with three competitors"})
			if code != 200 {
				t.Fatalf("plan: %d %v", code, body)
			}
			plan := body["plan"].(map[string]any)
			for _, raw := range plan["sequence"].([]any) {
				if m := raw.(map[string]any)["model"]; m != "gpt-4o" {
					t.Fatalf("a step on %v right after the policy: %v", m, raw)
				}
			}
			put(t, nil)
			readBack(t, nil)
		},
	}
}

// readLLMPolicy is TestNoNullLists's read of the llm policy route, before
// and after a policy is set (the route needs the Team tier).
func readLLMPolicy(t *testing.T, f *fixture) {
	owner, _, wsID := teamWorkspace(t, f)
	path := "/api/workspaces/" + wsID + "/llm-policy"
	if code, body, _ := f.callAs(t, "GET", path, owner, nil); code != 200 {
		t.Errorf("%s: %d %v", path, code, body)
	}
	if code, body, _ := f.callAs(t, "PUT", path, owner, map[string]any{"allowed_models": []string{"gpt-4o-mini"}}); code != 200 {
		t.Errorf("%s: %d %v", path, code, body)
	}
	if code, body, _ := f.callAs(t, "GET", path, owner, nil); code != 200 {
		t.Errorf("%s: %d %v", path, code, body)
	}
}
