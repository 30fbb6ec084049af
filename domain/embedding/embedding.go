// Package embedding turns texts into vectors whose cosine says how alike
// the texts are. Local is the deterministic embedder the service uses when
// no provider is configured (no model is downloaded at run time): signed
// feature hashing of a text's words, word pairs and character trigrams.
// A provider's embeddings (the LLM port's /v1/embeddings) implement the
// same Embedder interface. Planning's embedding tier and the suite's
// semantic cache share it.
package embedding

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Embedder embeds texts, one vector per text, all of the same length.
type Embedder interface {
	// Name identifies the embedder and its model ("local-hash-512", a
	// provider's model); vectors of different names do not compare.
	Name() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// LocalDim is the length of Local's vectors.
const LocalDim = 512

// Local is the deterministic, network-free embedder.
type Local struct{}

// Name names the local embedder and its length.
func (Local) Name() string { return "local-hash-512" }

// Embed embeds each text; it never fails.
func (l Local) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = l.Vector(t)
	}
	return out, nil
}

// Weights of the feature kinds: a whole word says most, a word pair adds
// order, character trigrams meet inflections and typos ("analyse",
// "analysis", "anaylsis").
const (
	wordWeight    = 1.0
	pairWeight    = 0.6
	trigramWeight = 0.35
)

// Vector embeds one text: a unit vector, or all zeros for a text without
// words.
func (Local) Vector(text string) []float32 {
	v := make([]float64, LocalDim)
	words := Words(text)
	for i, w := range words {
		add(v, "w:"+w, wordWeight)
		if i > 0 {
			add(v, "p:"+words[i-1]+" "+w, pairWeight)
		}
		padded := "#" + w + "#"
		r := []rune(padded)
		if len(r) > 4 {
			n := float64(len(r) - 2)
			for j := 0; j+3 <= len(r); j++ {
				add(v, "t:"+string(r[j:j+3]), trigramWeight/math.Sqrt(n))
			}
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, LocalDim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// add hashes a feature into v with a sign taken from the hash, so
// collisions cancel out on average instead of piling up.
func add(v []float64, feature string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	x := h.Sum64()
	i := int(x % LocalDim)
	if x>>63 == 1 {
		weight = -weight
	}
	v[i] += weight
}

// Words are the lower-cased, accent-folded words of text, without the
// commonest function words.
func Words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(fold(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on for with at by from as is are be was were it its this that
	these those we our you your i me my they their please can could would should will do does`) {
		m[w] = true
	}
	return m
}()

// Cosine is the cosine of two vectors of one length (unit vectors give
// their dot product).
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
