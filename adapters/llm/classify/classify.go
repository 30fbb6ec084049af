// Package classify is planning's llm tier over the LLM port: Classifier
// implements planning.Fallback with one llm.KindClassify call that lists
// the catalogue's task types and asks the model for one of their ids and
// a confidence.
package classify

import (
	"context"
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/domain/catalog"
	"svc/domain/planning"
)

// Tier is the model tier of a classify call: the tier-2 model (the
// answer is a few tokens and the planner waits for it).
const Tier = 2

// MaxTokens bounds the answer: one short JSON object.
const MaxTokens = 60

// Classifier asks a provider for a description's task type.
type Classifier struct {
	p llm.Provider
}

var _ planning.Fallback = (*Classifier)(nil)

// New returns a Classifier calling p.
func New(p llm.Provider) *Classifier { return &Classifier{p: p} }

// ClassifyTask asks the provider which of types description is: a
// KindClassify call listing each type's id, label and one-line
// description. It returns the id the answer names (always one of types)
// and the answer's confidence in [0, 1]; a failed call, a malformed answer
// or no types at all is an error, and the planner then keeps its own
// answer.
func (c *Classifier) ClassifyTask(ctx context.Context, description string, types []catalog.TaskType) (string, float64, error) {
	if len(types) == 0 {
		return "", 0, fmt.Errorf("classify: %w: no task types to choose from", llm.ErrBadRequest)
	}
	r := llm.Request{Kind: llm.KindClassify, Tier: Tier, Description: description, Choices: Choices(types), MaxTokens: MaxTokens}
	resp, err := c.p.Complete(ctx, r)
	if err != nil {
		return "", 0, fmt.Errorf("classify: %w", err)
	}
	cl, err := llm.ParseClassification(resp.Text, r.Choices)
	if err != nil {
		return "", 0, fmt.Errorf("classify: %w", err)
	}
	return cl.TaskType, cl.Confidence, nil
}

// Choices are the task types as a classify call lists them: id, label and
// the first sentence of the classifier's description (the capability
// when there is none).
func Choices(types []catalog.TaskType) []llm.TaskChoice {
	out := make([]llm.TaskChoice, len(types))
	for i, t := range types {
		d := firstSentence(t.Description)
		if d == "" {
			d = firstSentence(t.Capability)
		}
		out[i] = llm.TaskChoice{ID: t.ID, Label: t.Label, Description: d}
	}
	return out
}

// firstSentence is s's text up to its first full stop followed by a
// space, on one line.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
