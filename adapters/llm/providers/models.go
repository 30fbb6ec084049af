package providers

import (
	"strings"

	"svc/adapters/llm/offline"
	"svc/adapters/llm/openai"
	"svc/domain/planning"
)

// Models names the models the provider FromEnv builds routes to, by tier,
// the primary's before the fallback's, defaults applied: the names a
// workspace's llm policy may allow. The offline writer is one model
// serving both tiers.
func Models(getenv func(string) string) planning.Models {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	base, fbBase := env(envBaseURL), env(envFallbackBaseURL)
	if base == "" {
		return planning.Models{Tier1: []string{offline.Model}, Tier2: []string{offline.Model}}
	}
	var m planning.Models
	add := func(baseURL, model, model2 string) {
		p, err := openai.New(openai.Config{BaseURL: baseURL, Model: model, ModelTier2: model2})
		if err != nil {
			return
		}
		if t1, t2, ok := openai.Models(p); ok {
			m.Tier1, m.Tier2 = append(m.Tier1, t1), append(m.Tier2, t2)
		}
	}
	model, model2 := env(envModel), env(envModelTier2)
	add(base, model, model2)
	if fbBase != "" {
		fbModel, fbModel2 := env(envFallbackModel), env(envFallbackModelTier2)
		if fbModel == "" {
			fbModel, fbModel2 = model, model2
		}
		add(fbBase, fbModel, fbModel2)
	}
	return m
}
