package prompt

import (
	"slices"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
)

func TestBuildClassify(t *testing.T) {
	r := llmtest.Classify()
	r.Language = "de"
	r.Choices = append(slices.Clone(r.Choices), llm.TaskChoice{ID: "odd_one", Label: "Odd\none.", Description: strings.Repeat("long ", 100)})
	msgs := Build(r)
	sys, user := msgs[0].Content, msgs[1].Content
	if m := Markers(sys); m["kind"] != llm.KindClassify || len(m) != 1 {
		t.Fatalf("markers %v", m)
	}
	for _, want := range []string{`"task_type"`, `"confidence"`, "number from 0 to 1", "under 60 tokens"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, `"de"`) {
		t.Errorf("classify asks for prose in another language:\n%s", sys)
	}
	for _, want := range []string{"## Task\n" + r.Description, "## Task types\n",
		"- competitive_analysis: Competitive analysis. A comparison of competitors' offers, pricing and positioning.\n",
		"- blog_post: Blog post. A long-form article for a company blog.\n", "- odd_one: Odd one. long long"} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	if len(user) > 2000 {
		t.Errorf("a choice's description is not clipped: %d characters", len(user))
	}
	if got, want := ChoiceIDs(user), []string{"competitive_analysis", "blog_post", "press_release", "odd_one"}; !slices.Equal(got, want) {
		t.Fatalf("ChoiceIDs = %v, want %v", got, want)
	}
	if ids := ChoiceIDs(Build(llmtest.Task(llm.KindStep, "SWOT Analysis"))[1].Content); ids != nil {
		t.Fatalf("ChoiceIDs of a step prompt: %v", ids)
	}
}
