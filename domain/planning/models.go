package planning

import (
	"fmt"
	"slices"
	"strings"
)

// Models are the language models the service can route calls to, by
// tier, in preference order: the primary provider's model first, then the
// fallback's (SVC_LLM_MODEL and SVC_LLM_FALLBACK_MODEL serve tier 1,
// SVC_LLM_MODEL_TIER2 and SVC_LLM_FALLBACK_MODEL_TIER2 tier 2). A name may
// serve both tiers (SVC_LLM_MODEL alone).
type Models struct {
	Tier1, Tier2 []string
}

// of is the list of tier t (tier 1 for anything but 2).
func (m Models) of(t int) []string {
	if t == 2 {
		return m.Tier2
	}
	return m.Tier1
}

// Known are the distinct model names, tier 1's first, in order: the names
// a workspace's llm policy may allow.
func (m Models) Known() []string {
	out := []string{}
	for _, n := range append(slices.Clone(m.Tier1), m.Tier2...) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Default is the model serving tier t without a policy ("" when none is
// configured).
func (m Models) Default(t int) string {
	if l := m.of(t); len(l) > 0 {
		return l[0]
	}
	return ""
}

// Canonical is the known spelling of name, compared without regard to
// case or surrounding space; ok is false for a name no tier serves.
func (m Models) Canonical(name string) (string, bool) {
	name = strings.TrimSpace(name)
	for _, k := range m.Known() {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}

// Route is where the calls of one tier go: the model, and the tier it is
// priced and served at (the other tier's when the policy substituted).
type Route struct {
	Model string
	Tier  int
}

// Routing is how a workspace's llm policy routes each tier's calls.
type Routing struct {
	// Allowed is the policy's allowed_models.
	Allowed      []string
	Tier1, Tier2 Route
	// defaults are the models each tier uses without a policy.
	default1, default2 string
}

// For is the route of tier t's calls (tier 1 for anything but 2).
func (r *Routing) For(t int) Route {
	if t == 2 {
		return r.Tier2
	}
	return r.Tier1
}

// defaultOf is the model tier t uses without the policy.
func (r *Routing) defaultOf(t int) string {
	if t == 2 {
		return r.default2
	}
	return r.default1
}

// Allows reports whether the policy allows model.
func (r *Routing) Allows(model string) bool { return slices.Contains(r.Allowed, model) }

// ModelNotAllowedError refuses a plan or a run that no allowed model can
// serve: none of Allowed is configured (Available), or a stored plan
// records Disallowed models the policy no longer allows.
type ModelNotAllowedError struct {
	Allowed    []string
	Available  []string
	Disallowed []string
}

func (e *ModelNotAllowedError) Error() string {
	if len(e.Disallowed) > 0 {
		return fmt.Sprintf("the plan uses %s, which the workspace's llm policy does not allow (allowed: %s)",
			strings.Join(e.Disallowed, ", "), strings.Join(e.Allowed, ", "))
	}
	return fmt.Sprintf("no model the workspace's llm policy allows (%s) is available (available: %s)",
		strings.Join(e.Allowed, ", "), strings.Join(e.Available, ", "))
}

// Route decides how a policy allowing allowed routes calls: each tier's
// calls go to its first allowed model (the primary provider's before the
// fallback's); a tier with none goes to the nearest tier's, the other
// one (a tier-2 step then runs, and is priced, as tier 1, and the reverse).
// When no allowed model is configured at all the answer is a
// *ModelNotAllowedError.
func (m Models) Route(allowed []string) (*Routing, error) {
	r := &Routing{Allowed: slices.Clone(allowed), default1: m.Default(1), default2: m.Default(2)}
	first := func(t int) (Route, bool) {
		for _, n := range m.of(t) {
			if slices.Contains(allowed, n) {
				return Route{Model: n, Tier: t}, true
			}
		}
		return Route{}, false
	}
	for t := 1; t <= 2; t++ {
		rt, ok := first(t)
		if !ok {
			rt, ok = first(3 - t)
		}
		if !ok {
			return nil, &ModelNotAllowedError{Allowed: slices.Clone(allowed), Available: m.Known()}
		}
		if t == 1 {
			r.Tier1 = rt
		} else {
			r.Tier2 = rt
		}
	}
	return r, nil
}

// route sets each step's model and the tier it is served and priced at
// under r (nil: no policy, the tier asked for), then prices the steps.
func route(plan *Plan, r *Routing) {
	for i := range plan.Sequence {
		s := &plan.Sequence[i]
		if s.want == 0 {
			s.want = s.ModelTier
		}
		s.ModelTier, s.Model = s.want, ""
		if r != nil {
			rt := r.For(s.want)
			s.ModelTier, s.Model = rt.Tier, rt.Model
		}
	}
	number(plan)
}

// policyNotes tells how the workspace's policy shaped plan: an info line,
// and a model_substituted warning per substitution (a step whose tier's
// usual model is not allowed).
func policyNotes(plan *Plan, r *Routing) {
	if r == nil {
		return
	}
	plan.Info = append(plan.Info, "The workspace's model policy applies: steps use only "+strings.Join(r.Allowed, ", ")+".")
	type sub struct {
		from, to string
		fromTier int
		toTier   int
	}
	var order []sub
	steps := map[sub][]string{}
	for _, s := range plan.Sequence {
		from := r.defaultOf(s.want)
		if from == "" || from == s.Model {
			continue
		}
		k := sub{from: from, to: s.Model, fromTier: s.want, toTier: s.ModelTier}
		if _, ok := steps[k]; !ok {
			order = append(order, k)
		}
		steps[k] = append(steps[k], fmt.Sprintf("%d (%s)", s.Step, s.Name))
	}
	for _, k := range order {
		msg := fmt.Sprintf("The workspace's model policy does not allow %s, the tier-%d model: step %s uses %s instead",
			k.from, k.fromTier, strings.Join(steps[k], ", "), k.to)
		if len(steps[k]) > 1 {
			msg = fmt.Sprintf("The workspace's model policy does not allow %s, the tier-%d model: steps %s use %s instead",
				k.from, k.fromTier, strings.Join(steps[k], ", "), k.to)
		}
		if k.toTier != k.fromTier {
			msg += fmt.Sprintf(", priced as tier %d", k.toTier)
		}
		plan.Warnings = append(plan.Warnings, Warning{Code: "model_substituted", Message: msg + ".",
			Suggestion: "Accept the substitution, or ask an admin to add " + k.from + " to the workspace's allowed_models (PUT /api/workspaces/{id}/llm-policy)."})
	}
}
