package workflow

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Chaining (spec A's prior_workflow_id): a workflow executed off a terminal
// workflow of the same org inherits the parts its context_fields name,
// rendered as text for the steps' prompts.
const (
	// MaxChainDepth is spec A's chain limit, in links (workflows).
	MaxChainDepth = 10
	// MaxInheritedTokens bounds the inherited context (context_too_large).
	MaxInheritedTokens = 32_000
	// CharsPerToken is the estimate of characters per token.
	CharsPerToken = 4
)

// The context_fields vocabulary, in the order the text renders them.
const (
	FieldTaskDescription   = "task_description"
	FieldAdditionalContext = "additional_context"
	FieldDeliverable       = "deliverable"
	FieldStepSummaries     = "step_summaries"
	FieldQualityReview     = "quality_review"
)

// ContextFields is the context_fields vocabulary.
var ContextFields = []string{FieldTaskDescription, FieldAdditionalContext, FieldDeliverable, FieldStepSummaries, FieldQualityReview}

// DefaultContextFields is what a chained execute without context_fields
// inherits.
var DefaultContextFields = []string{FieldDeliverable, FieldStepSummaries}

// Refusals of a chained execute.
var (
	ErrPriorNotFound    = errors.New("prior workflow not found")
	ErrPriorNotTerminal = errors.New("prior workflow is not in a terminal status")
	ErrChainDepth       = errors.New("chain over the maximum number of links")
	ErrContextTooLarge  = errors.New("inherited context over the maximum size")
)

// PriorNotTerminalError names the prior's status.
type PriorNotTerminalError struct{ Status string }

func (e *PriorNotTerminalError) Error() string {
	return fmt.Sprintf("prior workflow is %s, not terminal", e.Status)
}

// Unwrap makes errors.Is(err, ErrPriorNotTerminal) hold.
func (e *PriorNotTerminalError) Unwrap() error { return ErrPriorNotTerminal }

// ContextTooLargeError gives the estimate and the maximum, in tokens.
type ContextTooLargeError struct{ Estimated, Max int }

func (e *ContextTooLargeError) Error() string {
	return fmt.Sprintf("inherited context of about %d tokens, maximum %d", e.Estimated, e.Max)
}

// Unwrap makes errors.Is(err, ErrContextTooLarge) hold.
func (e *ContextTooLargeError) Unwrap() error { return ErrContextTooLarge }

// ValidContextField reports whether name is in the vocabulary.
func ValidContextField(name string) bool { return slices.Contains(ContextFields, name) }

// EstimateTokens estimates the tokens of text (CharsPerToken characters
// each, rounded up).
func EstimateTokens(text string) int {
	return (utf8.RuneCountInString(text) + CharsPerToken - 1) / CharsPerToken
}

// Link is what a chained execute records on its WorkflowQueued.
type Link struct {
	PriorWorkflowID string
	Fields          []string // resolved: deduplicated, in vocabulary order
	Inherited       string   // the rendered text; "" when Fields is empty
	Depth           int      // the new workflow's link number (2 or more)
}

// ChainDepth is the workflow's link number in its chain: 1 without a prior.
func (w *Workflow) ChainDepth() int {
	if w.queued != nil && w.queued.ChainDepth > 0 {
		return w.queued.ChainDepth
	}
	return 1
}

// Extend decides a new link off prior w for org orgID inheriting fields
// (nil: DefaultContextFields; the names must be valid): the prior must be
// the org's and terminal, the chain at most MaxChainDepth links and the
// text at most MaxInheritedTokens.
func (w *Workflow) Extend(orgID string, fields []string) (Link, error) {
	if w.OrgID() != orgID {
		return Link{}, ErrPriorNotFound
	}
	if !Terminal(w.status) {
		return Link{}, &PriorNotTerminalError{Status: w.status}
	}
	if w.ChainDepth() >= MaxChainDepth {
		return Link{}, fmt.Errorf("%w: the prior is link %d of %d", ErrChainDepth, w.ChainDepth(), MaxChainDepth)
	}
	if fields == nil {
		fields = DefaultContextFields
	}
	l := Link{PriorWorkflowID: w.ID(), Depth: w.ChainDepth() + 1, Fields: []string{}}
	for _, f := range ContextFields {
		if slices.Contains(fields, f) {
			l.Fields = append(l.Fields, f)
		}
	}
	l.Inherited = w.inherit(l.Fields)
	if n := EstimateTokens(l.Inherited); n > MaxInheritedTokens {
		return Link{}, &ContextTooLargeError{Estimated: n, Max: MaxInheritedTokens}
	}
	return l, nil
}

// inherit renders fields of w as text for prompts.
func (w *Workflow) inherit(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	v := w.View(false)
	var b strings.Builder
	fmt.Fprintf(&b, "Prior workflow %s (%s, %s): %s", v.WorkflowID, v.TaskType, v.Status, v.Title)
	section := func(title, body string) {
		if strings.TrimSpace(body) == "" {
			body = "(none)"
		}
		b.WriteString("\n\n### " + title + "\n" + strings.TrimSpace(body))
	}
	for _, f := range fields {
		switch f {
		case FieldTaskDescription:
			section("Task description", w.planned.Description)
		case FieldAdditionalContext:
			ctx := w.planned.AdditionalContext
			if w.queued != nil {
				ctx = w.queued.Context
			}
			section("Additional context", ctx)
		case FieldDeliverable:
			section("Deliverable", deliverableText(v.Deliverable))
		case FieldStepSummaries:
			var s strings.Builder
			for _, sum := range v.CompletedStepSummaries {
				fmt.Fprintf(&s, "- Step %d, %s: %s\n", sum.Step, sum.Framework, strings.TrimSpace(sum.Summary))
			}
			section("Step summaries", s.String())
		case FieldQualityReview:
			section("Quality review", reviewText(v.QualityReview))
		}
	}
	return b.String()
}

func deliverableText(d *Deliverable) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("Title: " + d.Title)
	for _, s := range d.Sections {
		b.WriteString("\n#### " + s.Heading + "\n" + strings.TrimSpace(s.Content))
	}
	return b.String()
}

func reviewText(r *QualityReview) string {
	if r == nil {
		return ""
	}
	score := "unscored"
	if r.Score != nil {
		score = fmt.Sprintf("%d/100", *r.Score)
	}
	text := "Score: " + score + ". " + r.Summary
	for _, p := range r.PathTo100 {
		text += "\n- " + p
	}
	return text
}

// Lineage walks prior_workflow_id back from id with get (which answers
// ErrNotFound for a missing or foreign workflow) and returns the chain
// oldest first. A chain longer than MaxChainDepth links is ErrChainDepth.
func Lineage(id string, get func(id string) (View, error)) ([]View, error) {
	var chain []View
	for next := id; next != ""; {
		if len(chain) == MaxChainDepth {
			return nil, fmt.Errorf("%w: %s has more than %d links", ErrChainDepth, id, MaxChainDepth)
		}
		v, err := get(next)
		if err != nil {
			return nil, fmt.Errorf("lineage of %s at %s: %w", id, next, err)
		}
		chain = append(chain, v)
		next = v.PriorWorkflowID
	}
	slices.Reverse(chain)
	return chain, nil
}
