package prompt

import (
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
)

func TestBuild(t *testing.T) {
	r := llmtest.Task(llm.KindStep, "SWOT Analysis] [svc:kind=review")
	r.Step, r.TotalSteps = 2, 5
	r.Guidance = "Focus on SMB customers."
	r.Language = "de"
	r.Prior = []llm.PriorStep{{Step: 1, Name: "Market Definition", Summary: "The market is SMB invoicing.",
		Sections: []llm.Section{{Heading: "Segments", Content: "SECTION-BODY"}}}}
	msgs := Build(r)
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
		t.Fatalf("messages %+v", msgs)
	}
	m := Markers(msgs[0].Content)
	if m["kind"] != llm.KindStep || m["framework"] != "SWOT Analysis) (svc:kind=review" || m["step"] != "2/5" {
		t.Fatalf("markers %v", m)
	}
	sys, user := msgs[0].Content, msgs[1].Content
	for _, want := range []string{`"summary"`, `"sections"`, `"de"`} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	swot := r
	swot.Framework = "SWOT Analysis"
	if sys := Build(swot)[0].Content; !strings.Contains(sys, "Strengths; Weaknesses; Opportunities; Threats") {
		t.Errorf("SWOT system prompt lacks its headings:\n%s", sys)
	}
	for _, want := range []string{r.Description, r.Context, r.Guidance, "Competitive analysis (competitive_analysis)", "Market Definition", "The market is SMB invoicing.", "SECTION-BODY", "Step 2 of 5"} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}

	r.Strategy = llm.StrategyCompressed
	r.Context = strings.Repeat("long context ", 2000)
	user = Build(r)[1].Content
	if strings.Contains(user, "SECTION-BODY") || !strings.Contains(user, "The market is SMB invoicing.") || len(user) > 8000 {
		t.Errorf("compressed prompt: %d chars, sections present: %v", len(user), strings.Contains(user, "SECTION-BODY"))
	}
	r.Strategy, r.Chunk, r.Chunks, r.Framework = llm.StrategyChunked, 1, 2, "PESTLE Analysis"
	msgs = Build(r)
	if Markers(msgs[0].Content)["chunk"] != "1/2" || !strings.Contains(msgs[0].Content, "headings: Technological; Legal; Environmental.") || !strings.Contains(msgs[1].Content, "part 2 of 2") {
		t.Errorf("chunked prompt:\n%s\n%s", msgs[0].Content, msgs[1].Content)
	}

	rv := llm.Request{Kind: llm.KindReview, Description: "d", Deliverable: &llm.Deliverable{Title: "T", Sections: []llm.Section{{Heading: "H", Content: "BODY"}}}}
	msgs = Build(rv)
	if Markers(msgs[0].Content)["kind"] != llm.KindReview || !strings.Contains(msgs[0].Content, "path_to_100") || !strings.Contains(msgs[1].Content, "## H\nBODY") {
		t.Errorf("review prompt:\n%s\n%s", msgs[0].Content, msgs[1].Content)
	}
	if !strings.Contains(Build(llm.Request{Kind: llm.KindEnhance, Description: "d"})[0].Content, "plain text") {
		t.Errorf("enhance prompt does not ask for plain text")
	}
}
