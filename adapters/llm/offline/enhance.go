package offline

import (
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
)

// audienceWords name readers a description may already state.
var audienceWords = []string{"board", "investors", "executives", "leadership", "management", "managers", "customers", "engineers", "developers", "team", "stakeholders", "students", "clients", "recruiters", "candidates", "readers"}

// writeEnhanced rewrites the description of r as a structured brief:
// objective, scope, audience, context, deliverable, constraints and success
// criteria, then the original words. It keeps what the user wrote, invents
// no facts and marks what is still to be specified.
func writeEnhanced(r llm.Request) string {
	b := newBrief(r)
	desc := textutil.OneLine(r.Description)
	var lines []string
	add := func(label, text string) { lines = append(lines, label+": "+text) }
	objective := capitalize(b.subject)
	if desc == "" {
		objective = "to be specified: describe the task in a few sentences."
	}
	add("Objective", strings.TrimRight(objective, ".")+".")
	if r.TaskLabel != "" || r.TaskType != "" {
		add("Task type", capitalize(b.label))
	}
	add("Scope", "cover "+joinAnd(b.distinctPhrases(0, 5))+"; say what is out of scope.")
	if a := statedAudience(desc); a != "" {
		add("Audience", "the "+a+" named in the task; write for what they decide.")
	} else {
		add("Audience", "to be specified: who reads the result and what they decide with it.")
	}
	if b.context != "" {
		add("Context", b.context)
	} else {
		add("Context", "to be specified: the organisation, market, current situation and any data available.")
	}
	kind := b.label
	if kind == "task" {
		kind = "structured document"
	}
	add("Deliverable", fmt.Sprintf("a %s with an executive summary, one section per analysis and concrete next steps.", kind))
	if b.guidance != "" {
		add("Constraints", b.guidance)
	} else {
		add("Constraints", "to be specified: deadline, budget, tone and anything that must not change.")
	}
	add("Success criteria", fmt.Sprintf("every recommendation on %s names an owner, a date and a measure of success.", b.phrase(0)))
	if desc != "" {
		lines = append(lines, "", "Original description: "+desc)
	}
	return withNote(r.Language, strings.Join(lines, "\n"))
}

// statedAudience returns the first audience word desc mentions, or "".
func statedAudience(desc string) string {
	ws := map[string]bool{}
	for _, w := range words(strings.ToLower(desc)) {
		ws[w] = true
	}
	for _, a := range audienceWords {
		if ws[a] {
			return a
		}
	}
	return ""
}
