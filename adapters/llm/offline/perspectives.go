package offline

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"svc/adapters/llm"
)

// perspectiveQuestions is what each review perspective asks of the work.
var perspectiveQuestions = map[string]string{
	"customer":    "does it answer what the people it serves would ask?",
	"operational": "can it be carried out with the people, time and tools available?",
	"risk":        "are the downside cases named, rated and owned?",
	"financial":   "are costs and returns stated, and are they plausible?",
	"technical":   "is it feasible with the systems in place?",
	"compliance":  "does it respect the obligations that apply?",
}

// perspectiveClasses are the heading classes each perspective looks for
// in an earlier step.
var perspectiveClasses = map[string][]string{
	"customer":    {"people", "positive", "negative"},
	"operational": {"action", "timeline", "people"},
	"risk":        {"risk"},
	"financial":   {"finance", "metric"},
	"technical":   {"scope", "evidence"},
	"compliance":  {"risk", "scope", "evidence"},
}

// thinSection is the length under which a section counts as thin.
const thinSection = 200

// reviewPerspectives writes a multi-perspective review step: each
// perspective questions every earlier step, and the consolidated findings
// list what can be observed (thin sections, key terms never mentioned).
func reviewPerspectives(r llm.Request, b brief, headings []string) []llm.Section {
	out := make([]llm.Section, 0, len(headings))
	for i, h := range headings {
		if i == len(headings)-1 {
			out = append(out, llm.Section{Heading: h, Content: consolidatedFindings(r, b)})
			continue
		}
		key := strings.ToLower(strings.Fields(h)[0])
		q, ok := perspectiveQuestions[key]
		if !ok {
			q = "does it hold up from this angle?"
		}
		lines := []string{fmt.Sprintf("%s on the %s: %s", h, b.short, q)}
		if len(r.Prior) == 0 {
			lines = append(lines, "- No earlier step outputs were supplied; the review covers the task description only.")
		}
		for _, p := range r.Prior {
			if hs := sectionsOfClass(p, perspectiveClasses[key]); len(hs) > 0 {
				lines = append(lines, fmt.Sprintf("- %s: addressed under %s; check that it is specific to %s.", p.Name, joinAnd(quoted(hs)), b.phrase(i+p.Step)))
			} else {
				lines = append(lines, fmt.Sprintf("- %s: nothing on this yet; the synthesis should add it for %s.", p.Name, b.phrase(i+p.Step)))
			}
		}
		out = append(out, llm.Section{Heading: h, Content: strings.Join(lines, "\n")})
	}
	return out
}

// sectionsOfClass returns the headings of p whose class is in classes.
func sectionsOfClass(p llm.PriorStep, classes []string) []string {
	var out []string
	for _, s := range p.Sections {
		c := headingClass(s.Heading)
		for _, want := range classes {
			if c == want {
				out = append(out, s.Heading)
				break
			}
		}
	}
	return out
}

// consolidatedFindings lists the observable gaps of the earlier steps.
func consolidatedFindings(r llm.Request, b brief) string {
	var thin []string
	var all strings.Builder
	sections := 0
	for _, p := range r.Prior {
		all.WriteString(strings.ToLower(p.Summary + " "))
		for _, s := range p.Sections {
			sections++
			all.WriteString(strings.ToLower(s.Heading + " " + s.Content + " "))
			if utf8.RuneCountInString(strings.TrimSpace(s.Content)) < thinSection {
				thin = append(thin, fmt.Sprintf("%s / %s", p.Name, s.Heading))
			}
		}
	}
	var missing []string
	for _, t := range keyTerms(r.Description, 12) {
		if !strings.Contains(all.String(), stem(t)) {
			missing = append(missing, t)
		}
	}
	lines := []string{fmt.Sprintf("%d earlier steps reviewed, %d sections in all.", len(r.Prior), sections)}
	if len(thin) > 0 {
		lines = append(lines, "- Thin sections to expand: "+joinAnd(thin)+".")
	}
	if len(missing) > 0 && len(r.Prior) > 0 {
		lines = append(lines, "- Key terms of the task not yet addressed: "+joinAnd(missing)+".")
	}
	if len(thin) == 0 && (len(missing) == 0 || len(r.Prior) == 0) {
		lines = append(lines, "- No structural gaps found; the synthesis can proceed.")
	}
	lines = append(lines, fmt.Sprintf("- Before synthesis: make every recommendation on %s name an owner, a date and a measure.", b.phrase(0)))
	return strings.Join(lines, "\n")
}

// stem shortens a key term so that simple inflections still match
// ("markets" matches "market", "analysis" matches "analyse").
func stem(term string) string {
	r := []rune(term)
	if len(r) > 5 {
		return string(r[:len(r)-2])
	}
	return term
}
