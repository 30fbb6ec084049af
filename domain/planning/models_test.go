package planning_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"svc/domain/planning"
)

var models = planning.Models{Tier1: []string{"big", "fb-big"}, Tier2: []string{"small", "fb-small"}}

func routed(t *testing.T, allowed ...string) *planning.Routing {
	t.Helper()
	r, err := models.Route(allowed)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func buildRouted(t *testing.T, r *planning.Routing, p planning.Preferences) planning.Plan {
	t.Helper()
	plan, err := planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Description: "a task to plan", Preferences: p, Routing: r})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func warningsOf(p planning.Plan, code string) []planning.Warning {
	var out []planning.Warning
	for _, w := range p.Warnings {
		if w.Code == code {
			out = append(out, w)
		}
	}
	return out
}

func TestModelsKnownAndCanonical(t *testing.T) {
	m := planning.Models{Tier1: []string{"gpt-4o", "claude-sonnet-4"}, Tier2: []string{"gpt-4o-mini", "gpt-4o"}}
	if got := strings.Join(m.Known(), ","); got != "gpt-4o,claude-sonnet-4,gpt-4o-mini" {
		t.Fatalf("known %s", got)
	}
	if n, ok := m.Canonical(" GPT-4o-Mini "); !ok || n != "gpt-4o-mini" {
		t.Fatalf("canonical %q %v", n, ok)
	}
	if _, ok := m.Canonical("llama"); ok {
		t.Fatal("an unknown model is canonical")
	}
	if (planning.Models{}).Known() == nil {
		t.Fatal("no models must be an empty list")
	}
}

func TestRouteNearestTier(t *testing.T) {
	for _, c := range []struct {
		allowed      []string
		tier1, tier2 planning.Route
	}{
		{[]string{"big", "small"}, planning.Route{Model: "big", Tier: 1}, planning.Route{Model: "small", Tier: 2}},
		{[]string{"big"}, planning.Route{Model: "big", Tier: 1}, planning.Route{Model: "big", Tier: 1}},
		{[]string{"small"}, planning.Route{Model: "small", Tier: 2}, planning.Route{Model: "small", Tier: 2}},
		{[]string{"fb-small", "big"}, planning.Route{Model: "big", Tier: 1}, planning.Route{Model: "fb-small", Tier: 2}},
		{[]string{"fb-big", "fb-small"}, planning.Route{Model: "fb-big", Tier: 1}, planning.Route{Model: "fb-small", Tier: 2}},
	} {
		r, err := models.Route(c.allowed)
		if err != nil {
			t.Fatal(err)
		}
		if r.For(1) != c.tier1 || r.For(2) != c.tier2 {
			t.Errorf("%v: tier 1 %+v, tier 2 %+v; want %+v, %+v", c.allowed, r.For(1), r.For(2), c.tier1, c.tier2)
		}
	}
	_, err := models.Route([]string{"gone"})
	var refused *planning.ModelNotAllowedError
	if !errors.As(err, &refused) || refused.Allowed[0] != "gone" || len(refused.Available) != 4 {
		t.Fatalf("no allowed model configured: %v", err)
	}
}

func TestPlanWithoutPolicyShowsNoModel(t *testing.T) {
	p := buildRouted(t, nil, planning.Preferences{})
	raw, _ := json.Marshal(p)
	if strings.Contains(string(raw), `"model"`) || len(warningsOf(p, "model_substituted")) != 0 {
		t.Fatalf("a plan without a policy names models: %s", raw)
	}
}

func TestPolicyAllowingBothTiersSubstitutesNothing(t *testing.T) {
	free := buildRouted(t, nil, planning.Preferences{})
	p := buildRouted(t, routed(t, "big", "small"), planning.Preferences{})
	if len(warningsOf(p, "model_substituted")) != 0 || p.Cost.Credits != free.Cost.Credits {
		t.Fatalf("warnings %v, cost %d (without policy %d)", p.Warnings, p.Cost.Credits, free.Cost.Credits)
	}
	for i, s := range p.Sequence {
		want := map[int]string{1: "big", 2: "small"}[free.Sequence[i].ModelTier]
		if s.Model != want {
			t.Fatalf("step %d (tier %d) on %q, want %q", s.Step, s.ModelTier, s.Model, want)
		}
	}
}

func TestPolicyWithoutTier2UsesTier1AndSaysSo(t *testing.T) {
	free := buildRouted(t, nil, planning.Preferences{})
	p := buildRouted(t, routed(t, "big"), planning.Preferences{})
	for _, s := range p.Sequence {
		if s.Model != "big" || s.ModelTier != 1 {
			t.Fatalf("step %+v", s)
		}
	}
	ws := warningsOf(p, "model_substituted")
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "small") || !strings.Contains(ws[0].Message, "uses big") && !strings.Contains(ws[0].Message, "use big") ||
		!strings.Contains(ws[0].Message, "priced as tier 1") || ws[0].Suggestion == "" {
		t.Fatalf("warnings %+v", p.Warnings)
	}
	if p.Cost.Credits <= free.Cost.Credits {
		t.Fatalf("tier-2 steps on a tier-1 model cost %d, without the policy %d", p.Cost.Credits, free.Cost.Credits)
	}
	for _, alt := range p.Alternatives {
		if alt.Cost.Credits == 0 {
			t.Fatalf("alternative %+v", alt)
		}
	}
}

func TestPolicyWithoutTier1UsesTier2(t *testing.T) {
	free := buildRouted(t, nil, planning.Preferences{})
	p := buildRouted(t, routed(t, "small"), planning.Preferences{})
	for _, s := range p.Sequence {
		if s.Model != "small" || s.ModelTier != 2 {
			t.Fatalf("step %+v", s)
		}
	}
	ws := warningsOf(p, "model_substituted")
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "big, the tier-1 model") || !strings.Contains(ws[0].Message, "priced as tier 2") {
		t.Fatalf("warnings %+v", p.Warnings)
	}
	if p.Cost.Credits > free.Cost.Credits {
		t.Fatalf("tier-1 steps on a tier-2 model cost %d, without the policy %d", p.Cost.Credits, free.Cost.Credits)
	}
}

func TestPolicyFallbackModelOfTheSameTier(t *testing.T) {
	free := buildRouted(t, nil, planning.Preferences{})
	p := buildRouted(t, routed(t, "big", "fb-small"), planning.Preferences{})
	ws := warningsOf(p, "model_substituted")
	if len(ws) != 1 || strings.Contains(ws[0].Message, "priced as") || p.Cost.Credits != free.Cost.Credits {
		t.Fatalf("warnings %+v, cost %d vs %d", p.Warnings, p.Cost.Credits, free.Cost.Credits)
	}
}

func TestBudgetUnderAPolicyWithoutTier2(t *testing.T) {
	budget := 0.5
	p := buildRouted(t, routed(t, "big"), planning.Preferences{MaxBudgetUSD: &budget})
	for _, w := range warningsOf(p, "budget_below_estimate") {
		if strings.Contains(w.Message, "now use tier-2 models") {
			t.Fatalf("the budget claims tier-2 models the policy forbids: %s", w.Message)
		}
	}
	for _, s := range p.Sequence {
		if s.Model != "big" {
			t.Fatalf("step %+v", s)
		}
	}
	q := buildRouted(t, routed(t, "big", "small"), planning.Preferences{MaxBudgetUSD: &budget})
	for _, s := range q.Sequence {
		if s.Kind == "content" && s.Model != "small" {
			t.Fatalf("budget rule 1 under a policy with tier 2: step %+v", s)
		}
	}
}

func TestPlannerKnowsItsModels(t *testing.T) {
	if len(planning.NewPlanner(cat).Models().Known()) != 0 {
		t.Fatal("a default planner knows models")
	}
	if got := planning.NewPlanner(cat, planning.WithModels(models)).Models().Default(2); got != "small" {
		t.Fatalf("tier-2 default %q", got)
	}
}
