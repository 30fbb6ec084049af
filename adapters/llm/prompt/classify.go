package prompt

import (
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
)

// Classify call limits, in characters.
const (
	maxClassifyDescription = 4000 // the description to classify
	maxChoiceDescription   = 200  // one task type's description line
)

// choicesTitle is the user prompt's section listing a classify call's
// task types, one "- id: Label. Description" line each.
const choicesTitle = "Task types"

// classifySystem is the role and answer format of a classify call.
func classifySystem() string {
	return "You classify a task description: name the one task type, from the list the user gives, whose deliverable the description asks for." +
		"\nJudge by the deliverable requested, not by the topic or the background given." +
		"\nAnswer with one JSON object and nothing else: {\"task_type\": string (one id from the list, exactly as written), \"confidence\": number from 0 to 1}." +
		"\nconfidence is how likely the task type is right; use a low value when the description fits several types or none well."
}

// choicesText lists the task types of a classify call, one line each.
func choicesText(choices []llm.TaskChoice) string {
	lines := make([]string, 0, len(choices))
	for _, c := range choices {
		line := "- " + textutil.OneLine(c.ID) + ":"
		if l := textutil.OneLine(c.Label); l != "" {
			line += " " + strings.TrimSuffix(l, ".") + "."
		}
		if d := textutil.Clip(textutil.OneLine(c.Description), maxChoiceDescription); d != "" {
			line += " " + d
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// ChoiceIDs returns the task type ids a classify call's user prompt
// lists, in order (nil when it lists none): what a fake API
// (test/fakellm) may answer with.
func ChoiceIDs(user string) []string {
	_, rest, ok := strings.Cut(user, "## "+choicesTitle+"\n")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "\n\n## ")
	var ids []string
	for _, line := range strings.Split(rest, "\n") {
		item, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		if id, _, ok := strings.Cut(item, ":"); ok && strings.TrimSpace(id) != "" {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	return ids
}
