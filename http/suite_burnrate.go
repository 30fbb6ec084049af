package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"svc/commands/suite"
	"svc/domain/burnrate"
)

// burnrateOps are the burnrate operations of the suite (spec C). Each
// accepts spec C's REST shape and the tool manifest's (steps with a
// string or numeric label, search_calls beside count, tracking by tokens
// alone, target_budget).
func (s *Server) burnrateOps() []suiteOp {
	return []suiteOp{
		suiteOp{action: "burnrate.estimate", method: http.MethodPost, path: "/api/burnrate/estimate", status: http.StatusOK,
			run: s.burnrateEstimate,
			doc: apiOp{tag: tagBurnRate, summary: "Estimate the cost of an agent plan",
				note: "1 credit. Prices each step from the dated price map (prices_as_of), estimating missing tokens from prompt_length, " +
					"prompt_text_sample or the action, and corrected by the organization's tracked spend; an unknown provider or model is " +
					"400, never $0. Shows up to three cheaper substitutions.",
				body: burnrateEstimateParams{}, required: []string{"plan"},
				replies: []reply{ok(http.StatusOK, "The priced plan.", burnrateEstimateResult{})},
				errs:    []codes{errs(http.StatusBadRequest, "unknown_model", "unknown_provider"), errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		suiteOp{action: "burnrate.track", method: http.MethodPost, path: "/api/burnrate/track", status: http.StatusOK,
			run: s.burnrateTrack,
			doc: apiOp{tag: tagBurnRate, summary: "Track the actual spend of a call",
				note: "Free. Records the call's actual_cost (or, without it, prices input_tokens and output_tokens from the map); " +
					"with both, its ratio to the list price corrects the organization's later estimates of that model.",
				body: burnrateTrackParams{}, required: []string{"provider", "model"},
				replies: []reply{ok(http.StatusOK, "The spend recorded, and the model's correction.", burnrateTrackResult{})},
				errs:    []codes{errs(http.StatusBadRequest, "unknown_model", "unknown_provider")}}},
		suiteOp{action: "burnrate.optimize", method: http.MethodPost, path: "/api/burnrate/optimize", status: http.StatusOK,
			run: s.burnrateOptimize,
			doc: apiOp{tag: tagBurnRate, summary: "Rank cheaper versions of an agent plan",
				note: "1 credit. Ranks concrete substitutions (a cheaper model of the same family, prompt caching, the batch API, " +
					"fewer output tokens) by what each saves, and the plan's cost with all of them; target_budget says whether that meets it.",
				body: burnrateOptimizeParams{}, required: []string{"plan"},
				replies: []reply{ok(http.StatusOK, "The ranked suggestions.", burnrateOptimizeResult{})},
				errs:    []codes{errs(http.StatusBadRequest, "unknown_model", "unknown_provider"), errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		suiteOp{action: "burnrate.budget", method: http.MethodGet, path: "/api/burnrate/budget", status: http.StatusOK,
			run: s.burnrateBudget,
			doc: apiOp{tag: tagBurnRate, summary: "Today's spend against a daily budget",
				note: "Free. The organization's tracked spend today (UTC) by model; with daily_limit, what remains and an alert " +
					"(warning from 80 %, exceeded from 100 %).",
				params:  []param{query("daily_limit", "The daily budget, USD (enables alerts).", jsonSchema{"type": "number", "exclusiveMinimum": 0})},
				replies: []reply{ok(http.StatusOK, "Today's spend.", burnrateBudgetResult{})}}},
	}
}

func (s *Server) burnrateEstimate(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p burnrateEstimateParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	steps, err := burnrateSteps(p.Plan)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	limit, err := burnrateAmount(p.BudgetLimit, "budget_limit")
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	res, err := s.suite.BurnRate.Estimate(ctx, suite.BurnRateEstimate{Caller: c.caller, Steps: steps, BudgetLimit: limit})
	if err != nil {
		return nil, suite.Receipt{}, burnrateError(err)
	}
	out := &burnrateEstimateResult{EstimateID: res.EstimateID, Estimate: burnrateEstimateOf(res.Plan, limit, res.WithinBudget),
		OptimizationSuggestions: burnrateSuggestionsOf(res.Plan, res.Suggestions), PricesAsOf: res.Plan.AsOf}
	return out, res.Receipt, nil
}

func (s *Server) burnrateOptimize(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p burnrateOptimizeParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	steps, err := burnrateSteps(p.Plan)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	target, err := burnrateAmount(p.TargetBudget, "target_budget")
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	n := suite.DefaultSuggestions
	if p.MaxSuggestions != nil {
		v := *p.MaxSuggestions
		if v != float64(int64(v)) || v < 1 || v > suite.MaxSuggestions {
			return nil, suite.Receipt{}, suiteInvalid("max_suggestions", "Field max_suggestions must be a whole number from 1 to 20.")
		}
		n = int(v)
	}
	res, err := s.suite.BurnRate.Optimize(ctx, suite.BurnRateOptimize{Caller: c.caller, Steps: steps, MaxSuggestions: n, TargetBudget: target})
	if err != nil {
		return nil, suite.Receipt{}, burnrateError(err)
	}
	current, optimized := burnrate.RoundUSD(res.Plan.Total()), burnrate.RoundUSD(res.Optimized.Total())
	saving := burnrate.RoundUSD(current - optimized)
	out := &burnrateOptimizeResult{OptimizationID: res.EstimateID,
		CurrentCostUSD: current, CurrentCostUSDFormatted: burnrate.FormatUSD(current),
		OptimizedCostUSD: optimized, OptimizedCostUSDFormatted: burnrate.FormatUSD(optimized),
		PotentialSavingsUSD: saving, PotentialSavingsUSDFormatted: burnrate.FormatUSD(saving), PotentialSavingsPercent: burnratePercent(saving, current),
		OptimizationSuggestions: burnrateSuggestionsOf(res.Plan, res.Suggestions),
		Estimate:                burnrateEstimateOf(res.Plan, nil, true), TargetBudget: target, PricesAsOf: res.Plan.AsOf}
	switch {
	case len(res.Suggestions) == 0:
		out.Message = "No substitution lowers this plan's cost: it already uses the cheapest options the price map knows."
	default:
		out.Message = "Applying the " + burnratePlural(len(res.Suggestions), "suggestion") + " brings the plan from " +
			out.CurrentCostUSDFormatted + " to " + out.OptimizedCostUSDFormatted + "."
	}
	if target != nil {
		meets := optimized <= *target
		out.MeetsTarget = &meets
		switch {
		case current <= *target:
			out.Message += " The plan already fits the target budget of " + burnrate.FormatUSD(*target) + "."
		case meets:
			out.Message += " That meets the target budget of " + burnrate.FormatUSD(*target) + "."
		default:
			out.Message += " That is still above the target budget of " + burnrate.FormatUSD(*target) + ": remove steps or shorten prompts."
		}
	}
	return out, res.Receipt, nil
}

func (s *Server) burnrateTrack(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p burnrateTrackParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	cmd := suite.BurnRateTrack{Caller: c.caller, Provider: p.Provider, Model: p.Model, TaskID: p.TaskID, ActualCost: p.ActualCost}
	switch {
	case burnrateBlank(p.Provider):
		return nil, suite.Receipt{}, suiteMissing("provider")
	case burnrateBlank(p.Model):
		return nil, suite.Receipt{}, suiteMissing("model")
	case len(p.TaskID) > 200:
		return nil, suite.Receipt{}, suiteInvalid("task_id", "Field task_id must be at most 200 characters.")
	}
	var err error
	if cmd.InputTokens, err = burnrateCount(p.InputTokens, "input_tokens", burnrate.MaxTokens); err != nil {
		return nil, suite.Receipt{}, err
	}
	if cmd.OutputTokens, err = burnrateCount(p.OutputTokens, "output_tokens", burnrate.MaxTokens); err != nil {
		return nil, suite.Receipt{}, err
	}
	cached, err := burnrateCount(p.CacheReadTokens, "cache_read_tokens", burnrate.MaxTokens)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	if cached != nil {
		cmd.CacheReadTokens = *cached
	}
	if p.ActualCost == nil && (cmd.InputTokens == nil || cmd.OutputTokens == nil) {
		e := suiteMissing("actual_cost")
		e.Message = "Field actual_cost is required (or input_tokens and output_tokens, to price the call from the price map)."
		return nil, suite.Receipt{}, e
	}
	res, err := s.suite.BurnRate.Track(ctx, cmd)
	if err != nil {
		return nil, suite.Receipt{}, burnrateError(err)
	}
	return burnrateTrackOf(res), res.Receipt, nil
}

func (s *Server) burnrateBudget(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p burnrateBudgetParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.DailyLimit != nil && (*p.DailyLimit <= 0 || *p.DailyLimit > burnrateMaxUSD) {
		return nil, suite.Receipt{}, suiteInvalid("daily_limit", "Field daily_limit must be a number of USD above 0.")
	}
	res, err := s.suite.BurnRate.Budget(ctx, c.caller, time.Now())
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	return burnrateBudgetOf(res, p.DailyLimit, s.suite.BurnRate.Prices().AsOf), res.Receipt, nil
}

// burnrateBlank reports whether s is empty or spaces.
func burnrateBlank(s string) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// burnratePlural is "1 suggestion", "3 suggestions".
func burnratePlural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// burnratePercent is part as a percentage of whole, one decimal (0 of nothing).
func burnratePercent(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(int64(part/whole*1000+0.5)) / 10
}
