package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"svc/adapters/llm/prompt"
)

// chatRequest is the part of a chat-completions body the fake reads.
type chatRequest struct {
	Model          string           `json:"model"`
	Messages       []prompt.Message `json:"messages"`
	MaxTokens      int              `json:"max_tokens"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// ServeHTTP routes the fake API: chat completions, embeddings and the
// admin endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case strings.HasPrefix(path, adminPrefix):
		s.serveAdmin(w, r, strings.TrimPrefix(path, adminPrefix))
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		s.serveChat(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/embeddings"):
		s.serveEmbeddings(w, r)
	default:
		writeError(w, http.StatusNotFound, "fakellm: no route "+r.Method+" "+r.URL.Path)
	}
}

// serveChat answers one chat completion.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 32<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "fakellm: body: "+err.Error())
		return
	}
	system := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		system = req.Messages[0].Content
	}
	markers := prompt.Markers(system)
	c := Call{
		Kind: markers["kind"], Framework: markers["framework"], Markers: markers,
		Model: req.Model, Messages: req.Messages, MaxTokens: req.MaxTokens,
		JSONFormat:    req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object",
		Authorization: r.Header.Get("Authorization"),
	}
	rule := s.record(c, markersText(markers))
	if !wait(r, rule.Delay) {
		return
	}
	if rule.Status != 0 {
		if rule.RetryAfter != "" {
			w.Header().Set("Retry-After", rule.RetryAfter)
		}
		writeError(w, rule.Status, fmt.Sprintf("fakellm: rule %q answers %d", rule.Match, rule.Status))
		return
	}
	content := s.answer(c, userTask(req.Messages))
	if rule.Malformed {
		content = malformed(c)
	}
	if rule.Answer != "" {
		content = rule.Answer
	}
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)
	}
	body := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": (in + 3) / 4, "completion_tokens": (len(content) + 3) / 4,
			"total_tokens": (in+3)/4 + (len(content)+3)/4},
	}
	writeJSON(w, http.StatusOK, body)
}

// markersText is the text rules match: "kind=K framework=F ..." in a fixed
// key order.
func markersText(m map[string]string) string {
	var parts []string
	for _, k := range []string{"kind", "framework", "step", "strategy", "chunk", "composed", "contract"} {
		if v, ok := m[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// wait sleeps d; false when the client went away first.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// userTask returns the "## Task" part of the user message, or its start.
func userTask(msgs []prompt.Message) string {
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		t := m.Content
		if _, rest, ok := strings.Cut(t, "## Task\n"); ok {
			t, _, _ = strings.Cut(rest, "\n\n## ")
		}
		t = strings.Join(strings.Fields(t), " ")
		if len(t) > 120 {
			t = t[:120]
		}
		return t
	}
	return ""
}

// writeJSON writes v as a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "fakellm_error", "code": status}})
}
