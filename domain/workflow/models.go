package workflow

// ModelRouting is the model each tier's calls of a run use, decided by
// the workspace's llm policy when the workflow was planned: the steps'
// own calls (PlannedStep.Model) and those the plan does not list as a
// step of that tier (the quality review at tier 1, direct execution's
// composed content call at tier 2).
type ModelRouting struct {
	Tier1 string `json:"tier1"`
	Tier2 string `json:"tier2"`
}

// ModelFor is the model calls of tier must use: "" when the plan was made
// without a policy (the provider's model for the tier).
func (p Planned) ModelFor(tier int) string {
	if p.Models == nil {
		return ""
	}
	if tier == 2 {
		return p.Models.Tier2
	}
	return p.Models.Tier1
}

// UsedModels are the models a run of the plan calls (its steps, direct
// execution's composed call, the quality review), given the provider's
// model of each tier (defaults) for the calls the plan routes to none;
// each once, in order.
func (p Planned) UsedModels(defaults func(tier int) string) []string {
	var out []string
	add := func(m string) {
		for _, x := range out {
			if x == m {
				return
			}
		}
		if m != "" {
			out = append(out, m)
		}
	}
	model := func(tier int, pinned string) string {
		if pinned != "" {
			return pinned
		}
		if m := p.ModelFor(tier); m != "" {
			return m
		}
		return defaults(tier)
	}
	for _, s := range p.Steps {
		if s.Kind == KindContent && p.Execution == "direct" { // composed, routed to tier 2 (the worker's request)
			add(model(2, ""))
			continue
		}
		add(model(max(s.Tier, 1), s.Model))
	}
	add(model(1, "")) // the quality review
	return out
}
