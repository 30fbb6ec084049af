package workspace_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"svc/domain/org"
	"svc/domain/workspace"
)

var knownModels = []string{"gpt-4o", "gpt-4o-mini", "claude-sonnet-4"}

func TestSetLLMPolicy(t *testing.T) {
	created, _ := workspace.Create("w", "o", "Team", "team", false)
	w := fold(t, created)
	for _, tier := range []org.Tier{org.Free, org.Pro, ""} {
		if _, err := w.SetLLMPolicy(tier, []string{"gpt-4o"}, knownModels); !errors.Is(err, workspace.ErrTierRequired) || !errors.Is(err, workspace.ErrPolicyTier) {
			t.Fatalf("%q: %v", tier, err)
		}
	}
	if d, err := w.SetLLMPolicy(org.Team, nil, knownModels); err != nil || len(d) != 0 {
		t.Fatalf("removing no policy: %v %v", d, err)
	}
	if _, err := w.SetLLMPolicy(org.Team, []string{}, knownModels); !errors.Is(err, workspace.ErrNoModels) {
		t.Fatalf("empty list: %v", err)
	}
	_, err := w.SetLLMPolicy(org.Team, []string{"gpt-4o", "llama-3", " "}, knownModels)
	var unknown *workspace.UnknownModelsError
	if !errors.As(err, &unknown) || !slices.Equal(unknown.Unknown, []string{"llama-3", " "}) || !slices.Equal(unknown.Known, knownModels) {
		t.Fatalf("unknown models: %v", err)
	}
	set, err := w.SetLLMPolicy(org.Enterprise, []string{" GPT-4o ", "claude-sonnet-4", "gpt-4o"}, knownModels)
	if err != nil || len(set) != 1 {
		t.Fatalf("set: %v %v", set, err)
	}
	if p := set[0].(workspace.LLMPolicySet); p.WorkspaceID != "w" || p.OrgID != "o" || !slices.Equal(p.AllowedModels, []string{"gpt-4o", "claude-sonnet-4"}) {
		t.Fatalf("event %+v (want the known spelling, deduplicated, in order)", p)
	}
	w = fold(t, created, set[0])
	if !slices.Equal(w.LLMPolicy(), []string{"gpt-4o", "claude-sonnet-4"}) {
		t.Fatalf("policy %v", w.LLMPolicy())
	}
	if d, err := w.SetLLMPolicy(org.Team, []string{"gpt-4o", "Claude-Sonnet-4"}, knownModels); err != nil || len(d) != 0 {
		t.Fatalf("the same policy again: %v %v", d, err)
	}
	removed, err := w.SetLLMPolicy(org.Team, nil, knownModels)
	if err != nil || len(removed) != 1 || removed[0].(workspace.LLMPolicySet).AllowedModels != nil {
		t.Fatalf("remove: %v %v", removed, err)
	}
	raw, _ := json.Marshal(removed[0])
	if string(raw) != `{"workspace_id":"w","org_id":"o","allowed_models":null}` {
		t.Fatalf("removal stored as %s", raw)
	}
	if w = fold(t, created, set[0], removed[0]); w.LLMPolicy() != nil {
		t.Fatalf("policy after removal %v", w.LLMPolicy())
	}
	archived, _ := w.Archive()
	w = fold(t, created, archived[0])
	if _, err := w.SetLLMPolicy(org.Team, []string{"gpt-4o"}, knownModels); !errors.Is(err, workspace.ErrArchived) {
		t.Fatalf("archived: %v", err)
	}
}

func TestAllowedModelsLimit(t *testing.T) {
	var many, known []string
	for i := range workspace.MaxAllowedModels + 1 {
		many = append(many, fmt.Sprintf("m-%d", i))
	}
	known = many
	if _, err := workspace.ValidAllowedModels(many, known); !errors.Is(err, workspace.ErrTooManyModels) {
		t.Fatalf("%d models: %v", len(many), err)
	}
	fifty := append(slices.Clone(many[:workspace.MaxAllowedModels]), many[:10]...) // duplicates do not count
	if got, err := workspace.ValidAllowedModels(fifty, known); err != nil || len(got) != workspace.MaxAllowedModels {
		t.Fatalf("50 distinct models: %d %v", len(got), err)
	}
}
