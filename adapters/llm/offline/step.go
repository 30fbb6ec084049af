package offline

import (
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/internal/textutil"
	"svc/domain/planning"
)

// writeStep writes the output of a KindStep request: the framework's
// sections about the task (only part Chunk of Chunks under the chunked
// strategy) and a summary.
func writeStep(r llm.Request) (llm.StepOutput, error) {
	if strings.TrimSpace(r.Framework) == "" {
		return llm.StepOutput{}, fmt.Errorf("%w: step without a framework", llm.ErrBadRequest)
	}
	spec := frameworks.ForStep(r)
	headings := spec.Sections
	lo, hi := 0, len(headings)
	if r.Strategy == llm.StrategyChunked {
		var ok bool
		if lo, hi, ok = textutil.ChunkBounds(len(headings), r.Chunk, r.Chunks); !ok {
			return llm.StepOutput{}, fmt.Errorf("%w: chunk %d of %d over %d sections", llm.ErrBadRequest, r.Chunk, r.Chunks, len(headings))
		}
	}
	b := newBrief(r)
	base := frameworks.StripQualifier(r.Framework)
	var sections []llm.Section
	switch {
	case strings.EqualFold(base, planning.ReviewName):
		sections = reviewPerspectives(r, b, headings)
	case strings.EqualFold(base, planning.SynthesisName):
		d := composeDeliverable(r, b)
		sections = synthesisStepSections(d, headings)
	default:
		for i, h := range headings {
			sections = append(sections, llm.Section{Heading: h, Content: writeSection(r, b, spec, i, h)})
		}
	}
	sections = sections[lo:hi]
	return llm.StepOutput{Summary: stepSummary(r, b, spec, sections), Sections: sections}, nil
}

// writeSection fills heading h (the i-th of the framework) about the task.
func writeSection(r llm.Request, b brief, spec frameworks.Spec, i int, h string) string {
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
func stepSummary(r llm.Request, b brief, spec frameworks.Spec, sections []llm.Section) string {
	heads := make([]string, len(sections))
	for i, s := range sections {
		heads[i] = s.Heading
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s for the %s", joinAnd(heads), b.short)
	if ps := b.distinctPhrases(1, 3); len(ps) > 0 && !(len(ps) == 1 && ps[0] == b.short) {
		fmt.Fprintf(&s, ", with a focus on %s", joinAnd(ps))
	}
	if r.Strategy == llm.StrategyChunked && r.Chunks > 1 {
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
func priorNames(prior []llm.PriorStep) string {
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
func priorClaims(prior []llm.PriorStep, n int) []string {
	var out []string
	for _, p := range prior {
		if len(out) == n {
			break
		}
		if c := firstSentence(textutil.OneLine(p.Summary)); c != "" {
			out = append(out, fmt.Sprintf("- Claim from step %d (%s): “%s”", p.Step, p.Name, textutil.Clip(c, 180)))
		}
	}
	return out
}
