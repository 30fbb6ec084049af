package enhance

import "strings"

// Brief rewrites a description into a structured brief: the description,
// then one line per missing criterion with the suggestion for it. It is the
// offline writer's answer to the llm tier: deterministic, it adds structure
// and asks for what is missing, and invents nothing.
func Brief(description string, r Result) string {
	var b strings.Builder
	b.WriteString("Task: ")
	b.WriteString(strings.Join(strings.Fields(description), " "))
	if len(r.Missing) == 0 {
		return b.String()
	}
	b.WriteString("\n\nTo make the result precise, specify:")
	for i, m := range r.Missing {
		b.WriteString("\n- ")
		b.WriteString(strings.ToUpper(m[:1]) + m[1:])
		b.WriteString(": ")
		if i < len(r.Suggestions) {
			b.WriteString(suggestionFor(m, r.Suggestions))
		}
	}
	return b.String()
}

// suggestionFor picks the suggestion that names criterion m, or the first.
func suggestionFor(m string, suggestions []string) string {
	for _, s := range suggestions {
		if strings.Contains(strings.ToLower(s), m) {
			return s
		}
	}
	return suggestions[0]
}
