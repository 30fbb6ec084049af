package llm

import (
	"errors"
	"testing"
)

var testChoices = []TaskChoice{
	{ID: "competitive_analysis", Label: "Competitive analysis"},
	{ID: "blog_post", Label: "Blog post"},
}

func TestParseClassification(t *testing.T) {
	for _, c := range []struct {
		text string
		want Classification
	}{
		{`{"task_type":"blog_post","confidence":0.8}`, Classification{TaskType: "blog_post", Confidence: 0.8}},
		{"```json\n{\"task_type\": \" Competitive_Analysis \", \"confidence\": 1}\n```", Classification{TaskType: "competitive_analysis", Confidence: 1}},
		{`{"task_type":"blog_post","confidence":0,"reason":"extra keys are ignored"}`, Classification{TaskType: "blog_post"}},
	} {
		got, err := ParseClassification(c.text, testChoices)
		if err != nil || got != c.want {
			t.Errorf("ParseClassification(%q) = %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
	for name, text := range map[string]string{
		"unknown id":          `{"task_type":"press_release","confidence":0.9}`,
		"empty id":            `{"task_type":" ","confidence":0.9}`,
		"no id":               `{"confidence":0.9}`,
		"bad JSON":            `{"task_type": "blog_post", "confidence":`,
		"not an object":       `blog_post`,
		"text after":          `{"task_type":"blog_post","confidence":0.5} sure!`,
		"confidence above 1":  `{"task_type":"blog_post","confidence":1.5}`,
		"confidence below 0":  `{"task_type":"blog_post","confidence":-0.1}`,
		"no confidence":       `{"task_type":"blog_post"}`,
		"confidence a string": `{"task_type":"blog_post","confidence":"0.9"}`,
		"id a number":         `{"task_type":3,"confidence":0.9}`,
	} {
		if got, err := ParseClassification(text, testChoices); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %+v, %v; want ErrMalformed", name, got, err)
		}
	}
}

func TestValidateClassifyAnswer(t *testing.T) {
	r := Request{Kind: KindClassify, Choices: testChoices}
	text, err := ValidateAnswer(r, "```json\n{\"task_type\":\"BLOG_POST\",\"confidence\":0.75}\n```")
	if err != nil || text != `{"task_type":"blog_post","confidence":0.75}` {
		t.Fatalf("normalised %q, %v", text, err)
	}
	if _, err := ValidateAnswer(r, `{"task_type":"nope","confidence":0.75}`); !errors.Is(err, ErrMalformed) {
		t.Fatalf("unknown id: %v", err)
	}
	if !JSONKind(KindClassify) || !ValidKind(KindClassify) {
		t.Fatal("classify is a JSON kind")
	}
}

func TestCheckRequest(t *testing.T) {
	if err := CheckRequest(Request{Kind: KindClassify, Choices: testChoices}); err != nil {
		t.Fatal(err)
	}
	if err := CheckRequest(Request{Kind: KindStep}); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Request{
		"unknown kind": {Kind: "poem"},
		"no choices":   {Kind: KindClassify},
		"choice no id": {Kind: KindClassify, Choices: []TaskChoice{{Label: "Blog post"}}},
	} {
		if err := CheckRequest(r); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want ErrBadRequest", name, err)
		}
	}
}
