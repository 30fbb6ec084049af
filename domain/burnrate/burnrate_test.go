package burnrate

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/eventstore/event"
)

func i64(n int64) *int64     { return &n }
func f64(v float64) *float64 { return &v }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPriceMapLoadsAndResolvesNames(t *testing.T) {
	p := Current()
	if p.AsOf == "" || len(p.Providers()) < 4 {
		t.Fatalf("price map %q %v", p.AsOf, p.Providers())
	}
	for _, c := range []struct{ provider, model, want string }{
		{"openai", "gpt-4o", "gpt-4o"},
		{"OpenAI", " GPT-4o-2024-08-06 ", "gpt-4o"},
		{"openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"openai", "openai/gpt-4.1-mini", "gpt-4.1-mini"},
		{"anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude", "claude-haiku-4-5@20251001", "claude-haiku-4-5"},
		{"google", "models/gemini-2.5-pro", "gemini-2.5-pro"},
		{"gemini", "gemini-2.5-flash", "gemini-2.5-flash"},
		{"mistral", "mistral-large-latest", "mistral-large"},
	} {
		m, err := p.Model(c.provider, c.model)
		if err != nil || m.Name != c.want {
			t.Errorf("%s/%s: %v %v, want %s", c.provider, c.model, m.Name, err, c.want)
		}
	}
}

func TestUnknownNamesAreRefusedWithCloseOnes(t *testing.T) {
	p := Current()
	_, err := p.Model("openai", "gpt-4-o")
	var le *LookupError
	if !errors.As(err, &le) || !errors.Is(err, ErrUnknownModel) || !slices.Contains(le.Close, "gpt-4o") {
		t.Fatalf("gpt-4-o: %v %+v", err, le)
	}
	_, err = p.Model("openai", "claude-sonnet-4-5")
	if !errors.As(err, &le) || le.OtherProvider != "anthropic" {
		t.Fatalf("a model of another provider: %v %+v", err, le)
	}
	_, err = p.Model("opnai", "gpt-4o")
	if !errors.As(err, &le) || !errors.Is(err, ErrUnknownProvider) || !slices.Contains(le.Close, "openai") {
		t.Fatalf("opnai: %v %+v", err, le)
	}
	// never a cost of $0: the plan is refused naming the step
	_, err = p.Price([]Step{{Label: "draft", Provider: "openai", Model: "gpt-9"}}, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Label != "draft" || se.Field != "model" || !errors.Is(err, ErrUnknownModel) {
		t.Fatalf("unknown model in a plan: %v", err)
	}
}

func TestPricePlan(t *testing.T) {
	p := Current()
	plan, err := p.Price([]Step{
		{Label: 1, Action: "summarize", Provider: "openai", Model: "gpt-4o", InputTokens: i64(10_000), OutputTokens: i64(1_000)},
		{Action: "web_search", Provider: "openai", SearchCalls: i64(3)},
		{Action: "draft report", Provider: "anthropic", PromptLength: "long"},
		{Action: "classify", Provider: "google", Model: "gemini-2.5-flash", PromptSample: "Is this ticket about billing? The customer says they were charged twice."},
		{Action: "answer", Provider: "openai", Model: "gpt-4o", InputTokens: i64(10_000), CacheReadTokens: 8_000, OutputTokens: i64(0)},
	}, map[string]float64{"openai/gpt-4o": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	l := plan.Lines
	// 10k in at $2.50 + 1k out at $10, corrected by 1.5
	if !near(l[0].Cost(), (0.025+0.01)*1.5) || l[0].InputSource != SourceGiven {
		t.Errorf("step 1 %v %+v", l[0].Cost(), l[0])
	}
	if l[1].Label != 2 || l[1].SearchCalls != 3 || !near(l[1].Cost(), 0.03) || l[1].ModelSource != ModelNone {
		t.Errorf("search step %v %+v", l[1].Cost(), l[1])
	}
	if l[2].Model.Name != "claude-sonnet-4-5" || l[2].ModelSource != ModelDefault || l[2].InputTokens != 6000 ||
		l[2].InputSource != SourceLength || l[2].OutputTokens != 1200 || l[2].OutputSource != SourceAction {
		t.Errorf("defaults %+v", l[2])
	}
	if l[3].InputSource != SourceSample || l[3].InputTokens < 12 || l[3].InputTokens > 25 || l[3].OutputTokens != 100 {
		t.Errorf("sample %+v", l[3])
	}
	// 2k uncached at $2.50, 8k cached at $1.25
	if !near(l[4].ListTokenCost(), 0.005+0.01) {
		t.Errorf("cache reads %v", l[4].ListTokenCost())
	}
	if !near(plan.Total(), l[0].Cost()+l[1].Cost()+l[2].Cost()+l[3].Cost()+l[4].Cost()) {
		t.Error("total")
	}
	for _, bad := range []Step{
		{Provider: "openai", PromptLength: "huge"},
		{Provider: ""},
		{Provider: "deepseek", SearchCalls: i64(1)},
		{Provider: "tavily", Model: "x"},
		{Provider: "openai", InputTokens: i64(10), CacheReadTokens: 20},
		{Provider: "openai", OutputTokens: i64(-1)},
	} {
		if _, err := p.Price([]Step{bad}, nil); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := p.Price(nil, nil); !errors.Is(err, ErrEmptyPlan) {
		t.Errorf("empty plan: %v", err)
	}
}

func TestCountTokens(t *testing.T) {
	for _, c := range []struct {
		text     string
		min, max int64
	}{
		{"", 0, 0},
		{"hello world", 2, 4},
		{"The quick brown fox jumps over the lazy dog.", 9, 14},
		{"你好世界", 4, 4},
		{`{"a": 1, "b": [1, 2]}`, 12, 20},
	} {
		if n := CountTokens(c.text); n < c.min || n > c.max {
			t.Errorf("%q: %d tokens, want %d-%d", c.text, n, c.min, c.max)
		}
	}
}

func TestSuggestRanksConcreteSubstitutions(t *testing.T) {
	p := Current()
	plan, err := p.Price([]Step{
		{Label: "a", Action: "analyze", Provider: "anthropic", Model: "claude-opus-4-1", InputTokens: i64(20_000), OutputTokens: i64(4_000)},
		{Label: "b", Action: "write", Provider: "anthropic", Model: "claude-opus-4-1", InputTokens: i64(20_000), OutputTokens: i64(500)},
		{Label: "c", Action: "search", Provider: "tavily"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Suggest(plan, nil)
	kinds := map[string]Suggestion{}
	for i, x := range s {
		kinds[x.Kind] = x
		if i > 0 && x.Saving > s[i-1].Saving {
			t.Errorf("not ranked: %v", s)
		}
	}
	cm, ok := kinds[SuggestCheaperModel]
	if !ok || cm.ToModel != "claude-sonnet-4-5" || cm.FromModel != "claude-opus-4-1" || len(cm.Steps) != 2 {
		t.Fatalf("cheaper model %+v", cm)
	}
	// opus to sonnet: a fifth of the price
	if !near(RoundUSD(cm.Saving), RoundUSD(plan.Lines[0].Cost()+plan.Lines[1].Cost())*0.8) {
		t.Errorf("cheaper model saving %v", cm.Saving)
	}
	if c, ok := kinds[SuggestCaching]; !ok || c.Saving <= 0 || len(c.Steps) != 2 {
		t.Errorf("caching %+v", c)
	}
	if b, ok := kinds[SuggestBatch]; !ok || !near(b.Saving, (plan.Lines[0].Cost()+plan.Lines[1].Cost())/2) {
		t.Errorf("batch %+v", b)
	}
	if o, ok := kinds[SuggestFewerOutput]; !ok || len(o.Steps) != 1 || o.Steps[0] != "a" {
		t.Errorf("fewer output %+v", o)
	}
	after := Apply(plan, s)
	if after.Total() >= plan.Total() || after.Total() <= 0 || plan.Lines[0].Model.Name != "claude-opus-4-1" {
		t.Errorf("applied %v from %v", after.Total(), plan.Total())
	}
	// nothing to save: no suggestion
	small, _ := p.Price([]Step{{Provider: "openai", Model: "gpt-4.1-nano", InputTokens: i64(100), OutputTokens: i64(10)}}, nil)
	for _, x := range p.Suggest(small, nil) {
		if x.Kind == SuggestCheaperModel || x.Kind == SuggestCaching || x.Kind == SuggestFewerOutput {
			t.Errorf("suggested %+v", x)
		}
	}
}

func TestCalibration(t *testing.T) {
	p := Current()
	c := NewCalibration()
	s, err := p.Identify("openai", "gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	s.OrgID = "org"
	s.InputTokens, s.OutputTokens = i64(1_000_000), i64(0)
	// list $2.50, paid $5: ratio 2, the first observation sets the factor
	s.ActualCost = f64(5)
	d, err := c.Track(s)
	if err != nil || d.Factor != 2 || d.Samples != 1 || *d.ObservedRatio != 2 || *d.ListCostUSD != 2.5 || d.CostSource != CostReported {
		t.Fatalf("first %+v %v", d, err)
	}
	fold(t, c, d)
	s.ActualCost = f64(2.5) // ratio 1: averaged
	d, _ = c.Track(s)
	if d.Factor != 1.5 || d.Samples != 2 {
		t.Fatalf("second %+v", d)
	}
	fold(t, c, d)
	// tokens only: priced from the map, corrected, the factor unchanged
	s.ActualCost = nil
	d, err = c.Track(s)
	if err != nil || d.CostUSD != 3.75 || d.CostSource != CostPriceMap || d.Factor != 1.5 || d.Samples != 2 || d.ObservedRatio != nil {
		t.Fatalf("tokens only %+v %v", d, err)
	}
	// a cost far off is clamped
	s.ActualCost = f64(1000)
	d, _ = c.Track(s)
	if *d.ObservedRatio != MaxRatio {
		t.Errorf("clamped %+v", d)
	}
	// neither: refused; an unknown model needs its cost
	s.ActualCost, s.InputTokens = nil, nil
	if _, err := c.Track(s); !errors.Is(err, ErrNoCost) {
		t.Errorf("no cost %v", err)
	}
	u, err := p.Identify("openai", "my-finetune")
	if err == nil || u.Name != "my-finetune" {
		t.Fatalf("unknown %+v %v", u, err)
	}
	u.InputTokens, u.OutputTokens = i64(1), i64(1)
	if _, err := NewCalibration().Track(u); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model without cost %v", err)
	}
	u.ActualCost = f64(0.5)
	if d, err := NewCalibration().Track(u); err != nil || d.Known || d.CostUSD != 0.5 || d.Factor != 1 {
		t.Errorf("unknown model with cost %+v %v", d, err)
	}
	if _, err := p.Identify("", "x"); !errors.Is(err, ErrName) {
		t.Errorf("no provider %v", err)
	}
}

func TestEstimateRecordedOnce(t *testing.T) {
	e := NewEstimate()
	d, err := e.Record(EstimateMade{EstimateID: "x", OrgID: "o"})
	if err != nil || len(d) != 1 {
		t.Fatal(d, err)
	}
	fold(t, e, d...)
	if e.OrgID() != "o" {
		t.Error("org")
	}
	if _, err := e.Record(EstimateMade{EstimateID: "x"}); !errors.Is(err, ErrRecorded) {
		t.Errorf("twice: %v", err)
	}
}

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.0000", 0.00423: "$0.0042", 0.5: "$0.5000", 1: "$1.00", 1234.567: "$1,234.57", 1234567.8: "$1,234,567.80", -2: "-$2.00"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("%v: %s, want %s", v, got, want)
		}
	}
}

func fold(t *testing.T, a event.Aggregate, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := a.Apply(event.Recorded("s", a.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestActionKinds(t *testing.T) {
	for action, want := range map[string]string{"web_search": KindSearch, "research the market": KindReason, "classify tickets": KindClassify,
		"extract entities": KindExtract, "summarize": KindSummarize, "draft the email": KindGenerate, "embed docs": KindEmbed, "frobnicate": KindLLM, "": KindLLM} {
		if got, _ := ActionKind(action); got != want {
			t.Errorf("%q: %s, want %s", action, got, want)
		}
	}
}

func TestParsePricesRefusesBadMaps(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"as_of":"2025-01-01","providers":{"x":{"default_model":"nope","models":{"a":{"input":1,"output":1}}}}}`,
		`{"as_of":"2025-01-01","providers":{"x":{"models":{"a":{"input":0,"output":0}}}}}`,
		`{"as_of":"2025-01-01","provider_aliases":{"y":"z"},"providers":{"x":{"models":{"a":{"input":1,"output":1}}}}}`,
		`not json`,
	} {
		if _, err := ParsePrices([]byte(raw)); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
}

func TestSubstitutes(t *testing.T) {
	p := Current()
	for from, want := range map[string]string{"openai/gpt-4o": "gpt-4o-mini", "openai/gpt-5": "gpt-5-mini", "anthropic/claude-opus-4-1": "claude-sonnet-4-5",
		"anthropic/claude-sonnet-4-5": "claude-haiku-4-5", "google/gemini-2.5-pro": "gemini-2.5-flash", "mistral/mistral-large": "mistral-medium",
		"anthropic/claude-3-5-haiku": "", "openai/gpt-4o-mini": "", "deepseek/deepseek-chat": ""} {
		prov, name, _ := strings.Cut(from, "/")
		m, err := p.Model(prov, name)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := p.Substitute(m)
		if got.Name != want || ok != (want != "") {
			t.Errorf("%s: %s %v, want %q", from, got.Name, ok, want)
		}
	}
}
