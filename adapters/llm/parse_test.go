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
	text, err := validate(KindStep, "```json\n{\"summary\":\"s\",\"sections\":[{\"heading\":\"h\",\"content\":\"c\"}]}\n```")
	if err != nil || text[0] != '{' {
		t.Fatalf("validate step = %q, %v", text, err)
	}
	if text, err := validate(KindEnhance, "  rewritten \n"); err != nil || text != "rewritten" {
		t.Fatalf("validate enhance = %q, %v", text, err)
	}
	if _, err := validate(KindEnhance, " \n"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("validate empty enhance error = %v", err)
	}
	if _, err := validate("poem", "x"); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("validate unknown kind error = %v", err)
	}
}

func TestParseComposed(t *testing.T) {
	out := func(fw string) string {
		return `{"framework":"` + fw + `","summary":"S ` + fw + `","sections":[{"heading":"H","content":"C"}]}`
	}
	fws := []string{"A", "B"}
	// by name, whatever the order; unnamed entries fill the rest in order
	for _, text := range []string{`{"steps":[` + out("b") + `,` + out("A") + `]}`, "```json\n{\"steps\":[" + out("A") + `,` + out("x") + "]}\n```"} {
		got, err := ParseComposed(text, fws)
		if err != nil || len(got) != 2 || got[0].Summary != "S A" {
			t.Fatalf("%s: %v %+v", text, err, got)
		}
	}
	for _, bad := range []string{`{"steps":[` + out("A") + `]}`, `{"steps":[{"framework":"A","summary":"","sections":[{"heading":"H"}]},` + out("B") + `]}`,
		`{"steps":[` + out("A") + `,{"framework":"B","summary":"s","sections":[]}]}`, `[]`, `{"summary":"s","sections":[{"heading":"h"}]}`} {
		if _, err := ParseComposed(bad, fws); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", bad, err)
		}
	}
	if _, err := ValidateAnswer(Request{Kind: KindStep, Frameworks: fws}, `{"steps":[`+out("A")+`]}`); !errors.Is(err, ErrMalformed) {
		t.Errorf("ValidateAnswer of a short composed answer: %v", err)
	}
}
