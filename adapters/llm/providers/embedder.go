package providers

import (
	"fmt"
	"log/slog"
	"strings"

	"svc/adapters/llm/openai"
	"svc/domain/embedding"
)

// envEmbeddingModel names the provider's embedding model (this project's
// own variable; default openai.DefaultEmbeddingModel).
const envEmbeddingModel = "SVC_LLM_EMBEDDING_MODEL"

// EmbedderFromEnv builds the provider's embedder: POST
// {SVC_LLM_BASE_URL}/v1/embeddings with SVC_LLM_API_KEY and the model of
// SVC_LLM_EMBEDDING_MODEL (default text-embedding-3-small). Offline
// (SVC_LLM_BASE_URL unset) it returns nil and no error: the caller keeps
// embedding.Local. The fallback provider is not used for embeddings
// (vectors of two models do not compare). A base URL that does not parse
// is an error matching llm.ErrConfig. getenv is os.Getenv in production.
func EmbedderFromEnv(getenv func(string) string, log *slog.Logger) (embedding.Embedder, error) {
	if log == nil {
		log = slog.Default()
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	base := env(envBaseURL)
	if base == "" {
		return nil, nil
	}
	e, err := openai.NewEmbedder(openai.Config{BaseURL: base, APIKey: env(envAPIKey), Logger: log}, env(envEmbeddingModel))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envBaseURL, err)
	}
	log.Info("llm embeddings", "embedder", e.Name())
	return e, nil
}
