package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// TaskChoice is one catalogue task type a KindClassify call chooses from.
type TaskChoice struct {
	ID          string // catalogue id, e.g. "competitive_analysis"
	Label       string // e.g. "Competitive analysis"
	Description string // one line saying what the type covers
}

// Classification is the answer of a KindClassify call: one of the
// request's choices and how sure the model is of it.
type Classification struct {
	TaskType   string  `json:"task_type"`
	Confidence float64 `json:"confidence"`
}

// CheckRequest reports why no provider can answer r (an error matching
// ErrBadRequest), or nil: an unknown kind, or a KindClassify call without
// choices or with a choice that has no id.
func CheckRequest(r Request) error {
	if !ValidKind(r.Kind) {
		return fmt.Errorf("%w: unknown kind %q", ErrBadRequest, r.Kind)
	}
	if r.Kind != KindClassify {
		return nil
	}
	if len(r.Choices) == 0 {
		return fmt.Errorf("%w: classify call without choices", ErrBadRequest)
	}
	for i, c := range r.Choices {
		if strings.TrimSpace(c.ID) == "" {
			return fmt.Errorf("%w: classify choice %d has no id", ErrBadRequest, i+1)
		}
	}
	return nil
}

// ParseClassification parses a KindClassify answer: a JSON object
// {"task_type": id, "confidence": number in [0, 1]} whose task_type is the
// id of one of choices (compared trimmed and without regard to case; the
// choice's own id is returned). A ```json fence is tolerated; an unknown
// id, a missing or out-of-range confidence, or anything else invalid is
// ErrMalformed.
func ParseClassification(text string, choices []TaskChoice) (Classification, error) {
	var raw struct {
		TaskType   *string  `json:"task_type"`
		Confidence *float64 `json:"confidence"`
	}
	if err := decodeObject(text, &raw); err != nil {
		return Classification{}, err
	}
	if raw.TaskType == nil || strings.TrimSpace(*raw.TaskType) == "" {
		return Classification{}, fmt.Errorf("%w: classification has no task_type", ErrMalformed)
	}
	id, ok := choiceID(*raw.TaskType, choices)
	if !ok {
		return Classification{}, fmt.Errorf("%w: classification names unknown task type %q", ErrMalformed, *raw.TaskType)
	}
	if raw.Confidence == nil {
		return Classification{}, fmt.Errorf("%w: classification has no confidence", ErrMalformed)
	}
	if c := *raw.Confidence; c < 0 || c > 1 {
		return Classification{}, fmt.Errorf("%w: classification confidence %v outside 0-1", ErrMalformed, c)
	}
	return Classification{TaskType: id, Confidence: *raw.Confidence}, nil
}

// validateClassification checks text as the answer to the KindClassify
// call r and returns it as compact JSON with the choice's own id.
func validateClassification(r Request, text string) (string, error) {
	c, err := ParseClassification(text, r.Choices)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return string(b), nil
}

// choiceID returns the id of the choice that id names.
func choiceID(id string, choices []TaskChoice) (string, bool) {
	id = strings.TrimSpace(id)
	for _, c := range choices {
		if strings.EqualFold(strings.TrimSpace(c.ID), id) {
			return c.ID, true
		}
	}
	return "", false
}
