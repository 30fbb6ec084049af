// Package providers builds the LLM provider the service uses from its
// configuration: the offline writer, or an OpenAI-compatible client with an
// optional OpenAI-compatible fallback behind a chain. With a provider
// configured it also gives the planner its llm classification tier
// (PlannerOptions) and builds the provider's embedder (EmbedderFromEnv).
package providers

import (
	"fmt"
	"log/slog"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/chain"
	"svc/adapters/llm/offline"
	"svc/adapters/llm/openai"
)

// Environment variables read by FromEnv. The *_FALLBACK_MODEL* ones are
// this project's own (the operations contract names the others); unset,
// the fallback uses the primary's models.
const (
	envBaseURL            = "SVC_LLM_BASE_URL"
	envAPIKey             = "SVC_LLM_API_KEY"
	envModel              = "SVC_LLM_MODEL"
	envModelTier2         = "SVC_LLM_MODEL_TIER2"
	envFallbackBaseURL    = "SVC_LLM_FALLBACK_BASE_URL"
	envFallbackAPIKey     = "SVC_LLM_FALLBACK_API_KEY"
	envFallbackModel      = "SVC_LLM_FALLBACK_MODEL"
	envFallbackModelTier2 = "SVC_LLM_FALLBACK_MODEL_TIER2"
)

// FromEnv builds the chain from SVC_LLM_BASE_URL, SVC_LLM_API_KEY,
// SVC_LLM_MODEL, SVC_LLM_MODEL_TIER2, SVC_LLM_FALLBACK_BASE_URL,
// SVC_LLM_FALLBACK_API_KEY (unset base URL: the offline writer alone).
// getenv is os.Getenv in production. Models default to those of openai.New
// (a set SVC_LLM_MODEL alone serves both tiers). A base URL that does not
// parse is an error matching llm.ErrConfig.
func FromEnv(getenv func(string) string, log *slog.Logger) (llm.Provider, error) {
	if log == nil {
		log = slog.Default()
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	base, fbBase := env(envBaseURL), env(envFallbackBaseURL)
	if base == "" {
		if fbBase != "" {
			log.Warn("llm: " + envFallbackBaseURL + " is ignored without " + envBaseURL + "; using the offline writer")
		}
		log.Info("llm provider", "provider", offline.Name, "model", offline.Model)
		return offline.New(), nil
	}
	model, model2 := env(envModel), env(envModelTier2)
	primary, err := openai.New(openai.Config{BaseURL: base, APIKey: env(envAPIKey), Model: model, ModelTier2: model2, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envBaseURL, err)
	}
	var fallback llm.Provider
	if fbBase != "" {
		fbModel, fbModel2 := env(envFallbackModel), env(envFallbackModelTier2)
		if fbModel == "" {
			fbModel, fbModel2 = model, model2
		}
		fallback, err = openai.New(openai.Config{BaseURL: fbBase, APIKey: env(envFallbackAPIKey), Model: fbModel, ModelTier2: fbModel2, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envFallbackBaseURL, err)
		}
	}
	p := chain.New(primary, fallback, log)
	if tier1, tier2, ok := openai.Models(primary); ok {
		log.Info("llm provider", "provider", p.Name(), "model", tier1, "model_tier2", tier2)
	}
	return p, nil
}
