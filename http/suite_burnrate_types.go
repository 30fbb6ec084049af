package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"svc/commands/suite"
	"svc/domain/burnrate"
)

// BurnRate's parameters and answers (spec C shows neither the elements
// of estimate.steps and optimization_suggestions nor the budget's:
// docs/decisions.md 190-199).

// burnrateMaxUSD bounds the amounts a caller gives (budgets, targets).
const burnrateMaxUSD = 1e9

// burnrateStepParams is a plan step: spec C's REST shape and the tool
// manifest's.
type burnrateStepParams struct {
	// Step is the step's label: a string or a number.
	Step                  json.RawMessage `json:"step,omitempty"`
	Action                string          `json:"action,omitempty"`
	Provider              string          `json:"provider,omitempty"`
	Model                 string          `json:"model,omitempty"`
	EstimatedInputTokens  *float64        `json:"estimated_input_tokens,omitempty"`
	EstimatedOutputTokens *float64        `json:"estimated_output_tokens,omitempty"`
	CacheReadTokens       *float64        `json:"cache_read_tokens,omitempty"`
	// SearchCalls (the manifest's) and Count (spec C's, for web_search
	// actions) are the step's web search calls.
	SearchCalls      *float64 `json:"search_calls,omitempty"`
	Count            *float64 `json:"count,omitempty"`
	PromptLength     string   `json:"prompt_length,omitempty"`
	PromptTextSample string   `json:"prompt_text_sample,omitempty"`
}

type burnrateEstimateParams struct {
	Plan        []burnrateStepParams `json:"plan"`
	BudgetLimit *float64             `json:"budget_limit,omitempty"`
}

type burnrateOptimizeParams struct {
	Plan           []burnrateStepParams `json:"plan"`
	MaxSuggestions *float64             `json:"max_suggestions,omitempty"`
	TargetBudget   *float64             `json:"target_budget,omitempty"`
}

type burnrateTrackParams struct {
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	ActualCost      *float64 `json:"actual_cost,omitempty"`
	TaskID          string   `json:"task_id,omitempty"`
	InputTokens     *float64 `json:"input_tokens,omitempty"`
	OutputTokens    *float64 `json:"output_tokens,omitempty"`
	CacheReadTokens *float64 `json:"cache_read_tokens,omitempty"`
}

type burnrateBudgetParams struct {
	DailyLimit *float64 `json:"daily_limit,omitempty"`
}

// burnrateSteps checks the plan's shape and turns it into steps; what
// needs the price map is checked by the command.
func burnrateSteps(plan []burnrateStepParams) ([]burnrate.Step, error) {
	if plan == nil {
		return nil, suiteMissing("plan")
	}
	if len(plan) == 0 {
		return nil, suiteInvalid("plan", "Field plan must list at least one step.")
	}
	if len(plan) > burnrate.MaxSteps {
		return nil, suiteInvalid("plan", fmt.Sprintf("Field plan has %d steps; at most %d are priced at once.", len(plan), burnrate.MaxSteps))
	}
	out := make([]burnrate.Step, len(plan))
	for i, p := range plan {
		at := func(f string) string { return fmt.Sprintf("plan[%d].%s", i, f) }
		label, err := burnrateLabel(p.Step)
		if err != nil {
			return nil, suiteInvalid(at("step"), "Field "+at("step")+" must be a string or a number.")
		}
		if burnrateBlank(p.Provider) {
			return nil, suiteMissing(at("provider"))
		}
		s := burnrate.Step{Label: label, Action: strings.TrimSpace(p.Action), Provider: p.Provider, Model: strings.TrimSpace(p.Model),
			PromptLength: p.PromptLength, PromptSample: p.PromptTextSample}
		for _, c := range []struct {
			field string
			v     *float64
			dst   **int64
		}{{"estimated_input_tokens", p.EstimatedInputTokens, &s.InputTokens}, {"estimated_output_tokens", p.EstimatedOutputTokens, &s.OutputTokens}} {
			if *c.dst, err = burnrateCount(c.v, at(c.field), burnrate.MaxTokens); err != nil {
				return nil, err
			}
		}
		cached, err := burnrateCount(p.CacheReadTokens, at("cache_read_tokens"), burnrate.MaxTokens)
		if err != nil {
			return nil, err
		}
		if cached != nil {
			s.CacheReadTokens = *cached
		}
		calls, field := p.SearchCalls, "search_calls"
		if calls == nil {
			calls, field = p.Count, "count"
			if kind, _ := burnrate.ActionKind(s.Action); p.Count != nil && kind != burnrate.KindSearch && !burnrateSearchOnly(p.Provider) {
				return nil, suiteInvalid(at("count"), "Field "+at("count")+" counts the calls of a web search action (action web_search, say); "+
					"for a step that searches besides calling the model, give search_calls.")
			}
		}
		if s.SearchCalls, err = burnrateCount(calls, at(field), burnrate.MaxSearchCalls); err != nil {
			return nil, err
		}
		if p.PromptLength != "" {
			if _, ok := burnrate.PromptLengths[strings.ToLower(strings.TrimSpace(p.PromptLength))]; !ok {
				return nil, suiteInvalid(at("prompt_length"), "Field "+at("prompt_length")+" must be one of short, medium, long, very_long.")
			}
		}
		out[i] = s
	}
	return out, nil
}

// burnrateLabel is a step's label: a string, a number (an integer as such),
// or nil when absent.
func burnrateLabel(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case string:
		x = strings.TrimSpace(x)
		if x == "" || len(x) > 100 {
			return nil, errors.New("label")
		}
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return int64(x), nil
		}
		return x, nil
	}
	return nil, errors.New("label")
}

// burnrateCount is v as a count from 0 to limit (nil when absent).
func burnrateCount(v *float64, field string, limit int64) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	if *v != math.Trunc(*v) || *v < 0 || *v > float64(limit) {
		return nil, suiteInvalid(field, fmt.Sprintf("Field %s must be a whole number from 0 to %d.", field, limit))
	}
	n := int64(*v)
	return &n, nil
}

// burnrateAmount checks an amount of USD a caller gives (nil when absent).
func burnrateAmount(v *float64, field string) (*float64, error) {
	if v != nil && (*v < 0 || *v > burnrateMaxUSD) {
		return nil, suiteInvalid(field, "Field "+field+" must be a number of USD from 0.")
	}
	return v, nil
}

// burnrateError maps the product's refusals to the suite's envelope.
func burnrateError(err error) error {
	var se *burnrate.StepError
	if !errors.As(err, &se) {
		return burnrateTrackError(err)
	}
	field := fmt.Sprintf("plan[%d].%s", se.Index, se.Field)
	step := "Step " + fmt.Sprint(se.Label)
	var le *burnrate.LookupError
	if errors.As(err, &le) {
		switch {
		case errors.Is(err, burnrate.ErrUnknownProvider):
			return burnrateUnknownProvider(step+": ", le)
		case errors.Is(err, burnrate.ErrUnknownModel):
			return burnrateUnknownModel(step+": ", le)
		case errors.Is(err, burnrate.ErrNoModels):
			return suiteInvalid(field, fmt.Sprintf("%s: field %s: %s prices web search calls only; it has no model %q. Leave model and tokens out of the step.",
				step, field, le.Provider, le.Model))
		case errors.Is(err, burnrate.ErrNoSearch):
			return suiteInvalid(field, fmt.Sprintf("%s: field %s: %s has no web search price in the map; price the search with a provider that has one (%s).",
				step, field, le.Provider, strings.Join(burnrateSearchProviders(), ", ")))
		}
	}
	return suiteInvalid(field, fmt.Sprintf("%s: field %s: %v.", step, field, se.Err))
}

// burnrateTrackError maps track's refusals.
func burnrateTrackError(err error) error {
	var le *burnrate.LookupError
	switch {
	case errors.As(err, &le) && errors.Is(err, burnrate.ErrUnknownProvider):
		return burnrateUnknownProvider("", le)
	case errors.As(err, &le):
		return burnrateUnknownModel("", le)
	case errors.Is(err, burnrate.ErrCost):
		return suiteInvalid("actual_cost", "Field actual_cost must be a number of USD from 0 to 1000000.")
	case errors.Is(err, burnrate.ErrCacheOverflow):
		return suiteInvalid("cache_read_tokens", "Field cache_read_tokens must not be more than input_tokens (cached tokens are part of the input).")
	case errors.Is(err, burnrate.ErrName):
		return suiteInvalid("model", fmt.Sprintf("Fields provider and model must be at most %d characters.", burnrate.MaxName))
	case errors.Is(err, burnrate.ErrNoCost):
		return suiteMissing("actual_cost")
	}
	return err
}

// burnrateSearchOnly reports whether provider prices web search only.
func burnrateSearchOnly(provider string) bool {
	prov, err := burnrate.Current().Provider(provider)
	return err == nil && len(prov.Models()) == 0
}

// burnrateSearchProviders are the providers with a web search price.
func burnrateSearchProviders() []string {
	var out []string
	p := burnrate.Current()
	for _, n := range p.Providers() {
		if prov, err := p.Provider(n); err == nil && prov.WebSearch > 0 {
			out = append(out, n)
		}
	}
	return out
}

func burnrateUnknownProvider(prefix string, le *burnrate.LookupError) *suiteError {
	p := burnrate.Current()
	fix := "Use one of: " + strings.Join(p.Providers(), ", ") + "."
	if len(le.Close) > 0 {
		fix = "Did you mean " + strings.Join(le.Close, " or ") + "? " + fix
	}
	return &suiteError{Status: http.StatusBadRequest, Code: "unknown_provider", Field: "provider",
		Message: fmt.Sprintf("%sprovider %q is not in the price map (prices as of %s).", prefix, le.Provider, p.AsOf), Fix: fix}
}

func burnrateUnknownModel(prefix string, le *burnrate.LookupError) *suiteError {
	p := burnrate.Current()
	prov, _ := p.Provider(le.Provider)
	var fix string
	switch {
	case le.OtherProvider != "":
		fix = fmt.Sprintf("%s is a model of %s: set provider to %s.", le.Model, le.OtherProvider, le.OtherProvider)
	case len(le.Close) > 0:
		fix = fmt.Sprintf("Closest models of %s: %s.", le.Provider, strings.Join(le.Close, ", "))
	default:
		fix = fmt.Sprintf("Models of %s: %s.", le.Provider, strings.Join(prov.Models(), ", "))
	}
	if prov.DefaultModel != "" {
		fix += fmt.Sprintf(" Or leave model out to price %s's default, %s.", le.Provider, prov.DefaultModel)
	}
	return &suiteError{Status: http.StatusBadRequest, Code: "unknown_model", Field: "model",
		Message: fmt.Sprintf("%smodel %q of %s is not in the price map (prices as of %s), so it cannot be priced.", prefix, le.Model, le.Provider, p.AsOf),
		Fix:     fix}
}

// burnrateEstimate is spec C's estimate: the total, whether it is within
// the budget limit, and each step's cost.
type burnrateEstimate struct {
	TotalCostUSD          float64 `json:"total_cost_usd"`
	TotalCostUSDFormatted string  `json:"total_cost_usd_formatted"`
	WithinBudget          bool    `json:"within_budget"`
	// BudgetLimit is the caller's limit, when given.
	BudgetLimit       *float64           `json:"budget_limit,omitempty"`
	TotalInputTokens  int64              `json:"total_input_tokens"`
	TotalOutputTokens int64              `json:"total_output_tokens"`
	Steps             []burnrateStepCost `json:"steps"`
	Currency          string             `json:"currency"`
}

// burnrateStepCost is one priced step.
type burnrateStepCost struct {
	// Step is the caller's label, or the step's position from 1.
	Step       any    `json:"step"`
	Action     string `json:"action"`
	ActionKind string `json:"action_kind"`
	Provider   string `json:"provider"`
	// Model is the model priced (absent for search calls alone);
	// ModelSource says whether the step named it ("given") or it is the
	// provider's default ("provider_default").
	Model              string  `json:"model,omitempty"`
	ModelSource        string  `json:"model_source"`
	InputTokens        int64   `json:"input_tokens"`
	CacheReadTokens    int64   `json:"cache_read_tokens"`
	OutputTokens       int64   `json:"output_tokens"`
	InputTokensSource  string  `json:"input_tokens_source"`
	OutputTokensSource string  `json:"output_tokens_source"`
	SearchCalls        int64   `json:"search_calls"`
	TokenCostUSD       float64 `json:"token_cost_usd"`
	SearchCostUSD      float64 `json:"search_cost_usd"`
	// ListCostUSD is the cost at list prices; CorrectionFactor the
	// organization's tracked correction of the model applied to tokens.
	ListCostUSD      float64 `json:"list_cost_usd"`
	CorrectionFactor float64 `json:"correction_factor"`
	CostUSD          float64 `json:"cost_usd"`
	CostUSDFormatted string  `json:"cost_usd_formatted"`
}

// burnrateSuggestion is one ranked substitution.
type burnrateSuggestion struct {
	Rank int `json:"rank"`
	// Type is cheaper_model, prompt_caching, batch_api or
	// fewer_output_tokens.
	Type     string `json:"type"`
	Title    string `json:"title"`
	Tradeoff string `json:"tradeoff"`
	// Steps are the labels of the steps it changes.
	Steps              []any   `json:"steps"`
	Provider           string  `json:"provider,omitempty"`
	FromModel          string  `json:"from_model,omitempty"`
	ToModel            string  `json:"to_model,omitempty"`
	SavingUSD          float64 `json:"saving_usd"`
	SavingUSDFormatted string  `json:"saving_usd_formatted"`
	// SavingPercent is the saving as a share of the plan's cost.
	SavingPercent float64 `json:"saving_percent"`
}

type burnrateEstimateResult struct {
	suiteMeta
	EstimateID              string               `json:"estimate_id"`
	Estimate                burnrateEstimate     `json:"estimate"`
	OptimizationSuggestions []burnrateSuggestion `json:"optimization_suggestions"`
	PricesAsOf              string               `json:"prices_as_of"`
}

type burnrateOptimizeResult struct {
	suiteMeta
	OptimizationID               string               `json:"optimization_id"`
	CurrentCostUSD               float64              `json:"current_cost_usd"`
	CurrentCostUSDFormatted      string               `json:"current_cost_usd_formatted"`
	OptimizedCostUSD             float64              `json:"optimized_cost_usd"`
	OptimizedCostUSDFormatted    string               `json:"optimized_cost_usd_formatted"`
	PotentialSavingsUSD          float64              `json:"potential_savings_usd"`
	PotentialSavingsUSDFormatted string               `json:"potential_savings_usd_formatted"`
	PotentialSavingsPercent      float64              `json:"potential_savings_percent"`
	OptimizationSuggestions      []burnrateSuggestion `json:"optimization_suggestions"`
	TargetBudget                 *float64             `json:"target_budget,omitempty"`
	MeetsTarget                  *bool                `json:"meets_target,omitempty"`
	Message                      string               `json:"message"`
	Estimate                     burnrateEstimate     `json:"estimate"`
	PricesAsOf                   string               `json:"prices_as_of"`
}

// burnrateCorrection is a model's correction factor around a tracked
// call.
type burnrateCorrection struct {
	// Updated: the call reported its cost and tokens, and moved the
	// factor.
	Updated        bool    `json:"updated"`
	PreviousFactor float64 `json:"previous_factor"`
	Factor         float64 `json:"factor"`
	Samples        int     `json:"samples"`
	AppliesTo      string  `json:"applies_to"`
}

type burnrateTrackResult struct {
	suiteMeta
	Tracked    bool    `json:"tracked"`
	Provider   string  `json:"provider"`
	Model      string  `json:"model"`
	KnownModel bool    `json:"known_model"`
	TaskID     string  `json:"task_id,omitempty"`
	CostUSD    float64 `json:"cost_usd"`
	// CostUSDFormatted and CostSource: "reported" (actual_cost) or
	// "price_map" (priced from the tokens).
	CostUSDFormatted string             `json:"cost_usd_formatted"`
	CostSource       string             `json:"cost_source"`
	ListCostUSD      *float64           `json:"list_cost_usd,omitempty"`
	ObservedRatio    *float64           `json:"observed_ratio,omitempty"`
	Correction       burnrateCorrection `json:"correction"`
	Message          string             `json:"message"`
	PricesAsOf       string             `json:"prices_as_of"`
}

// burnrateModelSpend is one model's tracked spend today.
type burnrateModelSpend struct {
	Provider     string  `json:"provider"`
	Model        string  `json:"model"`
	SpendUSD     float64 `json:"spend_usd"`
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
}

type burnrateBudgetResult struct {
	suiteMeta
	// Date is today, UTC; ResetsAt the next midnight UTC.
	Date              string    `json:"date"`
	ResetsAt          time.Time `json:"resets_at"`
	SpendUSD          float64   `json:"spend_usd"`
	SpendUSDFormatted string    `json:"spend_usd_formatted"`
	DailyLimit        *float64  `json:"daily_limit,omitempty"`
	RemainingUSD      *float64  `json:"remaining_usd,omitempty"`
	PercentUsed       *float64  `json:"percent_used,omitempty"`
	// Alert is none (no daily_limit), ok, warning (from 80 %) or exceeded
	// (from 100 %).
	Alert                 string               `json:"alert"`
	Message               string               `json:"message"`
	TrackedCalls          int64                `json:"tracked_calls"`
	ByModel               []burnrateModelSpend `json:"by_model"`
	EstimatesToday        int64                `json:"estimates_today"`
	EstimatedCostTodayUSD float64              `json:"estimated_cost_today_usd"`
	OptimizationsToday    int64                `json:"optimizations_today"`
	PricesAsOf            string               `json:"prices_as_of"`
}

func burnrateEstimateOf(plan burnrate.Plan, limit *float64, within bool) burnrateEstimate {
	total := burnrate.RoundUSD(plan.Total())
	in, out := plan.Tokens()
	e := burnrateEstimate{TotalCostUSD: total, TotalCostUSDFormatted: burnrate.FormatUSD(total), WithinBudget: within,
		BudgetLimit: limit, TotalInputTokens: in, TotalOutputTokens: out, Steps: make([]burnrateStepCost, len(plan.Lines)), Currency: "USD"}
	for i, l := range plan.Lines {
		cost := burnrate.RoundUSD(l.Cost())
		e.Steps[i] = burnrateStepCost{Step: l.Label, Action: l.Action, ActionKind: l.Kind, Provider: l.Provider, Model: l.Model.Name,
			ModelSource: l.ModelSource, InputTokens: l.InputTokens, CacheReadTokens: l.CacheReadTokens, OutputTokens: l.OutputTokens,
			InputTokensSource: l.InputSource, OutputTokensSource: l.OutputSource, SearchCalls: l.SearchCalls,
			TokenCostUSD: burnrate.RoundUSD(l.TokenCost()), SearchCostUSD: burnrate.RoundUSD(l.SearchCost()),
			ListCostUSD: burnrate.RoundUSD(l.ListTokenCost() + l.SearchCost()), CorrectionFactor: l.Factor,
			CostUSD: cost, CostUSDFormatted: burnrate.FormatUSD(cost)}
	}
	return e
}

func burnrateSuggestionsOf(plan burnrate.Plan, ss []burnrate.Suggestion) []burnrateSuggestion {
	total := plan.Total()
	out := make([]burnrateSuggestion, len(ss))
	for i, s := range ss {
		saving := burnrate.RoundUSD(s.Saving)
		out[i] = burnrateSuggestion{Rank: i + 1, Type: s.Kind, Title: s.Title, Tradeoff: s.Tradeoff, Steps: s.Steps,
			Provider: s.Provider, FromModel: s.FromModel, ToModel: s.ToModel, SavingUSD: saving,
			SavingUSDFormatted: burnrate.FormatUSD(saving), SavingPercent: burnratePercent(s.Saving, total)}
		if out[i].Steps == nil {
			out[i].Steps = []any{}
		}
	}
	return out
}

func burnrateTrackOf(res suite.BurnRateTracked) *burnrateTrackResult {
	t := res.Tracked
	out := &burnrateTrackResult{Tracked: true, Provider: t.Provider, Model: t.Model, KnownModel: t.Known, TaskID: t.TaskID,
		CostUSD: t.CostUSD, CostUSDFormatted: burnrate.FormatUSD(t.CostUSD), CostSource: t.CostSource,
		ListCostUSD: t.ListCostUSD, ObservedRatio: t.ObservedRatio, PricesAsOf: t.PricesAsOf,
		Correction: burnrateCorrection{Updated: t.ObservedRatio != nil, PreviousFactor: res.PreviousFactor, Factor: t.Factor,
			Samples: t.Samples, AppliesTo: "this organization's later estimates of " + t.Provider + "/" + t.Model}}
	switch {
	case !t.Known:
		out.Correction.AppliesTo = "none: the model is not in the price map"
		out.Message = "Spend recorded; it counts in today's budget. " + t.Provider + "/" + t.Model +
			" is not in the price map, so no estimate is corrected by it."
	case t.ObservedRatio != nil:
		out.Message = fmt.Sprintf("Spend recorded. It was %s times the list price of its tokens; later estimates of %s/%s "+
			"are multiplied by %s (from %s, %d calls).", strconv.FormatFloat(*t.ObservedRatio, 'f', -1, 64), t.Provider, t.Model,
			strconv.FormatFloat(t.Factor, 'f', -1, 64), strconv.FormatFloat(res.PreviousFactor, 'f', -1, 64), t.Samples)
	case t.CostSource == burnrate.CostPriceMap:
		out.Message = "Spend recorded, priced from the price map and the current correction (no actual_cost was given, so the correction is unchanged)."
	default:
		out.Message = "Spend recorded. Without input_tokens and output_tokens it does not change the correction."
	}
	return out
}

// Budget alert levels.
const (
	burnrateAlertNone     = "none"
	burnrateAlertOK       = "ok"
	burnrateAlertWarning  = "warning"
	burnrateAlertExceeded = "exceeded"
	// burnrateAlertAt is the share of the limit from which the alert is a warning.
	burnrateAlertAt = 0.8
)

func burnrateBudgetOf(res suite.BurnRateBudget, limit *float64, asOf string) *burnrateBudgetResult {
	d := res.Day
	spend := burnrate.RoundUSD(d.SpendUSD)
	out := &burnrateBudgetResult{Date: res.Date.Format(time.DateOnly), ResetsAt: res.Date.Add(24 * time.Hour),
		SpendUSD: spend, SpendUSDFormatted: burnrate.FormatUSD(spend), DailyLimit: limit, Alert: burnrateAlertNone,
		TrackedCalls: d.Calls, ByModel: make([]burnrateModelSpend, len(d.Models)), EstimatesToday: d.Estimates,
		EstimatedCostTodayUSD: burnrate.RoundUSD(d.EstimatedUSD), OptimizationsToday: d.Optimizations, PricesAsOf: asOf}
	for i, m := range d.Models {
		out.ByModel[i] = burnrateModelSpend{Provider: m.Provider, Model: m.Model, SpendUSD: burnrate.RoundUSD(m.SpendUSD),
			Calls: m.Calls, InputTokens: m.InputTokens, OutputTokens: m.OutputTokens}
	}
	if limit == nil {
		out.Message = fmt.Sprintf("%s tracked today (UTC). Pass daily_limit to compare it with a budget.", out.SpendUSDFormatted)
		return out
	}
	remaining := burnrate.RoundUSD(max(*limit-spend, 0))
	pct := math.Round(spend / *limit * 1000) / 10
	out.RemainingUSD, out.PercentUsed = &remaining, &pct
	switch {
	case spend >= *limit:
		out.Alert = burnrateAlertExceeded
		out.Message = fmt.Sprintf("Over budget: %s tracked today against a daily limit of %s.", out.SpendUSDFormatted, burnrate.FormatUSD(*limit))
	case spend >= burnrateAlertAt**limit:
		out.Alert = burnrateAlertWarning
		out.Message = fmt.Sprintf("%.1f %% of today's budget used: %s left of %s.", pct, burnrate.FormatUSD(remaining), burnrate.FormatUSD(*limit))
	default:
		out.Alert = burnrateAlertOK
		out.Message = fmt.Sprintf("%s left of today's %s budget.", burnrate.FormatUSD(remaining), burnrate.FormatUSD(*limit))
	}
	return out
}
