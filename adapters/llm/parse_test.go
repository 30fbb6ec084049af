package llm

import (
	"errors"
	"testing"
)

func TestParseStep(t *testing.T) {
	good := `{"summary":"s","sections":[{"heading":"Strengths","content":"x"}]}`
	for _, text := range []string{good, "```json\n" + good + "\n```", "```\n" + good + "\n```", "  " + good + "\n"} {
		out, err := ParseStep(text)
		if err != nil || out.Summary != "s" || len(out.Sections) != 1 || out.Sections[0].Heading != "Strengths" {
			t.Errorf("ParseStep(%q) = %+v, %v", text, out, err)
		}
	}
	bad := []string{
		"", "not json", `{"summary":"","sections":[{"heading":"a","content":"b"}]}`,
		`{"summary":"s","sections":[]}`, `{"summary":"s"}`,
		`{"summary":"s","sections":[{"heading":" ","content":"b"}]}`,
		good + " trailing", good + "}", `[` + good + `]`, "```python\n" + good + "\n```",
		`{"summary":"s","sections":"nope"}`,
	}
	for _, text := range bad {
		if _, err := ParseStep(text); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseStep(%q) error = %v, want ErrMalformed", text, err)
		}
	}
}

func TestParseDeliverable(t *testing.T) {
	d, err := ParseDeliverable(`{"title":"T","sections":[{"heading":"Executive Summary","content":"c"}]}`)
	if err != nil || d.Title != "T" || len(d.Sections) != 1 {
		t.Fatalf("ParseDeliverable = %+v, %v", d, err)
	}
	for _, text := range []string{`{"title":"T","sections":[]}`, `{"title":"T"}`, `"T"`} {
		if _, err := ParseDeliverable(text); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseDeliverable(%q) error = %v, want ErrMalformed", text, err)
		}
	}
}

func TestParseReview(t *testing.T) {
	r, err := ParseReview(`{"score":87,"summary":"ok","path_to_100":["add x"," "]}`)
	if err != nil || r.Score != 87 || r.Summary != "ok" || len(r.PathTo100) != 1 {
		t.Fatalf("ParseReview = %+v, %v", r, err)
	}
	r, err = ParseReview("```json\n{\"score\":99.6,\"summary\":\"ok\"}\n```")
	if err != nil || r.Score != 100 || r.PathTo100 == nil || len(r.PathTo100) != 0 {
		t.Fatalf("ParseReview fractional = %+v, %v", r, err)
	}
	for _, text := range []string{`{"summary":"ok"}`, `{"score":101,"summary":"ok"}`, `{"score":-1,"summary":"ok"}`,
		`{"score":50,"summary":""}`, `{"score":"50","summary":"ok"}`} {
		if _, err := ParseReview(text); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseReview(%q) error = %v, want ErrMalformed", text, err)
		}
	}
}

func TestValidate(t *testing.T) {
	text, err := Validate(KindStep, "```json\n{\"summary\":\"s\",\"sections\":[{\"heading\":\"h\",\"content\":\"c\"}]}\n```")
	if err != nil || text[0] != '{' {
		t.Fatalf("Validate step = %q, %v", text, err)
	}
	if text, err := Validate(KindEnhance, "  rewritten \n"); err != nil || text != "rewritten" {
		t.Fatalf("Validate enhance = %q, %v", text, err)
	}
	if _, err := Validate(KindEnhance, " \n"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Validate empty enhance error = %v", err)
	}
	if _, err := Validate("poem", "x"); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("Validate unknown kind error = %v", err)
	}
}
