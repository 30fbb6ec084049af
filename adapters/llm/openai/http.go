package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
	"svc/adapters/llm/prompt"
)

// maxAnswerBytes bounds the body read from a provider.
const maxAnswerBytes = 16 << 20

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	Model          string           `json:"model"`
	Messages       []prompt.Message `json:"messages"`
	MaxTokens      int              `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat  `json:"response_format,omitempty"`
}

// responseFormat asks for a JSON object answer.
type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is the part of the answer the client reads.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// answer is a validated answer of one attempt.
type answer struct {
	text  string
	model string
	usage llm.Usage
}

// classifyMaxTokens bounds a classify call's answer when the request sets
// no limit: the answer is one short JSON object.
const classifyMaxTokens = 60

// chatBody encodes the request body of r for model.
func chatBody(r llm.Request, model string) ([]byte, error) {
	req := chatRequest{Model: model, Messages: prompt.Build(r), MaxTokens: r.MaxTokens}
	if r.Kind == llm.KindClassify && req.MaxTokens <= 0 {
		req.MaxTokens = classifyMaxTokens
	}
	if llm.JSONKind(r.Kind) {
		req.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}

// attempt makes one HTTP attempt under the per-attempt timeout and
// validates the answer for the request r.
func (c *provider) attempt(ctx context.Context, body []byte, r llm.Request) (answer, error) {
	data, err := c.post(ctx, c.endpoint, body)
	if err != nil {
		return answer{}, err
	}
	return parseAnswer(data, r)
}

// post makes one HTTP attempt, POST body to endpoint under the
// per-attempt timeout with the bearer token, and returns the 2xx answer's
// body; a status outside 2xx is a *statusError.
func (c *provider) post(ctx context.Context, endpoint string, body []byte) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, c.transportError(ctx, actx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{Code: resp.StatusCode, Body: textutil.Clip(textutil.OneLine(string(data)), 300),
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return data, nil
}

// transportError classifies a failed exchange: the attempt's own timeout,
// the caller's context, or a network error.
func (c *provider) transportError(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: no answer within %s (%v)", errAttemptTimeout, c.cfg.Timeout, err)
	}
	return fmt.Errorf("%w: %w", errNetwork, err)
}

// parseAnswer reads a chat-completions body and validates its text as an
// answer to r.
func parseAnswer(data []byte, r llm.Request) (answer, error) {
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return answer{}, fmt.Errorf("%w: body is not a chat completion: %w", llm.ErrMalformed, err)
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return answer{}, fmt.Errorf("%w: no choices[0].message.content", llm.ErrMalformed)
	}
	text, err := llm.ValidateAnswer(r, *cr.Choices[0].Message.Content)
	if err != nil {
		return answer{}, err
	}
	a := answer{text: text, model: cr.Model}
	if cr.Usage != nil {
		a.usage = llm.Usage{PromptTokens: cr.Usage.PromptTokens, CompletionTokens: cr.Usage.CompletionTokens}
	}
	return a, nil
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date; 0
// when absent or unreadable.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e6 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
