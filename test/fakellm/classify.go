package fakellm

import (
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/prompt"
)

// ClassifyConfidence is the confidence of classify answers.
const ClassifyConfidence = 0.9

// classifyAnswer answers a classify call with one of the task type ids its
// prompt lists: the first whose words (its id with spaces for
// underscores) the task contains, else the first listed. A rule's Answer
// replaces it (Rule{Match: "kind=classify", Answer: ...}).
func classifyAnswer(c Call) string {
	user := ""
	for _, m := range c.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	ids := prompt.ChoiceIDs(user)
	if len(ids) == 0 {
		return mustJSON(llm.Classification{})
	}
	task := user
	if _, rest, ok := strings.Cut(user, "## Task\n"); ok {
		task, _, _ = strings.Cut(rest, "\n\n## ")
	}
	task = " " + strings.Join(strings.Fields(strings.ToLower(task)), " ") + " "
	pick := ids[0]
	for _, id := range ids {
		if strings.Contains(task, " "+strings.ReplaceAll(strings.ToLower(id), "_", " ")) {
			pick = id
			break
		}
	}
	return mustJSON(llm.Classification{TaskType: pick, Confidence: ClassifyConfidence})
}
