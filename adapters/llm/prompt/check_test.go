package prompt

import (
	"strings"
	"testing"

	"svc/adapters/llm"
)

func TestCheckPrompt(t *testing.T) {
	m := Build(llm.Request{Kind: llm.KindCheck, Criterion: llm.CheckTone, Context: "You are WRONG!!", Description: "Quality gate"})
	if Markers(m[0].Content)["kind"] != llm.KindCheck || !strings.Contains(m[0].Content, "tone") || !strings.Contains(m[0].Content, "path_to_100") {
		t.Errorf("system prompt: %s", m[0].Content)
	}
	if !strings.Contains(m[1].Content, "## Output to check\nYou are WRONG!!") || strings.Contains(m[1].Content, "## Context") ||
		!strings.Contains(m[1].Content, "on tone only") {
		t.Errorf("user prompt: %s", m[1].Content)
	}
}
