package offline

import (
	"context"
	"errors"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
)

func TestClassifyRefused(t *testing.T) {
	if _, err := New().Complete(context.Background(), llmtest.Classify()); !errors.Is(err, llm.ErrBadRequest) {
		t.Fatalf("classify offline: %v, want ErrBadRequest", err)
	}
}
