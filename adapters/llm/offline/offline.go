// Package offline is the built-in LLM provider: a writer that composes
// framework-shaped answers from the request itself (the description's key
// phrases, the task label, the context, the guidance and the earlier
// steps), without a network, randomness or clock reads. It answers every
// kind of call of the llm port but KindClassify (planning has no llm tier
// offline: it refuses it with llm.ErrBadRequest), and the two shapes of
// direct execution.
package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
	"svc/adapters/llm/prompt"
)

// Model and Name name the offline writer in a Response (Model, Provider)
// and as a provider (Name).
const (
	Model = "offline-writer"
	Name  = "offline"
)

// writer is the built-in writer.
type writer struct{}

// New returns the built-in writer: deterministic (the same Request always
// gives the same Response), network-free and without randomness or clock
// reads. It composes framework-shaped content from the request: the
// description's key phrases, the task label, the context, the guidance and
// the earlier steps. It does no research and no translation; a request in
// another language gets a one-line note saying the text is in English.
func New() llm.Provider { return writer{} }

// Name returns "offline".
func (writer) Name() string { return Name }

// Complete writes the answer of r. Usage is estimated as characters/4 of
// the prompt a network provider would have been sent and of the answer;
// cost is 0, latency 0, one attempt.
func (writer) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("llm offline: %w", err)
	}
	text, err := offlineText(r)
	if err != nil {
		return llm.Response{}, fmt.Errorf("llm offline: %w", err)
	}
	if text, err = llm.ValidateAnswer(r, text); err != nil {
		return llm.Response{}, fmt.Errorf("llm offline: %w", err)
	}
	in := 0
	for _, m := range prompt.Build(r) {
		in += utf8.RuneCountInString(m.Content)
	}
	return llm.Response{
		Text:     text,
		Model:    Model,
		Provider: Name,
		Usage:    llm.Usage{PromptTokens: textutil.EstimateTokens(in), CompletionTokens: textutil.EstimateTokens(utf8.RuneCountInString(text))},
		Attempts: 1,
	}, nil
}

// offlineText writes the answer text of r for its kind.
func offlineText(r llm.Request) (string, error) {
	switch {
	case r.Composed():
		return writeComposed(r)
	case r.ContractSynthesis():
		return writeContract(r), nil
	}
	switch r.Kind {
	case llm.KindStep:
		out, err := writeStep(r)
		if err != nil {
			return "", err
		}
		return marshal(out)
	case llm.KindSynthesis:
		d, err := writeDeliverable(r)
		if err != nil {
			return "", err
		}
		return marshal(d)
	case llm.KindReview:
		rv, err := reviewDeliverable(r)
		if err != nil {
			return "", err
		}
		return marshal(rv)
	case llm.KindEnhance:
		return writeEnhanced(r), nil
	case llm.KindCheck:
		rv, err := judgeOutput(r)
		if err != nil {
			return "", err
		}
		return marshal(rv)
	case llm.KindClassify:
		return "", fmt.Errorf("%w: the offline writer does not classify (no llm tier offline)", llm.ErrBadRequest)
	}
	return "", fmt.Errorf("%w: unknown kind %q", llm.ErrBadRequest, r.Kind)
}

// marshal encodes v as JSON without HTML escaping.
func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode answer: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}

// brief is what the offline writer knows of the task.
type brief struct {
	subject    string   // noun phrase for the task
	short      string   // its head, for later mentions
	label      string   // task label, lower-cased for use mid-sentence
	phrases    []string // key phrases of the description
	context    string   // opening of the context, clipped
	guidance   string   // guidance, clipped
	compressed bool     // the compressed strategy: shorter writing
}

// newBrief extracts the brief of r.
func newBrief(r llm.Request) brief {
	b := brief{
		subject:    subjectOf(r.Description),
		label:      taskLabel(r),
		phrases:    keyPhrases(r.Description, 8),
		context:    textutil.Clip(textutil.OneLine(r.Context), 240),
		guidance:   textutil.Clip(textutil.OneLine(r.Guidance), 240),
		compressed: r.Strategy == llm.StrategyCompressed,
	}
	if b.subject == "" {
		b.subject = "the " + b.label
	}
	b.short = headOf(b.subject)
	if r.Description == "" || b.short == b.subject && strings.HasPrefix(b.subject, "the ") {
		b.short = strings.TrimPrefix(b.short, "the ")
	}
	if len(b.phrases) == 0 {
		b.phrases = keyPhrases(r.Title+". "+r.TaskLabel, 8)
	}
	if len(b.phrases) == 0 {
		b.phrases = []string{b.subject}
	}
	return b
}

// taskLabel is the task label for use mid-sentence: TaskLabel, else the
// task type id in words, else "task".
func taskLabel(r llm.Request) string {
	l := strings.TrimSpace(r.TaskLabel)
	if l == "" {
		l = strings.ReplaceAll(strings.TrimSpace(r.TaskType), "_", " ")
	}
	if l == "" {
		return "task"
	}
	return lowerFirst(l)
}

// phrase returns the i-th key phrase, cycling.
func (b brief) phrase(i int) string { return b.phrases[i%len(b.phrases)] }

// distinctPhrases returns up to n different phrases starting at i.
func (b brief) distinctPhrases(i, n int) []string {
	n = min(n, len(b.phrases))
	out := make([]string, 0, n)
	for k := range n {
		out = append(out, b.phrase(i+k))
	}
	return out
}

// withNote prefixes text with the language note of lang, if any.
func withNote(lang, text string) string {
	if note := languageNote(lang); note != "" {
		return note + "\n" + text
	}
	return text
}
