package enhance_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"svc/domain/enhance"
)

const complete = "Write a one-page memo for our CFO comparing our SaaS pricing with three competitors (Acme, Globex, Initech) in a table, EU market only, by Friday, neutral tone; we are a 40-person B2B startup"

func assess(t *testing.T, desc, taskType string) enhance.Result {
	t.Helper()
	r, err := enhance.Assess(desc, taskType)
	if err != nil {
		t.Fatalf("Assess(%q): %v", desc, err)
	}
	if r.Score < 0 || r.Score > 100 {
		t.Fatalf("Assess(%q) score %d out of range", desc, r.Score)
	}
	return r
}

func TestVagueScoresLow(t *testing.T) {
	for _, d := range []string{
		"help me with stuff",
		"do the thing we discussed",
		"make it better",
		"something about our company",
		"Write something about pricing",
		"I need something for the meeting about our product",
	} {
		r := assess(t, d, "")
		if r.Score >= 30 {
			t.Errorf("%q: score %d, want < 30", d, r.Score)
		}
		for _, c := range []string{"audience", "scope", "format"} {
			if !slices.Contains(r.Missing, c) {
				t.Errorf("%q: Missing %v lacks %q", d, r.Missing, c)
			}
		}
		if len(r.Suggestions) < 3 {
			t.Errorf("%q: only %d suggestions", d, len(r.Suggestions))
		}
	}
}

func TestCompleteScoresHigh(t *testing.T) {
	r := assess(t, complete, "")
	if r.Score < 85 {
		t.Errorf("score %d, want >= 85; missing %v; suggestions %q", r.Score, r.Missing, r.Suggestions)
	}
	if len(r.Missing) != 0 {
		t.Errorf("Missing = %v, want none", r.Missing)
	}
	if len(r.Suggestions) > 1 {
		t.Errorf("%d suggestions, want at most 1: %q", len(r.Suggestions), r.Suggestions)
	}
	if r2 := assess(t, complete, "competitive_analysis"); r2.Score != r.Score {
		t.Errorf("task type changed the score: %d vs %d", r2.Score, r.Score)
	}
}

func TestFullyCompleteHasNoSuggestions(t *testing.T) {
	d := "Draft a two-page report for our board comparing Q3 churn across our three EU markets, as bullet points with one table, due Monday, formal tone; we are a 200-person fintech and the data is attached"
	r := assess(t, d, "data_analysis_report")
	if r.Score != 100 || len(r.Suggestions) != 0 || len(r.Missing) != 0 {
		t.Errorf("got %+v, want score 100 and no suggestions", r)
	}
}

func TestMonotonic(t *testing.T) {
	pairs := []struct{ base, add string }{
		{"compare our pricing with three competitors", " for our head of sales"},
		{"compare our pricing with three competitors", " in a table"},
		{"compare our pricing with three competitors", ", by Friday, neutral tone"},
		{"compare our pricing with three competitors", " in 300 words"},
		{"compare our pricing with three competitors", "; we are a 40-person B2B startup"},
		{"something about our company", " for new employees"},
		{"pricing", " compare it"},
		{"write a blog post", " about Kubernetes cost savings in 2024, EU customers only"},
		{"Write a memo for our CFO", " comparing Acme and Globex"},
		{"review the attached code", " and must not change the public API"},
		{complete, " in about 400 words"},
	}
	for _, p := range pairs {
		for _, tt := range []string{"", "pricing_strategy", "code_review"} {
			a := assess(t, p.base, tt)
			b := assess(t, p.base+p.add, tt)
			if b.Score < a.Score {
				t.Errorf("adding %q to %q lowered the score: %d -> %d", p.add, p.base, a.Score, b.Score)
			}
		}
	}
	// A chain: each step adds one criterion; the score strictly rises.
	chain := []string{
		"pricing comparison",
		" please compare",
		" for our head of sales",
		" covering Acme, Globex and Initech in the EU market for Q3",
		" as a memo with a table",
		" by Friday in a neutral tone",
		" in about 500 words",
		"; we are a 40-person B2B startup",
	}
	d, prev := "", -1
	for _, step := range chain {
		d += step
		s := assess(t, d, "").Score
		if s <= prev {
			t.Errorf("adding %q did not raise the score: %d -> %d", step, prev, s)
		}
		prev = s
	}
}

func TestLengthLimit(t *testing.T) {
	base := "Compare our pricing with three competitors for our CFO in a table. "
	var b strings.Builder
	for b.Len() < enhance.MaxLength {
		b.WriteString(base)
	}
	runes := []rune(b.String())
	// Use a multi-byte rune so that the limit is counted in characters, not bytes.
	runes = append([]rune("é"), runes...)
	ok := string(runes[:enhance.MaxLength])
	if _, err := enhance.Assess(ok, ""); err != nil {
		t.Errorf("exactly %d runes: %v", enhance.MaxLength, err)
	}
	tooLong := string(runes[:enhance.MaxLength]) + "x"
	if _, err := enhance.Assess(tooLong, ""); !errors.Is(err, enhance.ErrTooLong) {
		t.Errorf("%d runes: err %v, want ErrTooLong", enhance.MaxLength+1, err)
	}
	allMultiByte := strings.Repeat("é", enhance.MaxLength)
	if _, err := enhance.Assess(allMultiByte, ""); err != nil {
		t.Errorf("%d two-byte runes: %v", enhance.MaxLength, err)
	}
}

func TestEmpty(t *testing.T) {
	for _, d := range []string{"", " ", "\n\t  "} {
		if _, err := enhance.Assess(d, "blog_post"); !errors.Is(err, enhance.ErrEmpty) {
			t.Errorf("%q: err %v, want ErrEmpty", d, err)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range []string{complete, "help me with stuff", "compare our pricing with three competitors"} {
		first := assess(t, d, "pricing_strategy")
		for i := 0; i < 50; i++ {
			if r := assess(t, d, "pricing_strategy"); !reflect.DeepEqual(r, first) {
				t.Fatalf("%q: run %d gave %+v, first gave %+v", d, i, r, first)
			}
		}
	}
}

func TestTailoredSuggestions(t *testing.T) {
	d := "compare our pricing with three competitors"
	gen := assess(t, d, "")
	tailored := assess(t, d, "pricing_strategy")
	if reflect.DeepEqual(gen.Suggestions, tailored.Suggestions) {
		t.Fatalf("tailored suggestions equal generic ones: %q", gen.Suggestions)
	}
	if gen.Score != tailored.Score || !reflect.DeepEqual(gen.Missing, tailored.Missing) {
		t.Errorf("task type changed score or missing: %+v vs %+v", gen, tailored)
	}
	want := "Name your audience, for example: 'for our head of sales'."
	if !slices.Contains(tailored.Suggestions, want) {
		t.Errorf("pricing_strategy suggestions %q lack %q", tailored.Suggestions, want)
	}
	// Unknown and differently cased types: unknown falls back to generic.
	if u := assess(t, d, "no_such_type"); !reflect.DeepEqual(u.Suggestions, gen.Suggestions) {
		t.Errorf("unknown type: %q, want generic %q", u.Suggestions, gen.Suggestions)
	}
	if c := assess(t, d, " Pricing_Strategy "); !reflect.DeepEqual(c.Suggestions, tailored.Suggestions) {
		t.Errorf("type id matching is not case-insensitive")
	}
}

func TestSuggestionsAreSentencesInImpactOrder(t *testing.T) {
	for _, tt := range []string{"", "blog_post", "code_review", "tag", "investment_memo"} {
		r := assess(t, "blog about our product", tt)
		if len(r.Suggestions) == 0 {
			t.Fatalf("no suggestions")
		}
		for _, s := range r.Suggestions {
			if s == "" || !strings.HasSuffix(s, ".") || strings.ToUpper(s[:1]) != s[:1] {
				t.Errorf("%s: suggestion %q is not a sentence", tt, s)
			}
		}
	}
	// Scope (20 points) is the heaviest criterion: when everything is
	// missing its suggestion comes first after the short-input note.
	r := assess(t, "hello there", "")
	if len(r.Missing) == 0 || r.Missing[0] != "scope" {
		t.Errorf("Missing = %v, want scope first", r.Missing)
	}
	if !strings.Contains(r.Suggestions[1], "scope") {
		t.Errorf("second suggestion %q, want the scope one", r.Suggestions[1])
	}
}

func TestShortInputScoresLow(t *testing.T) {
	for _, d := range []string{"pricing memo", "compare competitors for CFO", "write a table"} {
		if r := assess(t, d, ""); r.Score >= 30 {
			t.Errorf("%q: score %d, want < 30", d, r.Score)
		}
	}
}

func TestEveryTaskTypeHasExamples(t *testing.T) {
	types := strings.Fields(`blog_post press_release sales_email_sequence internal_announcement code_review
		architecture_design incident_postmortem security_audit compliance_assessment risk_assessment
		policy_drafting vendor_due_diligence job_description interview_plan performance_review
		onboarding_plan project_plan process_improvement launch_plan okr_planning product_requirements
		user_research_synthesis pricing_strategy growth_experiment_plan competitive_analysis
		market_research literature_review data_analysis_report business_plan financial_model_review
		strategic_plan investment_memo tag score rerank extract_entities parse_query compose cluster
		grade_set quick_research quick_classification quick_extraction quick_scoring`)
	gen := assess(t, "help me with stuff", "")
	for _, tt := range types {
		r := assess(t, "help me with stuff", tt)
		if reflect.DeepEqual(r.Suggestions, gen.Suggestions) {
			t.Errorf("%s: suggestions are the generic ones", tt)
		}
	}
}

func TestMonotonicCrossProduct(t *testing.T) {
	bases := []string{
		"help me with stuff",
		"pricing",
		"write the postmortem for yesterday's checkout outage",
		"tag these 40 support tickets by product area",
		"should we move from per-seat to usage-based pricing?",
		"Draft Q3 OKRs for the marketing team",
		complete,
	}
	additions := []string{
		" for our head of sales",
		" covering Acme and Globex, EU only, last 12 months",
		" as a table with bullet points",
		", by Friday, formal tone, avoid jargon",
		" in about 500 words",
		"; we are a 40-person startup and the data is attached",
		" please compare them",
	}
	for _, b := range bases {
		for _, a := range additions {
			before, after := assess(t, b, "").Score, assess(t, b+a, "").Score
			if after < before {
				t.Errorf("adding %q to %q lowered the score: %d -> %d", a, b, before, after)
			}
		}
	}
}
