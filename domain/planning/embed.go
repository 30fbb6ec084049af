package planning

import (
	"context"
	"sort"
	"sync"
	"time"

	"svc/domain/embedding"
)

// The embedding tier: when the lexical tier is unsure, the description's
// embedding is compared with the catalogue's examples, and a type whose
// examples are clearly nearest may decide. It uses the local embedder
// unless the planner is given a provider's (WithEmbedder); the catalogue
// is embedded once per embedder, lazily for a provider.

// embeddingIndex holds the catalogue's example vectors of one embedder.
type embeddingIndex struct {
	name  string
	vecs  [][]float32
	types []int // type index of each vector
}

// Embedding tier thresholds, tuned on test/classification/blind/dev.jsonl:
const (
	// embedBelow is the lexical confidence under which the tier is asked.
	embedBelow = FallbackBelow
	// embedMargin is how far the nearest type must lead the next one for
	// the tier to overrule the lexical answer.
	embedMargin = 0.04
)

// exampleTexts are the texts the index embeds: each type's examples and
// its label with its description.
func (cl *Classifier) exampleTexts() ([]string, []int) {
	var texts []string
	var types []int
	for i, t := range cl.types {
		texts = append(texts, t.Label+". "+t.Description)
		types = append(types, i)
		for _, ex := range t.Examples {
			texts = append(texts, ex)
			types = append(types, i)
		}
	}
	return texts, types
}

// buildIndex embeds the catalogue with e.
func (cl *Classifier) buildIndex(ctx context.Context, e embedding.Embedder) (*embeddingIndex, error) {
	texts, types := cl.exampleTexts()
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	return &embeddingIndex{name: e.Name(), vecs: vecs, types: types}, nil
}

// localIndex is the local embedder's index, built on first use.
func (cl *Classifier) localIndex() *embeddingIndex {
	cl.localOnce.Do(func() {
		cl.local, _ = cl.buildIndex(context.Background(), embedding.Local{})
	})
	return cl.local
}

// typeScore is a type's embedding score.
type typeScore struct {
	typ   int
	score float64
}

// nearest ranks the types by the mean cosine of their two examples
// nearest to q.
func (cl *Classifier) nearest(idx *embeddingIndex, q []float32) []typeScore {
	best := make([][2]float64, len(cl.types))
	for i, v := range idx.vecs {
		c := embedding.Cosine(q, v)
		b := &best[idx.types[i]]
		switch {
		case c > b[0]:
			b[1], b[0] = b[0], c
		case c > b[1]:
			b[1] = c
		}
	}
	out := make([]typeScore, len(cl.types))
	for i, b := range best {
		out[i] = typeScore{typ: i, score: (b[0] + b[1]) / 2}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].score > out[b].score })
	return out
}

// providerIndex embeds the catalogue with a provider's embedder in the
// background, on first use and again a minute after a failure; until it
// is ready the local index answers.
type providerIndex struct {
	e        embedding.Embedder
	mu       sync.Mutex
	idx      *embeddingIndex
	building bool
	tried    time.Time
}

// ready is the provider's index, or nil while it is not built.
func (p *providerIndex) ready(cl *Classifier) *embeddingIndex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idx != nil || p.building || time.Since(p.tried) < time.Minute {
		return p.idx
	}
	p.building, p.tried = true, time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		idx, err := cl.buildIndex(ctx, p.e)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.building = false
		if err == nil {
			p.idx = idx
		}
	}()
	return nil
}

// byEmbedding is the embedding tier: the nearest type of text and its lead
// over the next, through the provider's embedder when one is set and
// ready, else the local one.
func (cl *Classifier) byEmbedding(ctx context.Context, text string) (typ int, score, lead float64) {
	idx := cl.localIndex()
	var q []float32
	if p := cl.provider; p != nil {
		if pidx := p.ready(cl); pidx != nil {
			if v, err := p.e.Embed(ctx, []string{text}); err == nil && len(v) == 1 && len(v[0]) == len(pidx.vecs[0]) {
				idx, q = pidx, v[0]
			}
		}
	}
	if q == nil {
		q = embedding.Local{}.Vector(text)
	}
	if idx == nil {
		return -1, 0, 0
	}
	ranked := cl.nearest(idx, q)
	return ranked[0].typ, ranked[0].score, ranked[0].score - ranked[1].score
}

// SetEmbedder makes the embedding tier use e (a provider's embeddings);
// nil keeps the local embedder.
func (cl *Classifier) SetEmbedder(e embedding.Embedder) {
	if e == nil {
		cl.provider = nil
		return
	}
	cl.provider = &providerIndex{e: e}
}
