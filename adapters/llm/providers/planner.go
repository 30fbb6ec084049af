package providers

import (
	"strings"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/classify"
	"svc/domain/planning"
)

// FallbackTimeout is how long the planner waits for the llm tier before
// its own answer stands.
const FallbackTimeout = 3 * time.Second

// PlannerOptions are the planner's options for the configured providers:
// the models they route to (Models) and, when SVC_LLM_BASE_URL is set,
// the llm classification tier over p (classify.New, given up after
// FallbackTimeout). Offline (or with a nil p) there is no llm tier.
func PlannerOptions(getenv func(string) string, p llm.Provider) []planning.Option {
	opts := []planning.Option{planning.WithModels(Models(getenv))}
	if p != nil && strings.TrimSpace(getenv(envBaseURL)) != "" {
		opts = append(opts, planning.WithFallback(classify.New(p), FallbackTimeout))
	}
	return opts
}
