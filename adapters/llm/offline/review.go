package offline

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
)

// Review criteria of the offline writer, with their points (sum 100).
const (
	pointsTitle    = 5
	pointsSections = 15 // shared by the sections with content, up to targetSections
	pointsSummary  = 10 // an executive summary (or overview) opens the deliverable
	pointsNext     = 10 // next steps (or recommendations, actions) close it
	pointsFilled   = 15 // share of sections with content
	pointsCoverage = 30 // share of the description's key terms mentioned
	pointsLength   = 15 // content length against targetChars

	targetSections = 4
	targetChars    = 2400
	reviewTerms    = 12
)

// reviewDeliverable scores r.Deliverable from observable properties:
// title, number of sections, an opening summary, closing next steps, empty
// sections, coverage of the description's key terms and length. Under the
// chunked strategy only part Chunk of Chunks of the sections is reviewed,
// against targets divided by Chunks; coverage is always measured on the
// whole deliverable. Every point lost is named in PathTo100.
func reviewDeliverable(r llm.Request) (llm.Review, error) {
	d := r.Deliverable
	if d == nil {
		return llm.Review{}, fmt.Errorf("%w: review without a deliverable", llm.ErrBadRequest)
	}
	parts, first, last := 1, true, true
	sections := d.Sections
	if r.Strategy == llm.StrategyChunked && r.Chunks > 1 {
		lo, hi, ok := textutil.ChunkBounds(len(d.Sections), r.Chunk, r.Chunks)
		if !ok {
			return llm.Review{}, fmt.Errorf("%w: chunk %d of %d over %d sections", llm.ErrBadRequest, r.Chunk, r.Chunks, len(d.Sections))
		}
		sections, parts, first, last = d.Sections[lo:hi], r.Chunks, lo == 0, hi == len(d.Sections)
	}
	var score float64
	var path []string
	gap := func(lost float64, fix string) {
		score -= lost
		if lost > 0 {
			path = append(path, fix)
		}
	}
	score = 100

	if strings.TrimSpace(d.Title) == "" {
		gap(pointsTitle, "Give the deliverable a title.")
	}
	var empty []string
	chars := 0
	for _, s := range sections {
		n := utf8.RuneCountInString(strings.TrimSpace(s.Content))
		chars += n
		if n == 0 {
			empty = append(empty, s.Heading)
		}
	}
	filled := len(sections) - len(empty)
	want := int(math.Ceil(float64(targetSections) / float64(parts)))
	if filled < want {
		gap(float64(pointsSections*(want-filled))/float64(want),
			fmt.Sprintf("Add sections with content: %d present, at least %d expected (a summary, the analyses, next steps).", filled, want))
	}
	if first && !hasHeading(sections[:min(1, len(sections))], "summary", "overview") {
		gap(pointsSummary, "Open with an executive summary section that states the answer in a few lines.")
	}
	if last && !hasHeading(sections[max(0, len(sections)-1):], "next step", "recommendation", "action", "roadmap") {
		gap(pointsNext, "End with a next-steps section naming actions, owners and dates.")
	}
	if len(empty) > 0 {
		gap(float64(pointsFilled*len(empty))/float64(len(sections)), "Fill the empty sections: "+joinAnd(quoted(empty))+".")
	}
	terms := keyTerms(r.Description, reviewTerms)
	missing := missingTerms(terms, d)
	if len(missing) > 0 {
		gap(float64(pointsCoverage*len(missing))/float64(len(terms)), "Address the task's key terms the deliverable never mentions: "+joinAnd(missing)+".")
	}
	if target := targetChars / parts; chars < target {
		gap(float64(pointsLength*(target-chars))/float64(target),
			fmt.Sprintf("Expand the content: %d characters, at least %d expected for a complete answer.", chars, target))
	}
	final := int(math.Floor(score + 1e-9))
	final = max(0, min(100, final))
	if path == nil {
		path = []string{}
	}
	return llm.Review{Score: final, Summary: reviewSummary(r, final, len(sections), len(empty), len(terms)-len(missing), len(terms), chars, len(path)), PathTo100: path}, nil
}

// reviewSummary states the score and what it was measured on.
func reviewSummary(r llm.Request, score, sections, empty, covered, terms, chars, gaps int) string {
	s := fmt.Sprintf("Scored %d/100 on observable properties: %d sections (%d empty), %d of %d key terms of the task covered, %d characters of content.",
		score, sections, empty, covered, terms, chars)
	if r.Strategy == llm.StrategyChunked && r.Chunks > 1 {
		s += fmt.Sprintf(" Part %d of %d of the deliverable reviewed.", r.Chunk+1, r.Chunks)
	}
	if gaps == 0 {
		s += " No gaps found."
	} else {
		s += fmt.Sprintf(" %d gaps to close, listed in path_to_100.", gaps)
	}
	return withNote(r.Language, s)
}

// hasHeading reports whether a section heading contains any fragment.
func hasHeading(sections []llm.Section, fragments ...string) bool {
	for _, s := range sections {
		h := strings.ToLower(s.Heading)
		for _, f := range fragments {
			if strings.Contains(h, f) {
				return true
			}
		}
	}
	return false
}

// missingTerms returns the terms the deliverable's text never mentions.
func missingTerms(terms []string, d *llm.Deliverable) []string {
	var b strings.Builder
	b.WriteString(strings.ToLower(d.Title))
	for _, s := range d.Sections {
		b.WriteString(" " + strings.ToLower(s.Heading) + " " + strings.ToLower(s.Content))
	}
	text := b.String()
	var out []string
	for _, t := range terms {
		if !strings.Contains(text, stem(t)) {
			out = append(out, t)
		}
	}
	return out
}

// quoted wraps each string in quotation marks.
func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "“" + s + "”"
	}
	return out
}
