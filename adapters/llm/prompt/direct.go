package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
)

// Prompt kinds of direct execution (see llm.Request.Frameworks and
// llm.Request.Contract): a composed step call and a contract synthesis.
const (
	kindComposed = "composed"
	kindContract = "contract"
)

// promptKind is r's kind for the prompt builder: kindComposed,
// kindContract or r.Kind.
func promptKind(r llm.Request) string {
	switch {
	case r.Composed():
		return kindComposed
	case r.ContractSynthesis():
		return kindContract
	}
	return r.Kind
}

// stepFramework is the framework marker of a step call: the framework, or
// the composed frameworks joined by " | ".
func stepFramework(r llm.Request) string {
	if len(r.Frameworks) > 0 {
		return strings.Join(r.Frameworks, " | ")
	}
	return r.Framework
}

// directMarkers are the markers of direct execution: composed=N on a
// composed call, contract=<task_type> on a contract synthesis.
func directMarkers(r llm.Request) []string {
	switch promptKind(r) {
	case kindComposed:
		return []string{marker("composed", strconv.Itoa(len(r.Frameworks)))}
	case kindContract:
		return []string{marker("contract", r.Contract.TaskType)}
	}
	return nil
}

// composedSystem is the role and answer format of a composed call.
func composedSystem(r llm.Request) string {
	var b strings.Builder
	b.WriteString("You are a senior analyst carrying out several steps of a structured workflow in one answer: apply each of these frameworks, in this order, to the user's task.")
	for _, fw := range r.Frameworks {
		spec := frameworks.Lookup(fw, "")
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
func composedStep(r llm.Request) string {
	step := "Frameworks, in order: " + strings.Join(r.Frameworks, "; ")
	if r.TotalSteps > 0 {
		step = fmt.Sprintf("Step %d of %d and the later content steps. %s", r.Step, r.TotalSteps, step)
	}
	return step
}

// contractSystem is the role and answer format of a contract synthesis.
func contractSystem(r llm.Request) string {
	return "You are a senior analyst producing the final output of a structured workflow as data, from the task and the outputs of its earlier steps. Do not invent facts the task and the earlier steps do not support.\n" +
		r.Contract.Prompt()
}
