package dedupq

import (
	"slices"
	"sync"
	"time"
)

// Index is the semantic index of one organization's results by one
// embedder, in memory: a cache of the read model, which the caller keeps
// up to date (Upsert). A search scans the sketches (32 bytes each), keeps
// at most MaxCandidates within the Hamming bound of the threshold, ranks
// them by their quantised cosine and returns the closest fresh one the
// guard lets through.
type Index struct {
	mu      sync.RWMutex
	slots   map[string]int
	entries []Stored
	sketch  []Sketch
}

// MaxCandidates bounds the candidates whose cosine a search computes.
const MaxCandidates = 256

// Stored is a result as the index keeps it.
type Stored struct {
	Hash, TaskID string
	ActualCost   float64
	CachedAt     time.Time
	ExpiresAt    time.Time
	Vector       []byte
	Scale        float32
	// Sketch is the vector's stored sketch (Sketch.Bytes); computed from
	// Vector when empty.
	Sketch []byte
	// Guard is the content's encoded Signature.
	Guard string
}

// NewIndex is an empty index.
func NewIndex() *Index { return &Index{slots: map[string]int{}} }

// Len is the number of results indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// Fresh reports whether the index holds a result of hash fresh at now.
func (x *Index) Fresh(hash string, now time.Time) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	i, ok := x.slots[hash]
	return ok && now.Before(x.entries[i].ExpiresAt)
}

// Compact drops the results expired at now; it returns how many it
// dropped.
func (x *Index) Compact(now time.Time) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	kept, sketches := x.entries[:0], x.sketch[:0]
	slots := make(map[string]int, len(x.entries))
	for i, e := range x.entries {
		if now.Before(e.ExpiresAt) {
			slots[e.Hash] = len(kept)
			kept, sketches = append(kept, e), append(sketches, x.sketch[i])
		}
	}
	dropped := len(x.entries) - len(kept)
	clear(x.entries[len(kept):])
	x.entries, x.sketch, x.slots = kept, sketches, slots
	return dropped
}

// Upsert adds s, or replaces the result of the same hash.
func (x *Index) Upsert(s Stored) {
	sk, ok := SketchFromBytes(s.Sketch)
	if !ok {
		sk = SketchOf(Dequantize(s.Vector, s.Scale))
	}
	s.Sketch = nil
	x.mu.Lock()
	defer x.mu.Unlock()
	if i, ok := x.slots[s.Hash]; ok {
		x.entries[i], x.sketch[i] = s, sk
		return
	}
	x.slots[s.Hash] = len(x.entries)
	x.entries = append(x.entries, s)
	x.sketch = append(x.sketch, sk)
}

// Hit is a search's answer: the stored result and its cosine.
type Hit struct {
	Stored
	Similarity float64
}

// Query is one search: the content's unit vector and signature, the
// threshold, the time results must be fresh at, and a hash to leave out
// (the content's own: the exact tier answers it).
type Query struct {
	Vector    []float32
	Signature Signature
	Threshold float64
	Now       time.Time
	Exclude   string
}

// Search returns the closest fresh result at or above the threshold that
// the guard lets through (ok false for none), and, when a closer one was
// refused, the guard's reason.
func (x *Index) Search(q Query) (best Hit, refused string, ok bool) {
	qs := SketchOf(q.Vector)
	bound := hammingBound(q.Threshold)
	type cand struct{ i, d int }
	x.mu.RLock()
	defer x.mu.RUnlock()
	var cands []cand
	for i := range x.sketch {
		if d := Hamming(&qs, &x.sketch[i]); d <= bound {
			cands = append(cands, cand{i, d})
		}
	}
	if len(cands) > MaxCandidates { // the closest MaxCandidates, in linear time
		var count [sketchBits + 1]int
		for _, c := range cands {
			count[c.d]++
		}
		cut, total := 0, 0
		for cut = range count {
			if total += count[cut]; total >= MaxCandidates {
				break
			}
		}
		kept, atCut := cands[:0], MaxCandidates-(total-count[cut])
		for _, c := range cands {
			if c.d < cut || (c.d == cut && atCut > 0) {
				if c.d == cut {
					atCut--
				}
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	hits := make([]Hit, 0, len(cands))
	for _, c := range cands {
		s := x.entries[c.i]
		if s.Hash == q.Exclude || !q.Now.Before(s.ExpiresAt) {
			continue
		}
		if sim := Dot(q.Vector, s.Vector, s.Scale); sim >= q.Threshold {
			hits = append(hits, Hit{Stored: s, Similarity: min(sim, 1)})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		switch {
		case a.Similarity > b.Similarity:
			return -1
		case a.Similarity < b.Similarity:
			return 1
		}
		return 0
	})
	for _, h := range hits {
		if reason := Conflict(q.Signature, DecodeSignature(h.Guard)); reason != "" {
			if refused == "" {
				refused = reason
			}
			continue
		}
		return h, refused, true
	}
	return Hit{}, refused, false
}
