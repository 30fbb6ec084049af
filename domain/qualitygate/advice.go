package qualitygate

import (
	"fmt"
	"strings"
)

// Recommendation says what to do with the output, from the verdict and
// the issues.
func (r *Result) Recommendation() string {
	counts := map[Severity]int{}
	for _, i := range r.Issues {
		counts[Severity(i.Severity)]++
	}
	var b strings.Builder
	switch r.CheckedVerdict {
	case Pass:
		b.WriteString("The output passes every check; use it.")
	case Warn:
		fmt.Fprintf(&b, "The output is usable; review the %d warning(s) before relying on it.", counts[SeverityWarning])
	default:
		fmt.Fprintf(&b, "Do not use the output as is: %d check(s) failed with %d error(s). Regenerate it with the suggested prompt addition, or fix the issues listed.",
			r.failedChecks(), counts[SeverityError])
	}
	if r.Override {
		b.WriteString(" Overridden to pass: " + r.OverrideReason + " (the override is recorded).")
	}
	if r.LLMSkipped {
		b.WriteString(" The LLM checks were skipped (the language model did not answer); run them again later.")
	}
	return b.String()
}

func (r *Result) failedChecks() int {
	n := 0
	for _, c := range r.CheckTypes {
		if r.failed(c) {
			n++
		}
	}
	return n
}

// SuggestedPromptAddition is what to add to the prompt that produced the
// output so that the next one passes: a sentence per failed directive and
// failed check ("" when nothing failed).
func (r *Result) SuggestedPromptAddition() string {
	var parts []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	for _, d := range r.Directives {
		if !d.Passed {
			add(instruction(d.Directive))
		}
	}
	if r.failed(SchemaValidation) {
		add("Answer with one JSON value only (no prose around it) that matches the JSON Schema given.")
	}
	if r.failed(CodeSyntax) {
		add(fmt.Sprintf("Return only syntactically valid %s code, in one ``` block.", languageName(r.Language)))
	}
	for _, c := range []CheckType{Tone, FactualClaims, InternalConsistency} {
		if r.failed(c) {
			add(llmInstruction[c])
		}
	}
	return strings.Join(parts, " ")
}

var llmInstruction = map[CheckType]string{
	Tone:                "Keep a neutral, professional tone: no insults, shouting or overconfident hype.",
	FactualClaims:       "Support each factual claim with its source, or mark it as an estimate; do not state unverifiable figures as facts.",
	InternalConsistency: "Make sure figures, names and conclusions agree across the whole answer.",
}

func languageName(l Language) string {
	switch l {
	case JSON:
		return "JSON"
	case Python:
		return "Python"
	case TypeScript:
		return "TypeScript"
	}
	return "JavaScript"
}

// instruction is directive d as an instruction to a model.
func instruction(d Directive) string {
	q := fmt.Sprintf("%q", clip(d.Value, 120))
	switch d.Type {
	case MustInclude:
		return "Include " + q + "."
	case MustContain:
		return "Include exactly " + q + " (same case)."
	case MustNotInclude, MustNotContain:
		return "Do not mention " + q + "."
	case MustMatch:
		return "The answer must match the pattern " + q + "."
	case MustNotMatch:
		return "Nothing in the answer may match the pattern " + q + "."
	case MinLength:
		return fmt.Sprintf("Write at least %d %s.", d.limit, d.unit)
	case MaxLength:
		return fmt.Sprintf("Keep the answer to at most %d %s.", d.limit, d.unit)
	case Format:
		return "Answer with valid JSON only, no prose or code fences."
	}
	return d.Label()
}
