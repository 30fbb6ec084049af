package burnrate

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Pricing a plan: each step's tokens (given or estimated), its model
// (given or the provider's default), and its cost at the price map's
// prices, corrected by what the organization's tracked spend showed.

// Plan limits.
const (
	// MaxSteps is the most steps a plan may have.
	MaxSteps = 200
	// MaxTokens bounds one step's token counts.
	MaxTokens = 100_000_000
	// MaxSearchCalls bounds one step's search calls.
	MaxSearchCalls = 100_000
)

// Errors of a plan's steps (with ErrUnknownProvider, ErrUnknownModel,
// ErrNoModels and ErrNoSearch).
var (
	ErrEmptyPlan     = errors.New("plan has no steps")
	ErrTooManySteps  = fmt.Errorf("plan has more than %d steps", MaxSteps)
	ErrNoProvider    = errors.New("provider is required")
	ErrPromptLength  = errors.New("prompt_length must be one of short, medium, long, very_long")
	ErrTokenCount    = fmt.Errorf("token counts must be whole numbers from 0 to %d", MaxTokens)
	ErrSearchCount   = fmt.Errorf("search calls must be a whole number from 0 to %d", MaxSearchCalls)
	ErrCacheOverflow = errors.New("cache_read_tokens is more than the step's input tokens")
)

// Step is one step of a plan as the caller describes it.
type Step struct {
	// Label is the caller's name of the step (a string or a number); nil
	// labels it by its position, from 1.
	Label    any
	Action   string
	Provider string
	Model    string
	// InputTokens and OutputTokens are the caller's estimates (nil:
	// estimated here).
	InputTokens  *int64
	OutputTokens *int64
	// CacheReadTokens are the part of the input read from the provider's
	// prompt cache.
	CacheReadTokens int64
	// SearchCalls are web search calls (nil: 1 for a search action, 0
	// otherwise).
	SearchCalls  *int64
	PromptLength string
	PromptSample string
}

// StepError is a refused step: its position, label and field.
type StepError struct {
	Index int
	Label any
	// Field is the step's field at fault ("provider", "model", ...).
	Field string
	Err   error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step %v: %v", e.Label, e.Err)
}

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

// Line is a priced step.
type Line struct {
	Index  int
	Label  any
	Action string
	Kind   string
	// Provider is the provider's canonical name; Model the model priced
	// (zero for a step of search calls only).
	Provider    string
	Model       Model
	ModelSource string
	// InputTokens include CacheReadTokens and CacheWriteTokens.
	InputTokens, CacheReadTokens, CacheWriteTokens, OutputTokens int64
	InputSource, OutputSource                                    string
	SearchCalls                                                  int64
	SearchPrice                                                  float64
	// Factor corrects the token cost by the organization's tracked spend
	// for the model (1: none).
	Factor float64
	// Batch: run through the provider's batch API at BatchDiscount off.
	Batch         bool
	BatchDiscount float64
}

// Model sources.
const (
	ModelGiven   = "given"
	ModelDefault = "provider_default"
	ModelNone    = "none"
)

// ListTokenCost is the step's token cost at list prices, USD.
func (l Line) ListTokenCost() float64 {
	m := l.Model
	if m.Name == "" {
		return 0
	}
	cacheRead, cacheWrite := m.CacheRead, m.CacheWrite
	if !m.HasCache() {
		cacheRead = m.Input
	}
	if cacheWrite <= 0 {
		cacheWrite = m.Input
	}
	uncached := max(l.InputTokens-l.CacheReadTokens-l.CacheWriteTokens, 0)
	c := (float64(uncached)*m.Input + float64(l.CacheReadTokens)*cacheRead + float64(l.CacheWriteTokens)*cacheWrite +
		float64(l.OutputTokens)*m.Output) / 1e6
	if l.Batch {
		c *= 1 - l.BatchDiscount
	}
	return c
}

// TokenCost is the token cost corrected by Factor.
func (l Line) TokenCost() float64 { return l.ListTokenCost() * l.factor() }

func (l Line) factor() float64 {
	if l.Factor <= 0 {
		return 1
	}
	return l.Factor
}

// SearchCost is the cost of the step's web search calls.
func (l Line) SearchCost() float64 { return float64(l.SearchCalls) * l.SearchPrice }

// Cost is the step's cost, USD.
func (l Line) Cost() float64 { return l.TokenCost() + l.SearchCost() }

// Key names the step's model for its correction factor ("" for none).
func (l Line) Key() string {
	if l.Model.Name == "" {
		return ""
	}
	return Key(l.Model.Provider, l.Model.Name)
}

// Key is the correction factors' key of provider's model.
func Key(provider, model string) string { return provider + "/" + model }

// Plan is a priced plan.
type Plan struct {
	Lines []Line
	// AsOf is the price map's date.
	AsOf string
}

// Total is the plan's cost, USD.
func (p Plan) Total() float64 {
	t := 0.0
	for _, l := range p.Lines {
		t += l.Cost()
	}
	return t
}

// Tokens are the plan's input and output tokens.
func (p Plan) Tokens() (input, output int64) {
	for _, l := range p.Lines {
		input += l.InputTokens
		output += l.OutputTokens
	}
	return input, output
}

// Models lists the plan's models ("provider/model"), each once.
func (p Plan) Models() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, l := range p.Lines {
		if k := l.Key(); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// clone copies p's lines.
func (p Plan) clone() Plan {
	return Plan{Lines: append([]Line(nil), p.Lines...), AsOf: p.AsOf}
}

// Price prices steps; factors are the organization's correction factors
// by Key (absent: 1).
func (p *Prices) Price(steps []Step, factors map[string]float64) (Plan, error) {
	if len(steps) == 0 {
		return Plan{}, ErrEmptyPlan
	}
	if len(steps) > MaxSteps {
		return Plan{}, ErrTooManySteps
	}
	plan := Plan{Lines: make([]Line, 0, len(steps)), AsOf: p.AsOf}
	for i, s := range steps {
		l, err := p.priceStep(i, s, factors)
		if err != nil {
			return Plan{}, err
		}
		plan.Lines = append(plan.Lines, l)
	}
	return plan, nil
}

func (p *Prices) priceStep(i int, s Step, factors map[string]float64) (Line, error) {
	label := s.Label
	if label == nil {
		label = i + 1
	}
	fail := func(field string, err error) (Line, error) {
		return Line{}, &StepError{Index: i, Label: label, Field: field, Err: err}
	}
	if strings.TrimSpace(s.Provider) == "" {
		return fail("provider", ErrNoProvider)
	}
	prov, err := p.Provider(s.Provider)
	if err != nil {
		return fail("provider", err)
	}
	for _, c := range []struct {
		field string
		n     *int64
	}{{"estimated_input_tokens", s.InputTokens}, {"estimated_output_tokens", s.OutputTokens}, {"cache_read_tokens", &s.CacheReadTokens}} {
		if c.n != nil && (*c.n < 0 || *c.n > MaxTokens) {
			return fail(c.field, ErrTokenCount)
		}
	}
	if s.SearchCalls != nil && (*s.SearchCalls < 0 || *s.SearchCalls > MaxSearchCalls) {
		return fail("search_calls", ErrSearchCount)
	}
	kind, defaultOutput := ActionKind(s.Action)
	l := Line{Index: i, Label: label, Action: s.Action, Kind: kind, Provider: prov.Name, Factor: 1,
		SearchPrice: prov.WebSearch, BatchDiscount: prov.BatchDiscount, ModelSource: ModelNone,
		InputSource: SourceNone, OutputSource: SourceNone}
	if l.Action == "" {
		l.Action = KindLLM
	}
	searchOnly := len(prov.models) == 0
	if searchOnly || kind == KindSearch {
		l.SearchCalls = 1
	}
	if s.SearchCalls != nil {
		l.SearchCalls = *s.SearchCalls
	}
	if l.SearchCalls > 0 && prov.WebSearch <= 0 {
		return fail("search_calls", &LookupError{Err: ErrNoSearch, Provider: prov.Name})
	}
	given := func(n *int64) bool { return n != nil && *n > 0 }
	// a search step, or a search-only provider's, prices tokens only
	// when it has some
	if searchOnly || (kind == KindSearch && !given(s.InputTokens) && !given(s.OutputTokens) && s.Model == "") {
		if searchOnly && (s.Model != "" || given(s.InputTokens) || given(s.OutputTokens)) {
			return fail("model", &LookupError{Err: ErrNoModels, Provider: prov.Name, Model: s.Model})
		}
		return l, nil
	}
	name, source := s.Model, ModelGiven
	if strings.TrimSpace(name) == "" {
		name, source = prov.DefaultModel, ModelDefault
	}
	m, err := p.model(prov, name)
	if err != nil {
		return fail("model", err)
	}
	l.Model, l.ModelSource = m, source
	if f, ok := factors[l.Key()]; ok && f > 0 {
		l.Factor = f
	}
	if err := estimateInput(&l, s); err != nil {
		return fail("prompt_length", err)
	}
	switch {
	case s.OutputTokens != nil:
		l.OutputTokens, l.OutputSource = *s.OutputTokens, SourceGiven
	case m.Output == 0 || kind == KindSearch:
		l.OutputTokens, l.OutputSource = 0, SourceAction
	default:
		l.OutputTokens, l.OutputSource = defaultOutput, SourceAction
	}
	if s.CacheReadTokens > l.InputTokens {
		if s.InputTokens != nil {
			return fail("cache_read_tokens", ErrCacheOverflow)
		}
		l.InputTokens = s.CacheReadTokens
	}
	l.CacheReadTokens = s.CacheReadTokens
	return l, nil
}

// estimateInput sets l's input tokens from s: given, else the sample's
// count (at least the bucket's when both are given), else the bucket's,
// else the default.
func estimateInput(l *Line, s Step) error {
	bucket := int64(0)
	if s.PromptLength != "" {
		n, ok := PromptLengths[strings.ToLower(strings.TrimSpace(s.PromptLength))]
		if !ok {
			return ErrPromptLength
		}
		bucket = n
	}
	switch {
	case s.InputTokens != nil:
		l.InputTokens, l.InputSource = *s.InputTokens, SourceGiven
	case s.PromptSample != "" && bucket > 0:
		l.InputTokens, l.InputSource = max(CountTokens(s.PromptSample), bucket), SourceSampleLength
	case s.PromptSample != "":
		l.InputTokens, l.InputSource = CountTokens(s.PromptSample), SourceSample
	case bucket > 0:
		l.InputTokens, l.InputSource = bucket, SourceLength
	case l.Kind == KindSearch:
		l.InputTokens, l.InputSource = 0, SourceAction
	default:
		l.InputTokens, l.InputSource = DefaultInputTokens, SourceDefault
	}
	return nil
}

// RoundUSD rounds an amount to a millionth of a dollar.
func RoundUSD(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// FormatUSD writes an amount for people: "$0.0042" under a dollar (four
// decimals, so small steps do not show as $0.00), "$1,234.57" from one.
func FormatUSD(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	var s string
	if v < 1 {
		s = fmt.Sprintf("%.4f", v)
	} else {
		whole := fmt.Sprintf("%.2f", v)
		intPart, frac, _ := strings.Cut(whole, ".")
		var b strings.Builder
		for i, c := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		s = b.String() + "." + frac
	}
	if neg {
		return "-$" + s
	}
	return "$" + s
}
