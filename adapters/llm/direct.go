package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// ComposedStep is one framework's output in the answer of a composed call.
type ComposedStep struct {
	Framework string `json:"framework"`
	StepOutput
}

// ComposedOutput is the answer of a composed KindStep call: one step
// output per framework, in the order asked.
type ComposedOutput struct {
	Steps []ComposedStep `json:"steps"`
}

// Composed reports whether r is a composed call (direct execution): a
// KindStep call naming Frameworks, answered by one step output per
// framework (ParseComposed).
func (r Request) Composed() bool {
	return r.Kind == KindStep && len(r.Frameworks) > 0
}

// ContractSynthesis reports whether r is a contract synthesis (direct
// execution): a KindSynthesis call with a Contract, answered by the JSON
// the contract describes.
func (r Request) ContractSynthesis() bool {
	return r.Kind == KindSynthesis && r.Contract != nil
}

// ParseComposed parses the answer of a composed call with frameworks: a
// JSON object {"steps": [{framework, summary, sections}]} holding a valid
// step output for every framework. Entries are matched by framework name
// (ignoring case), the rest in order; the outputs come back in the order
// of frameworks. Anything else is ErrMalformed.
func ParseComposed(text string, frameworks []string) ([]StepOutput, error) {
	var raw ComposedOutput
	if err := decodeObject(text, &raw); err != nil {
		return nil, err
	}
	out := make([]StepOutput, len(frameworks))
	found := make([]bool, len(frameworks))
	used := make([]bool, len(raw.Steps))
	for i, fw := range frameworks {
		for j, st := range raw.Steps {
			if !used[j] && strings.EqualFold(strings.TrimSpace(st.Framework), strings.TrimSpace(fw)) {
				out[i], found[i], used[j] = st.StepOutput, true, true
				break
			}
		}
	}
	next := 0
	for i, fw := range frameworks {
		for ; !found[i] && next < len(raw.Steps); next++ {
			if !used[next] {
				out[i], found[i], used[next] = raw.Steps[next].StepOutput, true, true
			}
		}
		if !found[i] {
			return nil, fmt.Errorf("%w: composed answer has no output for %q", ErrMalformed, fw)
		}
		if strings.TrimSpace(out[i].Summary) == "" {
			return nil, fmt.Errorf("%w: composed answer for %q has no summary", ErrMalformed, fw)
		}
		if err := checkSections("composed answer for "+strconv.Quote(fw), out[i].Sections); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ValidateAnswer checks text as the answer to r and returns it normalised:
// a composed call's answer must parse with ParseComposed; a contract
// synthesis's answer is returned trimmed, whatever it holds (the caller
// validates it against the contract, and a violation is a result, not a
// provider failure); a classify call's answer must parse with
// ParseClassification against r.Choices and is returned as compact JSON
// naming the choice's own id; anything else as ParseStep,
// ParseDeliverable, ParseReview or ParseEnhance would for r.Kind, without
// a fence around a JSON object.
func ValidateAnswer(r Request, text string) (string, error) {
	switch {
	case r.Composed():
		if _, err := ParseComposed(text, r.Frameworks); err != nil {
			return "", err
		}
		return unfence(text), nil
	case r.ContractSynthesis():
		return strings.TrimSpace(text), nil
	case r.Kind == KindClassify:
		return validateClassification(r, text)
	}
	return validate(r.Kind, text)
}
