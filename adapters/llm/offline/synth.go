package offline

import (
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
)

// Headings of the deliverable the offline writer composes.
const (
	execSummaryHeading = "Executive Summary"
	nextStepsHeading   = "Next Steps"
	scopeHeading       = "Scope and Approach"
)

// maxPriorSectionInDeliverable is how much of one earlier section the
// deliverable quotes.
const maxPriorSectionInDeliverable = 360

// writeDeliverable writes the answer of a KindSynthesis request: the
// composed deliverable, or part Chunk of Chunks of its sections.
func writeDeliverable(r llm.Request) (llm.Deliverable, error) {
	d := composeDeliverable(r, newBrief(r))
	if r.Strategy == llm.StrategyChunked {
		lo, hi, ok := textutil.ChunkBounds(len(d.Sections), r.Chunk, r.Chunks)
		if !ok {
			return llm.Deliverable{}, fmt.Errorf("%w: chunk %d of %d over %d sections", llm.ErrBadRequest, r.Chunk, r.Chunks, len(d.Sections))
		}
		d.Sections = d.Sections[lo:hi]
	}
	return d, nil
}

// composeDeliverable composes the deliverable from the earlier steps: an
// executive summary, one section per step (its summary and, unless
// compressed, the opening of each of its sections) and next steps.
func composeDeliverable(r llm.Request, b brief) llm.Deliverable {
	d := llm.Deliverable{Title: deliverableTitle(r, b)}
	d.Sections = append(d.Sections, llm.Section{Heading: execSummaryHeading, Content: execSummary(r, b)})
	if len(r.Prior) == 0 {
		d.Sections = append(d.Sections, llm.Section{Heading: scopeHeading, Content: scopeText(r, b)})
	}
	used := map[string]bool{}
	for _, p := range r.Prior {
		h := strings.TrimSpace(p.Name)
		if h == "" || used[strings.ToLower(h)] {
			h = strings.TrimSpace(fmt.Sprintf("%s (step %d)", h, p.Step))
		}
		used[strings.ToLower(h)] = true
		d.Sections = append(d.Sections, llm.Section{Heading: h, Content: priorSection(p, b.compressed)})
	}
	d.Sections = append(d.Sections, llm.Section{Heading: nextStepsHeading, Content: nextSteps(r, b)})
	return d
}

// deliverableTitle is r.Title, or one derived from the label and subject.
func deliverableTitle(r llm.Request, b brief) string {
	if t := strings.TrimSpace(r.Title); t != "" {
		return t
	}
	subject := textutil.Clip(b.subject, 70)
	if l := strings.TrimSpace(r.TaskLabel); l != "" && !strings.EqualFold(subject, "the "+b.label) {
		return l + ": " + capitalize(subject)
	}
	return capitalize(subject)
}

// execSummary opens the deliverable: what it addresses, the brief, what it
// draws on and the key point of every step.
func execSummary(r llm.Request, b brief) string {
	var lines []string
	if note := languageNote(r.Language); note != "" {
		lines = append(lines, note)
	}
	lines = append(lines, fmt.Sprintf("This %s addresses %s.", b.label, b.subject))
	if desc := textutil.OneLine(r.Description); desc != "" {
		lines = append(lines, "Brief: "+textutil.Clip(desc, 600))
	}
	if len(r.Prior) > 0 {
		lines = append(lines, fmt.Sprintf("It draws on %d steps: %s. Key points:", len(r.Prior), joinAnd(stepNames(r.Prior))))
		for _, p := range r.Prior {
			if s := firstSentence(textutil.OneLine(p.Summary)); s != "" {
				lines = append(lines, "- "+p.Name+": "+textutil.Clip(s, 220))
			}
		}
	}
	if b.context != "" {
		lines = append(lines, "Context taken into account: “"+b.context+"”")
	}
	if r.Inherited != "" {
		lines = append(lines, "Builds on an earlier workflow: “"+textutil.Clip(textutil.OneLine(r.Inherited), 240)+"”")
	}
	if b.guidance != "" {
		lines = append(lines, "Guidance applied: "+b.guidance)
	}
	return strings.Join(lines, "\n")
}

// scopeText is the body of a deliverable composed without earlier steps.
func scopeText(r llm.Request, b brief) string {
	lines := []string{fmt.Sprintf("The %s covers %s.", b.label, joinAnd(b.distinctPhrases(0, 4)))}
	for _, p := range b.distinctPhrases(0, 4) {
		lines = append(lines, "- "+capitalize(p)+": what is known, what must be verified and what follows for the decision.")
	}
	lines = append(lines, "No earlier step outputs were supplied; this deliverable rests on the task description alone.")
	return strings.Join(lines, "\n")
}

// priorSection is a deliverable section made from one earlier step.
func priorSection(p llm.PriorStep, compressed bool) string {
	lines := []string{strings.TrimSpace(p.Summary)}
	if !compressed {
		for _, s := range p.Sections {
			if c := strings.TrimSpace(s.Content); c != "" {
				lines = append(lines, "**"+s.Heading+":** "+textutil.Clip(c, maxPriorSectionInDeliverable))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// nextSteps is the closing section: concrete follow-ups pointing at the
// earlier steps' actions, measures and risks where there are any.
func nextSteps(r llm.Request, b brief) string {
	steps := []string{fmt.Sprintf("Confirm the findings on %s with the people who own them, and correct anything the organisation's own data contradicts.", b.phrase(0))}
	if h, step, ok := findSection(r.Prior, "action"); ok {
		steps = append(steps, fmt.Sprintf("Turn the actions under “%s” (%s) into dated tasks with owners.", h, step))
	} else {
		steps = append(steps, "Turn the recommendations into dated tasks with owners.")
	}
	if h, step, ok := findSection(r.Prior, "metric"); ok {
		steps = append(steps, fmt.Sprintf("Track the measures under “%s” (%s) against baselines and targets.", h, step))
	} else {
		steps = append(steps, fmt.Sprintf("Agree two or three measures of success for %s and a date to review them.", b.phrase(1)))
	}
	if h, step, ok := findSection(r.Prior, "risk"); ok {
		steps = append(steps, fmt.Sprintf("Give each risk under “%s” (%s) an owner and review it at every milestone.", h, step))
	}
	steps = append(steps, fmt.Sprintf("Revisit this %s when %s changes materially, or within one quarter.", b.label, b.phrase(2)))
	for i := range steps {
		steps[i] = fmt.Sprintf("%d. %s", i+1, steps[i])
	}
	return strings.Join(steps, "\n")
}

// findSection finds the first earlier section of heading class class.
func findSection(prior []llm.PriorStep, class string) (heading, step string, ok bool) {
	for _, p := range prior {
		for _, s := range p.Sections {
			if headingClass(s.Heading) == class {
				return s.Heading, p.Name, true
			}
		}
	}
	return "", "", false
}

// stepNames lists the names of earlier steps.
func stepNames(prior []llm.PriorStep) []string {
	out := make([]string, len(prior))
	for i, p := range prior {
		out[i] = p.Name
	}
	return out
}

// synthesisStepSections maps a composed deliverable onto the headings of a
// "Synthesis" plan step: integrated findings, recommendations, next steps.
func synthesisStepSections(d llm.Deliverable, headings []string) []llm.Section {
	var findings, recs []string
	for _, s := range d.Sections[1 : len(d.Sections)-1] {
		findings = append(findings, "- "+s.Heading+": "+textutil.Clip(firstSentence(textutil.OneLine(s.Content)), 220))
		if h := actionLine(s); h != "" {
			recs = append(recs, h)
		}
	}
	if len(recs) == 0 {
		recs = append(recs, "- Act on the findings above in order of impact for effort, each with an owner and a date.")
	}
	bodies := []string{
		d.Sections[0].Content + "\n" + strings.Join(findings, "\n"),
		strings.Join(recs, "\n"),
		d.Sections[len(d.Sections)-1].Content,
	}
	out := make([]llm.Section, len(headings))
	for i, h := range headings {
		out[i] = llm.Section{Heading: h, Content: bodies[min(i, len(bodies)-1)]}
	}
	return out
}

// actionLine quotes the first action-like line of a deliverable section.
func actionLine(s llm.Section) string {
	for _, l := range strings.Split(s.Content, "\n") {
		head, body, ok := strings.Cut(strings.TrimPrefix(l, "**"), ":** ")
		if ok && strings.HasPrefix(l, "**") && headingClass(head) == "action" {
			return "- From " + s.Heading + ": " + textutil.Clip(body, 220)
		}
	}
	return ""
}
