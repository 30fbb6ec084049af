package planning

import (
	"slices"
	"testing"

	"svc/domain/catalog"
)

func TestStemFoldsInflectionsTogether(t *testing.T) {
	for _, group := range [][]string{
		{"plan", "plans", "planning", "planned", "planner"},
		{"rate", "rates", "rated", "rating"},
		{"price", "prices", "pricing"},
		{"automate", "automated", "automation"},
		{"implement", "implementing", "implementation"},
		{"organise", "organize", "organisation", "organizations"},
		{"analyse", "analyze", "analysed"},
		{"supplier", "suppliers", "supply"},
		{"requirement", "requirements", "required"},
		{"business", "businesses"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want equal", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
	// words the old stemmer cut into other words stay apart
	for _, pair := range [][2]string{{"comments", "com"}, {"document", "docu"}, {"news", "new"}, {"status", "stat"}} {
		if stem(pair[0]) == stem(pair[1]) {
			t.Errorf("stem(%q) = stem(%q) = %q", pair[0], pair[1], stem(pair[0]))
		}
	}
}

func TestTokensKeepCompounds(t *testing.T) {
	words, compounds := tokens("Out-of-office reply, a/b test and a ramp-up plan")
	if !slices.Equal(compounds, []string{"outofoffic", "ab", "rampup"}) {
		t.Errorf("compounds %v", compounds)
	}
	if slices.Contains(words, "out") || !slices.Contains(words, "ramp") || !slices.Contains(words, "reply") {
		t.Errorf("words %v", words)
	}
	f := features("out-of-office message")
	if slices.Contains(f, "offic_outofoffic") || !slices.Contains(f, "offic_messag") {
		t.Errorf("features %v: compounds must stay out of word pairs", f)
	}
}

func TestQuestionFeature(t *testing.T) {
	for in, want := range map[string]string{
		"Who is the CEO of Datadog?":     "?who",
		"how many employees does X have": "?how_many",
		"How should we price it":         "?how",
		"what's the VAT rate":            "?what",
		"write a blog post":              "",
		"":                               "",
	} {
		if got := question(in); got != want {
			t.Errorf("question(%q) = %q, want %q", in, got, want)
		}
	}
	c := NewClassifier(catalog.Default()).Classify("when was Airbnb founded?")
	if c.TaskType != "quick_research" || c.Confidence < 0.40 {
		t.Errorf("short factual question: %+v", c)
	}
}
