package planning_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"svc/domain/catalog"
	"svc/domain/embedding"
	"svc/domain/planning"
)

// The failures an independent evaluation reported (issue: classification
// that holds up on other people's words), each now read right.
func TestAnalyzeReportedFailures(t *testing.T) {
	cl := planning.NewClassifier(catalog.Default())
	for _, c := range []struct{ description, want string }{
		// background sentences and figures are context, not intents
		{"We're opening a new office in Austin and need a press release for local media with a quote from the CEO", "press_release"},
		{"Find the bottlenecks in our hiring process; time to hire is 70 days", "process_improvement"},
		// the deliverable decides, the topic feeds the context
		{"Write a blog post about how we run month-end close", "blog_post"},
		{"Draft an internal announcement about our new security policy", "internal_announcement"},
		// vague text is refused
		{"Do some analysis", ""},
		{"Look into it and report back", ""},
		{"help me with stuff", ""},
	} {
		a := cl.Analyze(c.description)
		if len(a.Intents) > 1 {
			t.Errorf("%q split into %v", c.description, a.Intents)
			continue
		}
		if c.want == "" {
			if !a.Vague {
				t.Errorf("%q accepted as %s", c.description, a.Classification.TaskType)
			}
			continue
		}
		if a.Vague || a.Classification.TaskType != c.want {
			t.Errorf("%q: %s (vague %v), want %s", c.description, a.Classification.TaskType, a.Vague, c.want)
		}
	}
}

func TestAnalyzeSplitsIndependentDeliverables(t *testing.T) {
	cl := planning.NewClassifier(catalog.Default())
	for _, c := range []struct {
		description string
		want        []string
	}{
		{"Write the JD for a senior data engineer, and also put together an interview plan for the role", []string{"job_description", "interview_plan"}},
		{"Review this PR for security issues. Separately, draft a press release for our Series B", []string{"code_review", "press_release"}},
		{"launch plan for the iOS app in October + a code review of the payment SDK integration PR", []string{"launch_plan", "code_review"}},
	} {
		a := cl.Analyze(c.description)
		if len(a.Intents) != len(c.want) {
			t.Errorf("%q: intents %v, want %v", c.description, a.Intents, c.want)
			continue
		}
		for i, in := range a.Intents {
			if in.TaskType != c.want[i] || in.SourcePhrase == "" {
				t.Errorf("%q: intent %d %+v, want %s", c.description, i, in, c.want[i])
			}
		}
		if a.Reason == "" {
			t.Errorf("%q: a split without a reason", c.description)
		}
	}
	// two asks of one deliverable merge
	if a := cl.Analyze("Write a blog post about our Series B and make the blog post casual and short"); len(a.Intents) > 1 {
		t.Errorf("one deliverable split: %v", a.Intents)
	}
}

func TestAnalyzeOtherLanguages(t *testing.T) {
	cl := planning.NewClassifier(catalog.Default())
	for _, c := range []struct{ description, lang, want string }{
		{"Bitte schreibe eine Pressemitteilung über unsere neue Finanzierungsrunde.", "de", "press_release"},
		{"Rédige une fiche de poste pour un développeur backend senior.", "fr", "job_description"},
		{"Necesito un análisis de la competencia frente a nuestros tres rivales principales.", "es", "competitive_analysis"},
	} {
		a := cl.Analyze(c.description)
		if a.Language != c.lang || a.Vague || a.Classification.TaskType != c.want {
			t.Errorf("%q: %s %s (vague %v), want %s %s", c.description, a.Language, a.Classification.TaskType, a.Vague, c.lang, c.want)
		}
	}
}

// fallback is an LLM tier that always names one type, or fails.
type fallback struct {
	taskType string
	err      error
	calls    int
}

func (f *fallback) ClassifyTask(context.Context, string, []catalog.TaskType) (string, float64, error) {
	f.calls++
	return f.taskType, 0.8, f.err
}

func TestLLMTierOnlyBelowThreshold(t *testing.T) {
	f := &fallback{taskType: "market_research"}
	pl := planning.NewPlanner(catalog.Default(), planning.WithFallback(f, 0))
	res, err := pl.Plan(planning.Request{Description: "Write a press release about our Series B funding round"})
	if err != nil || f.calls != 0 || res.Tier != planning.TierLexical {
		t.Fatalf("a confident description asked the LLM tier: %d calls, tier %s, %v", f.calls, res.Tier, err)
	}
	const unsure = "investigate drone deliveries of groceries in rural Finland" // lexical confidence 0.54
	res, err = pl.Plan(planning.Request{Description: unsure})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != planning.TierLLM || f.calls != 1 || res.Plans[0].Classification.TaskType != "market_research" {
		t.Fatalf("llm tier: tier %s, %d calls, %s", res.Tier, f.calls, res.Plans[0].Classification.TaskType)
	}
	// a failing or wrong LLM tier leaves the lexical answer
	for _, bad := range []*fallback{{err: errors.New("timeout")}, {taskType: "not_a_type"}} {
		pl := planning.NewPlanner(catalog.Default(), planning.WithFallback(bad, 0))
		res, err := pl.Plan(planning.Request{Description: unsure})
		if err != nil || res.Tier == planning.TierLLM {
			t.Fatalf("a failed LLM tier decided: tier %s, %v", res.Tier, err)
		}
	}
}

func TestTierOfGivenTaskType(t *testing.T) {
	pl := planning.NewPlanner(catalog.Default())
	res, err := pl.Plan(planning.Request{Description: "anything at all", TaskType: "tag"})
	if err != nil || res.Tier != planning.TierGiven {
		t.Fatalf("tier %q, %v", res.Tier, err)
	}
}

// countingEmbedder is a provider's embedder: the local one, counted.
type countingEmbedder struct {
	mu    sync.Mutex
	texts int
}

func (c *countingEmbedder) Name() string { return "counting" }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.texts += len(texts)
	c.mu.Unlock()
	return embedding.Local{}.Embed(ctx, texts)
}

func (c *countingEmbedder) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.texts
}

// TestProviderEmbeddings: with a provider's embedder the catalogue is
// embedded once in the background, and then unsure descriptions are
// embedded through it.
func TestProviderEmbeddings(t *testing.T) {
	cl := planning.NewClassifier(catalog.Default())
	e := &countingEmbedder{}
	cl.SetEmbedder(e)
	const unsure = "investigate drone deliveries of groceries in rural Finland"
	cl.Analyze(unsure) // starts the catalogue's embedding
	deadline := time.Now().Add(10 * time.Second)
	for e.count() < 100 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	catalogue := e.count()
	if catalogue < 100 {
		t.Fatalf("the catalogue was not embedded: %d texts", catalogue)
	}
	for e.count() == catalogue && time.Now().Before(deadline) { // the index is stored just after the call
		cl.Analyze(unsure)
		time.Sleep(10 * time.Millisecond)
	}
	if e.count() != catalogue+1 {
		t.Fatalf("the query was not embedded by the provider: %d texts after %d", e.count(), catalogue)
	}
	cl.Analyze("Write a press release about our Series B") // confident: no embedding
	if e.count() != catalogue+1 {
		t.Fatalf("a confident description was embedded")
	}
}
