package llm

import (
	"fmt"
	"strings"
)

// writeStep writes the output of a KindStep request: the framework's
// sections about the task (only part Chunk of Chunks under the chunked
// strategy) and a summary.
func writeStep(r Request) (StepOutput, error) {
	if strings.TrimSpace(r.Framework) == "" {
		return StepOutput{}, fmt.Errorf("%w: step without a framework", ErrBadRequest)
	}
	spec := stepSpec(r)
	headings := spec.Sections
	lo, hi := 0, len(headings)
	if r.Strategy == StrategyChunked {
		var ok bool
		if lo, hi, ok = chunkBounds(len(headings), r.Chunk, r.Chunks); !ok {
			return StepOutput{}, fmt.Errorf("%w: chunk %d of %d over %d sections", ErrBadRequest, r.Chunk, r.Chunks, len(headings))
		}
	}
	b := newBrief(r)
	base := stripQualifier(r.Framework)
	var sections []Section
	switch {
	case strings.EqualFold(base, reviewStepName):
		sections = reviewPerspectives(r, b, headings)
	case strings.EqualFold(base, synthesisStepName):
		d := composeDeliverable(r, b)
		sections = synthesisStepSections(d, headings)
	default:
		for i, h := range headings {
			sections = append(sections, Section{Heading: h, Content: writeSection(r, b, spec, i, h)})
		}
	}
	sections = sections[lo:hi]
	return StepOutput{Summary: stepSummary(r, b, spec, sections), Sections: sections}, nil
}

// writeSection fills heading h (the i-th of the framework) about the task.
func writeSection(r Request, b brief, spec frameworkSpec, i int, h string) string {
	class := headingClass(h)
	tpl := sectionTemplates[class]
	key := r.Framework + "|" + h + "|" + r.Description
	subject := b.short
	if i == 0 {
		subject = b.subject
	}
	var lines []string
	lines = append(lines, fill(tpl.intro[pick(key, len(tpl.intro))], h, subject, b.label, r.Framework, ""))
	n := 3
	if b.compressed {
		n = 1
	}
	for k, p := range b.distinctPhrases(i, n) {
		lines = append(lines, "- "+capitalize(fill(tpl.bullets[k%len(tpl.bullets)], h, subject, b.label, r.Framework, p)))
	}
	if class == "evidence" {
		lines = append(lines, priorClaims(r.Prior, 3)...)
	}
	if i == 0 {
		if b.context != "" {
			lines = append(lines, "- From the context supplied: “"+b.context+"”")
		}
		if len(r.Prior) > 0 {
			lines = append(lines, "- Builds on "+priorNames(r.Prior)+".")
		}
		if b.guidance != "" {
			lines = append(lines, "- Guidance applied: "+b.guidance)
		}
	}
	if !b.compressed {
		lines = append(lines, fill(tpl.close, h, subject, b.label, r.Framework, ""))
	}
	return strings.Join(lines, "\n")
}

// stepSummary is the summary of a step output.
func stepSummary(r Request, b brief, spec frameworkSpec, sections []Section) string {
	heads := make([]string, len(sections))
	for i, s := range sections {
		heads[i] = s.Heading
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s for the %s", joinAnd(heads), b.short)
	if ps := b.distinctPhrases(1, 3); len(ps) > 0 && !(len(ps) == 1 && ps[0] == b.short) {
		fmt.Fprintf(&s, ", with a focus on %s", joinAnd(ps))
	}
	if r.Strategy == StrategyChunked && r.Chunks > 1 {
		fmt.Fprintf(&s, " (part %d of %d)", r.Chunk+1, r.Chunks)
	}
	s.WriteString(".")
	if spec.Purpose != "" {
		fmt.Fprintf(&s, " The %s %s", r.Framework, lowerFirst(spec.Purpose))
	}
	if spec.Kind == "research" {
		s.WriteString(" No external sources were consulted (offline writer): findings rest on the task description and the context supplied, and are to be verified.")
	}
	return withNote(r.Language, s.String())
}

// priorNames lists earlier steps as "Step 1 (Market Definition) and ...".
func priorNames(prior []PriorStep) string {
	names := make([]string, 0, len(prior))
	for _, p := range prior {
		names = append(names, fmt.Sprintf("step %d (%s)", p.Step, p.Name))
	}
	if len(names) > 4 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return joinAnd(names)
}

// priorClaims quotes the opening sentence of up to n earlier summaries.
func priorClaims(prior []PriorStep, n int) []string {
	var out []string
	for _, p := range prior {
		if len(out) == n {
			break
		}
		if c := firstSentence(oneLine(p.Summary)); c != "" {
			out = append(out, fmt.Sprintf("- Claim from step %d (%s): “%s”", p.Step, p.Name, clip(c, 180)))
		}
	}
	return out
}
