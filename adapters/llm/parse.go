package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// StepOutput is the answer of a KindStep call.
type StepOutput struct {
	Summary  string    `json:"summary"`
	Sections []Section `json:"sections"`
}

// Review is the answer of a KindReview call.
type Review struct {
	Score     int      `json:"score"`
	Summary   string   `json:"summary"`
	PathTo100 []string `json:"path_to_100"`
}

// ParseStep parses a KindStep answer: a JSON object {"summary", "sections":
// [{heading, content}]} with a non-empty summary and at least one section,
// each with a heading. A ```json fence around the object is tolerated;
// anything else invalid is ErrMalformed.
func ParseStep(text string) (StepOutput, error) {
	var out StepOutput
	if err := decodeObject(text, &out); err != nil {
		return StepOutput{}, err
	}
	if strings.TrimSpace(out.Summary) == "" {
		return StepOutput{}, fmt.Errorf("%w: step answer has no summary", ErrMalformed)
	}
	if err := checkSections("step answer", out.Sections); err != nil {
		return StepOutput{}, err
	}
	return out, nil
}

// ParseDeliverable parses a KindSynthesis answer: a JSON object {"title",
// "sections": [{heading, content}]} with at least one section, each with a
// heading. The title may be empty (the caller knows the workflow's title).
func ParseDeliverable(text string) (Deliverable, error) {
	var d Deliverable
	if err := decodeObject(text, &d); err != nil {
		return Deliverable{}, err
	}
	if err := checkSections("deliverable", d.Sections); err != nil {
		return Deliverable{}, err
	}
	return d, nil
}

// ParseReview parses a KindReview answer: a JSON object {"score": 0..100,
// "summary", "path_to_100": [...]} with a non-empty summary. A fractional
// score is rounded; a missing or out-of-range score is ErrMalformed. A
// missing path_to_100 is an empty list.
func ParseReview(text string) (Review, error) {
	var raw struct {
		Score     *float64 `json:"score"`
		Summary   string   `json:"summary"`
		PathTo100 []string `json:"path_to_100"`
	}
	if err := decodeObject(text, &raw); err != nil {
		return Review{}, err
	}
	if raw.Score == nil {
		return Review{}, fmt.Errorf("%w: review has no score", ErrMalformed)
	}
	score := math.Round(*raw.Score)
	if score < 0 || score > 100 {
		return Review{}, fmt.Errorf("%w: review score %v outside 0-100", ErrMalformed, *raw.Score)
	}
	if strings.TrimSpace(raw.Summary) == "" {
		return Review{}, fmt.Errorf("%w: review has no summary", ErrMalformed)
	}
	path := make([]string, 0, len(raw.PathTo100))
	for _, p := range raw.PathTo100 {
		if p = strings.TrimSpace(p); p != "" {
			path = append(path, p)
		}
	}
	return Review{Score: int(score), Summary: raw.Summary, PathTo100: path}, nil
}

// ParseEnhance checks a KindEnhance answer: plain, non-empty text. It
// returns the text trimmed.
func ParseEnhance(text string) (string, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", fmt.Errorf("%w: empty rewrite", ErrMalformed)
	}
	return t, nil
}

// validate checks text as an answer of kind and returns it normalised: the
// JSON object without a surrounding fence, or the trimmed plain text.
func validate(kind, text string) (string, error) {
	var err error
	switch kind {
	case KindStep:
		_, err = ParseStep(text)
	case KindSynthesis:
		_, err = ParseDeliverable(text)
	case KindReview, KindCheck:
		_, err = ParseReview(text)
	case KindEnhance:
		return ParseEnhance(text)
	default:
		return "", fmt.Errorf("%w: unknown kind %q", ErrBadRequest, kind)
	}
	if err != nil {
		return "", err
	}
	return unfence(text), nil
}

// checkSections requires at least one section and a heading on each.
func checkSections(what string, ss []Section) error {
	if len(ss) == 0 {
		return fmt.Errorf("%w: %s has no sections", ErrMalformed, what)
	}
	for i, s := range ss {
		if strings.TrimSpace(s.Heading) == "" {
			return fmt.Errorf("%w: %s section %d has no heading", ErrMalformed, what, i+1)
		}
	}
	return nil
}

// decodeObject decodes exactly one JSON object (optionally fenced) into v.
func decodeObject(text string, v any) error {
	body := unfence(text)
	if !strings.HasPrefix(body, "{") {
		return fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if strings.TrimSpace(body[dec.InputOffset():]) != "" {
		return fmt.Errorf("%w: text after the JSON object", ErrMalformed)
	}
	return nil
}

// unfence trims text and removes a surrounding ``` or ```json fence.
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return t
	}
	lang := strings.TrimSpace(t[3:nl])
	if lang != "" && !strings.EqualFold(lang, "json") {
		return t
	}
	rest := strings.TrimSpace(t[nl+1:])
	if !strings.HasSuffix(rest, "```") {
		return t
	}
	return strings.TrimSpace(strings.TrimSuffix(rest, "```"))
}
