package offline

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/prompt"
)

// complete runs r on the offline writer and fails the test on error.
func complete(t *testing.T, r llm.Request) llm.Response {
	t.Helper()
	resp, err := New().Complete(context.Background(), r)
	if err != nil {
		t.Fatalf("offline %s %q: %v", r.Kind, r.Framework, err)
	}
	return resp
}

// step runs a KindStep request and parses it.
func step(t *testing.T, r llm.Request) llm.StepOutput {
	t.Helper()
	out, err := llm.ParseStep(complete(t, r).Text)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headings lists the headings of sections.
func headings(ss []llm.Section) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Heading
	}
	return out
}

// runWorkflow runs the frameworks as steps and returns their outputs.
func runWorkflow(t *testing.T, fws ...string) []llm.PriorStep {
	t.Helper()
	var prior []llm.PriorStep
	for i, f := range fws {
		r := llmtest.Task(llm.KindStep, f)
		r.Step, r.TotalSteps, r.Prior = i+1, len(fws)+1, prior
		out := step(t, r)
		prior = append(prior, llm.PriorStep{Step: i + 1, Name: f, Summary: out.Summary, Sections: out.Sections})
	}
	return prior
}

func TestOfflineDeterministic(t *testing.T) {
	prior := runWorkflow(t, "SWOT Analysis", "Porter's Five Forces")
	d, _ := llm.ParseDeliverable(complete(t, llm.Request{Kind: llm.KindSynthesis, Description: "x y z", Prior: prior}).Text)
	reqs := []llm.Request{llmtest.Task(llm.KindStep, "SWOT Analysis"), llmtest.Task(llm.KindEnhance, ""), llmtest.Task(llm.KindSynthesis, "")}
	reqs[2].Prior = prior
	rv := llmtest.Task(llm.KindReview, "")
	rv.Deliverable = &d
	reqs = append(reqs, rv)
	for _, r := range reqs {
		a, b := complete(t, r), complete(t, r)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ:\n%+v\n%+v", r.Kind, a, b)
		}
		if a.Model != Model || a.Provider != Name || a.CostUSD != 0 || a.Attempts != 1 || a.Fallback {
			t.Errorf("%s: response metadata %+v", r.Kind, a)
		}
		in := 0
		for _, m := range prompt.Build(r) {
			in += len([]rune(m.Content))
		}
		if a.Usage.PromptTokens != (in+3)/4 || a.Usage.CompletionTokens != (len([]rune(a.Text))+3)/4 {
			t.Errorf("%s: usage %+v, want chars/4 of %d and %d", r.Kind, a.Usage, in, len([]rune(a.Text)))
		}
	}
}

func TestOfflineFrameworkFit(t *testing.T) {
	cases := map[string][]string{
		"SWOT Analysis":        {"Strengths", "Weaknesses", "Opportunities", "Threats"},
		"PESTLE Analysis":      {"Political", "Economic", "Social", "Technological", "Legal", "Environmental"},
		"Porter's Five Forces": {"Competitive Rivalry", "Threat of New Entrants", "Threat of Substitutes", "Buyer Power", "Supplier Power"},
		"OKR Framework":        {"Objectives", "Key Results"},
		"OKRs":                 {"Objectives", "Key Results"},
		"RICE Prioritization":  {"Reach and Impact", "Confidence and Effort"},
		"Risk Register":        {"Identified Risks", "Likelihood and Impact", "Mitigations"},
		"Stakeholder Map":      {"Stakeholders", "Influence and Interest"},
		"User personas":        {"Persona Profiles", "Goals and Motivations"},
		"Root cause (5 Whys)":  {"Problem Statement", "Why Chain", "Root Cause"},
		"swot analysis":        {"Strengths", "Weaknesses"},
		"SWOT Analysis (Acme)": {"Strengths", "Weaknesses"},
	}
	for fw, want := range cases {
		out := step(t, llmtest.Task(llm.KindStep, fw))
		got := headings(out.Sections)
		for _, h := range want {
			if !slices.Contains(got, h) {
				t.Errorf("%s: headings %v lack %q", fw, got, h)
			}
		}
	}
	out := step(t, llmtest.Task(llm.KindStep, "SWOT Analysis"))
	all := strings.ToLower(out.Summary)
	for _, s := range out.Sections {
		all += " " + strings.ToLower(s.Content)
	}
	for _, want := range []string{"b2b invoicing saas", "german market", "channel partners", "competitive analysis", "40 customers in austria"} {
		if !strings.Contains(all, want) {
			t.Errorf("SWOT output does not mention %q", want)
		}
	}
}

func TestOfflineRequestHeadings(t *testing.T) {
	r := llmtest.Task(llm.KindStep, "Custom Thing")
	r.Headings = []string{"Alpha", " ", "Beta"}
	if got := headings(step(t, r).Sections); !reflect.DeepEqual(got, []string{"Alpha", "Beta"}) {
		t.Fatalf("headings = %v", got)
	}
}

func TestOfflinePlannerAndUnknownSteps(t *testing.T) {
	prior := runWorkflow(t, "SWOT Analysis", "Risk Register")
	cases := map[string][]string{
		"Multi-Perspective Review (Lightweight)": {"Customer Perspective", "Risk Perspective", "Consolidated Findings"},
		"Multi-Perspective Review (Full)":        {"Financial Perspective", "Compliance Perspective", "Consolidated Findings"},
		"Multi-Perspective Review":               {"Financial Perspective", "Consolidated Findings"},
		"Evidence Check":                         {"Claims Reviewed", "Unsupported Claims"},
		"Synthesis":                              {"Integrated Findings", "Recommendations", "Next Steps"},
		"Desk Research":                          {"Research Question", "Findings"},
		"Vendor Lock-in Risk Review":             {"Risks and Controls", "Remediation Plan"},
		"Frobnicator":                            {"Overview", "Recommendations"},
	}
	for fw, want := range cases {
		r := llmtest.Task(llm.KindStep, fw)
		r.Prior = prior
		out := step(t, r)
		got := headings(out.Sections)
		for _, h := range want {
			if !slices.Contains(got, h) {
				t.Errorf("%s: headings %v lack %q", fw, got, h)
			}
		}
		for _, s := range out.Sections {
			if strings.TrimSpace(s.Content) == "" {
				t.Errorf("%s: empty section %q", fw, s.Heading)
			}
		}
	}
	r := llmtest.Task(llm.KindStep, "Multi-Perspective Review (Standard)")
	r.Prior = prior
	out := step(t, r)
	if risk := out.Sections[2]; !strings.Contains(risk.Content, "“Threats”") || !strings.Contains(risk.Content, "“Identified Risks”") {
		t.Errorf("risk perspective does not point at the earlier risk sections:\n%s", risk.Content)
	}
	r = llmtest.Task(llm.KindStep, "Mystery Method")
	r.FrameworkDomain = "hr"
	if got := headings(step(t, r).Sections); !slices.Contains(got, "Success Measures") {
		t.Errorf("FrameworkDomain hr: headings %v", got)
	}
	if out := step(t, llmtest.Task(llm.KindStep, "Trend Analysis")); !strings.Contains(out.Summary, "No external sources") {
		t.Errorf("research step summary lacks the no-sources note: %s", out.Summary)
	}
	if _, err := New().Complete(context.Background(), llmtest.Task(llm.KindStep, "")); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("step without framework: %v", err)
	}
}

func TestOfflineStrategies(t *testing.T) {
	prior := runWorkflow(t, "SWOT Analysis", "PESTLE Analysis")
	normal := llmtest.Task(llm.KindStep, "Porter's Five Forces")
	normal.Prior = prior
	compressed := normal
	compressed.Strategy = llm.StrategyCompressed
	if n, c := complete(t, normal), complete(t, compressed); len(c.Text) >= len(n.Text) || c.Usage.PromptTokens >= n.Usage.PromptTokens {
		t.Errorf("compressed is not shorter: %d/%d chars, %d/%d prompt tokens", len(c.Text), len(n.Text), c.Usage.PromptTokens, n.Usage.PromptTokens)
	}
	var joined []string
	for i := range 3 {
		r := normal
		r.Strategy, r.Chunk, r.Chunks = llm.StrategyChunked, i, 3
		joined = append(joined, headings(step(t, r).Sections)...)
	}
	if want := frameworks.Headings("Porter's Five Forces"); !reflect.DeepEqual(joined, want) {
		t.Errorf("chunks join to %v, want %v", joined, want)
	}
	for _, kind := range []string{llm.KindStep, llm.KindSynthesis} {
		r := normal
		r.Kind, r.Strategy, r.Chunk, r.Chunks = kind, llm.StrategyChunked, 3, 3
		if _, err := New().Complete(context.Background(), r); !errors.Is(err, llm.ErrBadRequest) {
			t.Errorf("%s chunk out of range: %v", kind, err)
		}
	}
	full, _ := llm.ParseDeliverable(complete(t, llm.Request{Kind: llm.KindSynthesis, Description: normal.Description, Prior: prior}).Text)
	var parts []llm.Section
	for i := range 2 {
		d, _ := llm.ParseDeliverable(complete(t, llm.Request{Kind: llm.KindSynthesis, Description: normal.Description, Prior: prior, Strategy: llm.StrategyChunked, Chunk: i, Chunks: 2}).Text)
		parts = append(parts, d.Sections...)
	}
	if !reflect.DeepEqual(parts, full.Sections) {
		t.Errorf("synthesis chunks do not join to the whole deliverable")
	}
}

func TestOfflineSynthesis(t *testing.T) {
	prior := runWorkflow(t, "SWOT Analysis", "Porter's Five Forces", "OKR Framework")
	r := llmtest.Task(llm.KindSynthesis, "")
	r.Prior = prior
	d, err := llm.ParseDeliverable(complete(t, r).Text)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Executive Summary", "SWOT Analysis", "Porter's Five Forces", "OKR Framework", "Next Steps"}
	if got := headings(d.Sections); d.Title != r.Title || !reflect.DeepEqual(got, want) {
		t.Fatalf("deliverable %q %v, want %q %v", d.Title, got, r.Title, want)
	}
	if !strings.Contains(d.Sections[4].Content, "“Key Results”") {
		t.Errorf("next steps do not point at the OKR measures:\n%s", d.Sections[4].Content)
	}
	r.Title, r.Prior = "", nil
	d, _ = llm.ParseDeliverable(complete(t, r).Text)
	if !strings.HasPrefix(d.Title, "Competitive analysis: ") || len(d.Sections) < 3 {
		t.Errorf("derived deliverable: %q with %d sections", d.Title, len(d.Sections))
	}
}

func TestOfflineReviewScores(t *testing.T) {
	prior := runWorkflow(t, "SWOT Analysis", "Porter's Five Forces")
	s := llmtest.Task(llm.KindSynthesis, "")
	s.Prior = prior
	good, _ := llm.ParseDeliverable(complete(t, s).Text)
	review := func(d llm.Deliverable) llm.Review {
		r := llmtest.Task(llm.KindReview, "")
		r.Deliverable = &d
		rv, err := llm.ParseReview(complete(t, r).Text)
		if err != nil {
			t.Fatal(err)
		}
		return rv
	}
	if rv := review(good); rv.Score != 100 || len(rv.PathTo100) != 0 {
		t.Fatalf("offline deliverable review = %+v", rv)
	}
	thin := llm.Deliverable{Title: "", Sections: []llm.Section{{Heading: "Notes", Content: "Some thoughts on invoicing."}, {Heading: "Later", Content: ""}}}
	rv := review(thin)
	if rv.Score >= 50 || len(rv.PathTo100) < 5 {
		t.Fatalf("thin deliverable review = %+v", rv)
	}
	for _, want := range []string{"title", "executive summary", "next-steps", "“Later”", "german", "Expand"} {
		if !strings.Contains(strings.Join(rv.PathTo100, " | "), want) {
			t.Errorf("path_to_100 %q lacks %q", rv.PathTo100, want)
		}
	}
	better := thin
	better.Title = "Invoicing"
	if rb := review(better); rb.Score <= rv.Score {
		t.Errorf("adding a title did not raise the score: %d -> %d", rv.Score, rb.Score)
	}
	if _, err := New().Complete(context.Background(), llmtest.Task(llm.KindReview, "")); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("review without deliverable: %v", err)
	}
	r := llmtest.Task(llm.KindReview, "")
	r.Deliverable, r.Strategy, r.Chunks = &good, llm.StrategyChunked, 2
	for chunk := range 2 {
		r.Chunk = chunk
		rv, err := llm.ParseReview(complete(t, r).Text)
		if err != nil || rv.Score != 100 || !strings.Contains(rv.Summary, "Part ") {
			t.Errorf("chunk %d review of a complete deliverable = %+v, %v", chunk, rv, err)
		}
	}
	r.Chunk = 2
	if _, err := New().Complete(context.Background(), r); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("review chunk out of range: %v", err)
	}
}

func TestOfflineEnhanceAndLanguage(t *testing.T) {
	r := llmtest.Task(llm.KindEnhance, "")
	text := complete(t, r).Text
	for _, want := range []string{"Objective:", "Scope:", "Success criteria:", "B2B invoicing SaaS", "Original description: " + r.Description} {
		if !strings.Contains(text, want) {
			t.Errorf("enhanced text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Written in English") {
		t.Errorf("English request got a language note")
	}
	r.Language = "de-DE"
	if text := complete(t, r).Text; !strings.HasPrefix(text, "(Written in English; requested language: de-DE)\n") {
		t.Errorf("German request: %q", text[:min(60, len(text))])
	}
	s := llmtest.Task(llm.KindStep, "SWOT Analysis")
	s.Language = "fr"
	if out := step(t, s); !strings.Contains(out.Summary, "(Written in English; requested language: fr)") {
		t.Errorf("step summary lacks the language note: %s", out.Summary)
	}
	s.Language = "en-GB"
	if out := step(t, s); strings.Contains(out.Summary, "Written in English") {
		t.Errorf("en-GB got a language note")
	}
}

func TestOfflineContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Complete(ctx, llmtest.Task(llm.KindStep, "SWOT Analysis")); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v", err)
	}
	if _, err := New().Complete(context.Background(), llm.Request{Kind: "poem"}); !errors.Is(err, llm.ErrBadRequest) {
		t.Fatalf("unknown kind error = %v", err)
	}
}

func TestOfflineSparseRequests(t *testing.T) {
	for _, r := range []llm.Request{
		{Kind: llm.KindStep, Framework: "SWOT Analysis"},
		{Kind: llm.KindStep, Framework: "SWOT Analysis", Description: "?!"},
		{Kind: llm.KindStep, Framework: "Stakeholder Map", Description: "Erstelle eine Stakeholder-Analyse für die Einführung von SAP in der Buchhaltung", Language: "de"},
		{Kind: llm.KindSynthesis},
		{Kind: llm.KindReview, Deliverable: &llm.Deliverable{}},
		{Kind: llm.KindEnhance},
		{Kind: llm.KindStep, Framework: "Synthesis", Strategy: llm.StrategyChunked, Chunk: 2, Chunks: 3},
		{Kind: llm.KindStep, Framework: "Multi-Perspective Review (Full)", Strategy: llm.StrategyCompressed},
	} {
		if _, err := New().Complete(context.Background(), r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
}
