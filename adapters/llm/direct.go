package llm

import (
	"fmt"
	"strconv"
	"strings"
)

// Prompt kinds of direct execution (see Request.Frameworks and
// Request.Contract): a composed step call and a contract synthesis.
const (
	kindComposed = "composed"
	kindContract = "contract"
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

// promptKind is r's kind for the prompt builder and the offline writer.
func promptKind(r Request) string {
	switch {
	case r.Kind == KindStep && len(r.Frameworks) > 0:
		return kindComposed
	case r.Kind == KindSynthesis && r.Contract != nil:
		return kindContract
	}
	return r.Kind
}

// stepFramework is the framework marker of a step call: the framework, or
// the composed frameworks joined by " | ".
func stepFramework(r Request) string {
	if len(r.Frameworks) > 0 {
		return strings.Join(r.Frameworks, " | ")
	}
	return r.Framework
}

// directMarkers are the markers of direct execution: composed=N on a
// composed call, contract=<task_type> on a contract synthesis.
func directMarkers(r Request) []string {
	switch promptKind(r) {
	case kindComposed:
		return []string{marker("composed", strconv.Itoa(len(r.Frameworks)))}
	case kindContract:
		return []string{marker("contract", r.Contract.TaskType)}
	}
	return nil
}

// composedSystem is the role and answer format of a composed call.
func composedSystem(r Request) string {
	var b strings.Builder
	b.WriteString("You are a senior analyst carrying out several steps of a structured workflow in one answer: apply each of these frameworks, in this order, to the user's task.")
	for _, fw := range r.Frameworks {
		spec := lookupFramework(fw, "")
		fmt.Fprintf(&b, "\n- %q", fw)
		if spec.Purpose != "" {
			b.WriteString(": " + spec.Purpose)
		}
		fmt.Fprintf(&b, " Sections, in this order, with exactly these headings: %s.", strings.Join(spec.Sections, "; "))
	}
	b.WriteString("\nBe specific to the task; use its own terms, the context given and the earlier steps. Do not invent figures or sources; say what must be verified.")
	b.WriteString("\nAnswer with one JSON object and nothing else: {\"steps\": [{\"framework\": string (as named above), \"summary\": string (2-3 sentences), \"sections\": [{\"heading\": string, \"content\": string}]}]}, one entry per framework, in the order given.")
	return b.String()
}

// composedStep describes a composed call in the user prompt.
func composedStep(r Request) string {
	step := "Frameworks, in order: " + strings.Join(r.Frameworks, "; ")
	if r.TotalSteps > 0 {
		step = fmt.Sprintf("Step %d of %d and the later content steps. %s", r.Step, r.TotalSteps, step)
	}
	return step
}

// contractSystem is the role and answer format of a contract synthesis.
func contractSystem(r Request) string {
	return "You are a senior analyst producing the final output of a structured workflow as data, from the task and the outputs of its earlier steps. Do not invent facts the task and the earlier steps do not support.\n" +
		r.Contract.Prompt()
}

// writeComposed is the offline answer of a composed call: each framework
// written as its own step would be.
func writeComposed(r Request) (string, error) {
	var out ComposedOutput
	for _, fw := range r.Frameworks {
		one := r
		one.Frameworks, one.Framework, one.Headings, one.FrameworkDomain = nil, fw, nil, ""
		s, err := writeStep(one)
		if err != nil {
			return "", err
		}
		out.Steps = append(out.Steps, ComposedStep{Framework: fw, StepOutput: s})
	}
	return marshal(out)
}

// writeContract is the offline answer of a contract synthesis: a sample
// that conforms to the contract, its strings taken from the task's key
// phrases.
func writeContract(r Request) string {
	return string(r.Contract.Sample(newBrief(r).phrases...))
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
// provider failure); anything else as Validate does for r.Kind.
func ValidateAnswer(r Request, text string) (string, error) {
	switch promptKind(r) {
	case kindComposed:
		if _, err := ParseComposed(text, r.Frameworks); err != nil {
			return "", err
		}
		return unfence(text), nil
	case kindContract:
		return strings.TrimSpace(text), nil
	}
	return Validate(r.Kind, text)
}
