package burnrate

import (
	"fmt"
	"sort"
	"strings"
)

// Optimizing a plan: concrete substitutions, each priced against the plan
// as it is, ranked by what it saves.

// Suggestion kinds, in the order ties are ranked.
const (
	SuggestCheaperModel = "cheaper_model"
	SuggestCaching      = "prompt_caching"
	SuggestBatch        = "batch_api"
	SuggestFewerOutput  = "fewer_output_tokens"
)

// Thresholds of the suggestions.
const (
	// MinCachePrefix is the shortest prompt prefix providers cache.
	MinCachePrefix = 1024
	// LongOutput is the output, in tokens, above which a step is asked to
	// write about half as much.
	LongOutput = 1000
)

// Suggestion is one substitution.
type Suggestion struct {
	Kind  string
	Title string
	// Tradeoff is what the saving costs (quality, latency, ...).
	Tradeoff string
	// Steps are the labels of the steps it changes.
	Steps                        []any
	Provider, FromModel, ToModel string
	// Saving is what it saves on the plan as it is, USD.
	Saving float64
	// apply changes a copy of the plan's lines as the suggestion says.
	apply func(lines []Line)
	order int
	first int
}

// Suggest lists the plan's substitutions, largest saving first; factors
// are the organization's correction factors (for a substituted model).
func (p *Prices) Suggest(plan Plan, factors map[string]float64) []Suggestion {
	var out []Suggestion
	out = append(out, p.cheaperModels(plan, factors)...)
	out = append(out, caching(plan)...)
	out = append(out, batching(plan)...)
	out = append(out, fewerOutput(plan)...)
	kept := out[:0]
	for _, s := range out {
		if RoundUSD(s.Saving) > 0 {
			kept = append(kept, s)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if RoundUSD(a.Saving) != RoundUSD(b.Saving) {
			return a.Saving > b.Saving
		}
		if a.order != b.order {
			return a.order < b.order
		}
		return a.first < b.first
	})
	return kept
}

// Apply is plan with suggestions applied in their order.
func Apply(plan Plan, suggestions []Suggestion) Plan {
	out := plan.clone()
	for _, s := range suggestions {
		if s.apply != nil {
			s.apply(out.Lines)
		}
	}
	return out
}

// group is the steps of one provider's model, in plan order.
type group struct {
	key   string
	lines []int
}

func groups(plan Plan, key func(Line) string) []group {
	var out []group
	at := map[string]int{}
	for i, l := range plan.Lines {
		k := key(l)
		if k == "" {
			continue
		}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, group{key: k})
		}
		out[j].lines = append(out[j].lines, i)
	}
	return out
}

func labels(plan Plan, idx []int) []any {
	out := make([]any, len(idx))
	for i, j := range idx {
		out[i] = plan.Lines[j].Label
	}
	return out
}

// stepsText names steps: "step 2", "steps 1, 3 and 4".
func stepsText(ls []any) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprint(l)
	}
	if len(parts) == 1 {
		return "step " + parts[0]
	}
	return "steps " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// cheaperModels: each model of the plan replaced by the next cheaper
// current model of its family.
func (p *Prices) cheaperModels(plan Plan, factors map[string]float64) []Suggestion {
	var out []Suggestion
	for _, g := range groups(plan, Line.Key) {
		from := plan.Lines[g.lines[0]].Model
		to, ok := p.Substitute(from)
		if !ok {
			continue
		}
		factor := 1.0
		if f, ok := factors[Key(to.Provider, to.Name)]; ok && f > 0 {
			factor = f
		}
		saving := 0.0
		for _, i := range g.lines {
			l := plan.Lines[i]
			n := l
			n.Model, n.Factor = to, factor
			saving += l.TokenCost() - n.TokenCost()
		}
		idx := g.lines
		ls := labels(plan, idx)
		out = append(out, Suggestion{Kind: SuggestCheaperModel, order: 0, first: idx[0],
			Title:    fmt.Sprintf("Use %s instead of %s for %s", to.Name, from.Name, stepsText(ls)),
			Tradeoff: "A smaller model of the same family: check its answers on these steps before switching.",
			Steps:    ls, Provider: from.Provider, FromModel: from.Name, ToModel: to.Name, Saving: saving,
			apply: func(lines []Line) {
				for _, i := range idx {
					lines[i].Model, lines[i].Factor = to, factor
				}
			}})
	}
	return out
}

// caching: steps of one model that send the same prompt prefix read it
// from the provider's cache after the first; the prefix is taken as the
// shortest uncached input of those steps.
func caching(plan Plan) []Suggestion {
	var out []Suggestion
	for _, g := range groups(plan, Line.Key) {
		m := plan.Lines[g.lines[0]].Model
		if !m.HasCache() {
			continue
		}
		var idx []int
		prefix := int64(-1)
		for _, i := range g.lines {
			l := plan.Lines[i]
			u := l.InputTokens - l.CacheReadTokens - l.CacheWriteTokens
			if u < MinCachePrefix {
				continue
			}
			idx = append(idx, i)
			if prefix < 0 || u < prefix {
				prefix = u
			}
		}
		if len(idx) < 2 {
			continue
		}
		apply := func(lines []Line) {
			for k, i := range idx {
				u := lines[i].InputTokens - lines[i].CacheReadTokens - lines[i].CacheWriteTokens
				n := min(prefix, max(u, 0))
				if k == 0 {
					if lines[i].Model.CacheWrite > 0 {
						lines[i].CacheWriteTokens += n
					}
					continue
				}
				lines[i].CacheReadTokens += n
			}
		}
		after := plan.clone()
		apply(after.Lines)
		saving := 0.0
		for _, i := range idx {
			saving += plan.Lines[i].TokenCost() - after.Lines[i].TokenCost()
		}
		ls := labels(plan, idx)
		out = append(out, Suggestion{Kind: SuggestCaching, order: 1, first: idx[0],
			Title: fmt.Sprintf("Cache the shared %d-token prompt prefix of %s on %s (put the common instructions and context first)",
				prefix, stepsText(ls), m.Name),
			Tradeoff: "None on quality; the prefix must be identical and the calls close together (the cache lives minutes).",
			Steps:    ls, Provider: m.Provider, FromModel: m.Name, ToModel: m.Name, Saving: saving, apply: apply})
	}
	return out
}

// batching: a provider's steps run through its batch API.
func batching(plan Plan) []Suggestion {
	var out []Suggestion
	for _, g := range groups(plan, func(l Line) string {
		if l.Model.Name == "" || l.Batch || l.BatchDiscount <= 0 {
			return ""
		}
		return l.Provider
	}) {
		saving := 0.0
		for _, i := range g.lines {
			l := plan.Lines[i]
			saving += l.TokenCost() * l.BatchDiscount
		}
		idx := g.lines
		ls := labels(plan, idx)
		d := plan.Lines[idx[0]].BatchDiscount
		out = append(out, Suggestion{Kind: SuggestBatch, order: 2, first: idx[0],
			Title:    fmt.Sprintf("Run %s through %s's batch API (%.0f%% off tokens)", stepsText(ls), g.key, d*100),
			Tradeoff: "Results arrive within 24 hours, not at once: only for steps nothing waits on.",
			Steps:    ls, Provider: g.key, Saving: saving,
			apply: func(lines []Line) {
				for _, i := range idx {
					lines[i].Batch = true
				}
			}})
	}
	return out
}

// fewerOutput: steps writing more than LongOutput tokens asked for about
// half.
func fewerOutput(plan Plan) []Suggestion {
	var idx []int
	saving := 0.0
	for i, l := range plan.Lines {
		if l.OutputTokens <= LongOutput || l.Model.Output == 0 {
			continue
		}
		idx = append(idx, i)
		n := l
		n.OutputTokens = halfOutput(l.OutputTokens)
		saving += l.TokenCost() - n.TokenCost()
	}
	if len(idx) == 0 {
		return nil
	}
	ls := labels(plan, idx)
	return []Suggestion{{Kind: SuggestFewerOutput, order: 3, first: idx[0],
		Title:    fmt.Sprintf("Cap the output of %s at about half (max_tokens, and ask for a concise answer)", stepsText(ls)),
		Tradeoff: "Shorter answers: keep the cap above what the next step needs.",
		Steps:    ls, Saving: saving,
		apply: func(lines []Line) {
			for _, i := range idx {
				lines[i].OutputTokens = halfOutput(lines[i].OutputTokens)
			}
		}}}
}

// halfOutput is half of n, rounded up to 50 tokens, at least LongOutput/2.
func halfOutput(n int64) int64 {
	h := (n/2 + 49) / 50 * 50
	return max(h, LongOutput/2)
}
