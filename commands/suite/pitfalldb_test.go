package suite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"svc/domain/embedding"
)

// countingEmbedder is embedding.Local counting the texts it embeds, or
// failing.
type countingEmbedder struct {
	mu   sync.Mutex
	n    int
	fail bool
}

func (c *countingEmbedder) Name() string { return "counting" }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.n += len(texts)
	fail := c.fail
	c.mu.Unlock()
	if fail {
		return nil, errors.New("embedder down")
	}
	return embedding.Local{}.Embed(ctx, texts)
}

func TestVectorCache(t *testing.T) {
	ctx := context.Background()
	emb := &countingEmbedder{}
	v := newVectorCache(8)
	texts := []string{"query", "pitfall one", "pitfall two"}
	if _, err := v.embed(ctx, emb, texts); err != nil || emb.n != 3 {
		t.Fatalf("first: %d embedded, %v", emb.n, err)
	}
	// the pitfalls' texts are cached, the query's never
	out, err := v.embed(ctx, emb, texts)
	if err != nil || emb.n != 4 || len(out) != 3 || embedding.Cosine(out[1], embedding.Local{}.Vector("pitfall one")) < 0.999 {
		t.Fatalf("second: %d embedded, %v", emb.n, err)
	}
	// concurrent callers, and the cache emptied when full
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := v.embed(ctx, emb, []string{"q", fmt.Sprintf("text %d", i), fmt.Sprintf("text %d", i+1)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(v.m) > 8 {
		t.Fatalf("cache of %d entries, bound 8", len(v.m))
	}
	emb.fail = true
	if _, err := v.embed(ctx, emb, []string{"q", "new text"}); err == nil {
		t.Fatal("a failing embedder's error was lost")
	}
}
