package llm

import (
	"fmt"
	"log/slog"
	"strings"
)

// Environment variables read by FromEnv. The *_FALLBACK_MODEL* ones are
// this project's own (the operations contract names the others); unset,
// the fallback uses the primary's models.
const (
	EnvBaseURL            = "SVC_LLM_BASE_URL"
	EnvAPIKey             = "SVC_LLM_API_KEY"
	EnvModel              = "SVC_LLM_MODEL"
	EnvModelTier2         = "SVC_LLM_MODEL_TIER2"
	EnvFallbackBaseURL    = "SVC_LLM_FALLBACK_BASE_URL"
	EnvFallbackAPIKey     = "SVC_LLM_FALLBACK_API_KEY"
	EnvFallbackModel      = "SVC_LLM_FALLBACK_MODEL"
	EnvFallbackModelTier2 = "SVC_LLM_FALLBACK_MODEL_TIER2"
)

// FromEnv builds the chain from SVC_LLM_BASE_URL, SVC_LLM_API_KEY,
// SVC_LLM_MODEL, SVC_LLM_MODEL_TIER2, SVC_LLM_FALLBACK_BASE_URL,
// SVC_LLM_FALLBACK_API_KEY (unset base URL: the offline writer alone).
// getenv is os.Getenv in production. Models default to DefaultModel and
// DefaultModelTier2 (a set SVC_LLM_MODEL alone serves both tiers). A base
// URL that does not parse is an error matching ErrConfig.
func FromEnv(getenv func(string) string, log *slog.Logger) (Provider, error) {
	if log == nil {
		log = slog.Default()
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	base, fbBase := env(EnvBaseURL), env(EnvFallbackBaseURL)
	if base == "" {
		if fbBase != "" {
			log.Warn("llm: " + EnvFallbackBaseURL + " is ignored without " + EnvBaseURL + "; using the offline writer")
		}
		log.Info("llm provider", "provider", OfflineProvider, "model", OfflineModel)
		return NewOffline(), nil
	}
	model, model2 := env(EnvModel), env(EnvModelTier2)
	primary, err := NewOpenAI(OpenAIConfig{BaseURL: base, APIKey: env(EnvAPIKey), Model: model, ModelTier2: model2, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvBaseURL, err)
	}
	var fallback Provider
	if fbBase != "" {
		fbModel, fbModel2 := env(EnvFallbackModel), env(EnvFallbackModelTier2)
		if fbModel == "" {
			fbModel, fbModel2 = model, model2
		}
		fallback, err = NewOpenAI(OpenAIConfig{BaseURL: fbBase, APIKey: env(EnvFallbackAPIKey), Model: fbModel, ModelTier2: fbModel2, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvFallbackBaseURL, err)
		}
	}
	p := NewChain(primary, fallback, log)
	if o, ok := primary.(*openAI); ok {
		log.Info("llm provider", "provider", p.Name(), "model", o.cfg.Model, "model_tier2", o.cfg.ModelTier2)
	}
	return p, nil
}
