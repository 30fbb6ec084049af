package fakellm

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
)

// embeddingDims is the length of the fake's vectors.
const embeddingDims = 64

// serveEmbeddings answers POST /v1/embeddings with deterministic
// bag-of-words vectors: texts sharing words are close.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 32<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "fakellm: body: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "fakellm: input must be a string or an array of strings")
			return
		}
		inputs = []string{one}
	}
	c := Call{Kind: "embeddings", Markers: map[string]string{"kind": "embeddings"}, Model: req.Model, Authorization: r.Header.Get("Authorization")}
	rule := s.record(c, "kind=embeddings")
	if !wait(r, rule.Delay) {
		return
	}
	if rule.Status != 0 {
		writeError(w, rule.Status, "fakellm: rule answers error")
		return
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, in := range inputs {
		tokens += (len(in) + 3) / 4
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(in)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// embed hashes the words of text into a unit vector.
func embed(text string) []float64 {
	v := make([]float64, embeddingDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		x := h.Sum32()
		sign := 1.0
		if x&1 == 1 {
			sign = -1
		}
		v[(x>>1)%embeddingDims] += sign
	}
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}
