package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/burnrate"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// BurnRate is the BurnRate product's operations (spec C): pricing agent
// plans before they run, listing cheaper plans, tracking actual spend and
// reporting the day's spend against a budget.
type BurnRate struct {
	s            *Suite
	prices       *burnrate.Prices
	estimates    *eventstore.Repository[*burnrate.Estimate]
	calibrations *eventstore.Repository[*burnrate.Calibration]

	estimate commands.Handler[BurnRateEstimate, BurnRateEstimated]
	optimize commands.Handler[BurnRateOptimize, BurnRateOptimized]
	track    commands.Handler[BurnRateTrack, BurnRateTracked]
}

// calibrationCache is how many calibrations the fold cache keeps.
const calibrationCache = 4096

func newBurnRate(s *Suite) *BurnRate {
	store := s.repos.Store
	b := &BurnRate{s: s, prices: burnrate.Current(),
		estimates: eventstore.NewRepository(store, eventstore.Kind[*burnrate.Estimate]{
			Stream: burnrate.EstimateStream, New: func(string) *burnrate.Estimate { return burnrate.NewEstimate() },
			Owner: (*burnrate.Estimate).OrgID}),
		calibrations: eventstore.NewRepository(store, eventstore.Kind[*burnrate.Calibration]{
			Stream: burnrate.CalibrationStream, New: func(string) *burnrate.Calibration { return burnrate.NewCalibration() },
			Cache: calibrationCache, Clone: (*burnrate.Calibration).Clone}),
	}
	b.estimate = handle(s, b.doEstimate)
	b.optimize = handle(s, b.doOptimize)
	b.track = handle(s, b.doTrack)
	return b
}

// Prices is the price map the operations price with.
func (b *BurnRate) Prices() *burnrate.Prices { return b.prices }

// BurnRateEstimate prices a plan for the caller.
type BurnRateEstimate struct {
	Caller Caller
	Steps  []burnrate.Step
	// BudgetLimit flags a total above it (nil: none).
	BudgetLimit *float64
	// MaxSuggestions bounds the suggestions shown with the estimate.
	MaxSuggestions int
}

// BurnRateEstimated is a priced plan.
type BurnRateEstimated struct {
	EstimateID   string
	Plan         burnrate.Plan
	WithinBudget bool
	Suggestions  []burnrate.Suggestion
	Receipt      Receipt
}

// EstimateSuggestions is how many suggestions an estimate shows.
const EstimateSuggestions = 3

// Estimate prices the plan with the organization's correction factors
// and records it (1 credit).
func (b *BurnRate) Estimate(ctx context.Context, cmd BurnRateEstimate) (BurnRateEstimated, error) {
	return b.estimate.Handle(ctx, cmd)
}

// priced checks steps (a refusal before the credit check), then prices
// them with the organization's factors once op is affordable.
func (b *BurnRate) priced(ctx context.Context, c Caller, op domain.Op, steps []burnrate.Step) (burnrate.Plan, map[string]float64, error) {
	if _, err := b.prices.Price(steps, nil); err != nil {
		return burnrate.Plan{}, nil, err
	}
	if err := b.s.Meter.Afford(ctx, c, op); err != nil {
		return burnrate.Plan{}, nil, err
	}
	factors, err := b.s.ports.Queries.BurnRateFactors(ctx, c.OrgID)
	if err != nil {
		return burnrate.Plan{}, nil, err
	}
	plan, err := b.prices.Price(steps, factors)
	return plan, factors, err
}

func (b *BurnRate) doEstimate(ctx context.Context, cmd BurnRateEstimate) (BurnRateEstimated, error) {
	c := cmd.Caller
	plan, factors, err := b.priced(ctx, c, domain.BurnRateEstimate, cmd.Steps)
	if err != nil {
		return BurnRateEstimated{}, err
	}
	total := burnrate.RoundUSD(plan.Total())
	within := cmd.BudgetLimit == nil || total <= *cmd.BudgetLimit
	suggestions := b.prices.Suggest(plan, factors)
	limit := cmd.MaxSuggestions
	if limit <= 0 {
		limit = EstimateSuggestions
	}
	suggestions = suggestions[:min(len(suggestions), limit)]
	in, out := plan.Tokens()
	id := uuid.NewString()
	made := burnrate.EstimateMade{EstimateID: id, OrgID: c.OrgID, Steps: len(plan.Lines), Models: plan.Models(),
		InputTokens: in, OutputTokens: out, TotalCostUSD: total, BudgetLimit: cmd.BudgetLimit, WithinBudget: within,
		Suggestions: len(suggestions), PricesAsOf: plan.AsOf}
	rc, err := b.record(ctx, c, domain.BurnRateEstimate, id, made)
	if err != nil {
		return BurnRateEstimated{}, err
	}
	return BurnRateEstimated{EstimateID: id, Plan: plan, WithinBudget: within, Suggestions: suggestions, Receipt: rc}, nil
}

// record appends a priced plan's event and charges op.
func (b *BurnRate) record(ctx context.Context, c Caller, op domain.Op, id string, d event.Data) (Receipt, error) {
	rc, err := b.s.Meter.Run(ctx, c, op, func(tx *eventstore.Tx) error {
		e, err := b.estimates.Load(tx, id)
		if err != nil {
			return err
		}
		data, err := e.Record(d)
		if err != nil {
			return err
		}
		_, err = b.estimates.Save(tx, id, e, data...)
		return err
	})
	if err != nil {
		return Receipt{}, fmt.Errorf("burnrate %s: %w", op.Name, err)
	}
	return rc, nil
}

// BurnRateOptimize lists a plan's cost reductions.
type BurnRateOptimize struct {
	Caller         Caller
	Steps          []burnrate.Step
	MaxSuggestions int
	// TargetBudget is the cost the caller aims for (nil: none).
	TargetBudget *float64
}

// BurnRateOptimized is a plan's ranked suggestions.
type BurnRateOptimized struct {
	EstimateID  string
	Plan        burnrate.Plan
	Suggestions []burnrate.Suggestion
	// Optimized is the plan with every suggestion shown applied.
	Optimized burnrate.Plan
	Receipt   Receipt
}

// Optimization bounds.
const (
	DefaultSuggestions = 5
	MaxSuggestions     = 20
)

// Optimize ranks the plan's substitutions by saving and records the
// optimization (1 credit).
func (b *BurnRate) Optimize(ctx context.Context, cmd BurnRateOptimize) (BurnRateOptimized, error) {
	return b.optimize.Handle(ctx, cmd)
}

func (b *BurnRate) doOptimize(ctx context.Context, cmd BurnRateOptimize) (BurnRateOptimized, error) {
	c := cmd.Caller
	plan, factors, err := b.priced(ctx, c, domain.BurnRateOptimize, cmd.Steps)
	if err != nil {
		return BurnRateOptimized{}, err
	}
	n := cmd.MaxSuggestions
	if n <= 0 {
		n = DefaultSuggestions
	}
	all := b.prices.Suggest(plan, factors)
	shown := all[:min(len(all), n)]
	optimized := burnrate.Apply(plan, shown)
	kinds := make([]string, len(shown))
	for i, s := range shown {
		kinds[i] = s.Kind
	}
	id := uuid.NewString()
	d := burnrate.PlanOptimized{EstimateID: id, OrgID: c.OrgID, Steps: len(plan.Lines), Models: plan.Models(),
		TotalCostUSD: burnrate.RoundUSD(plan.Total()), OptimizedCostUSD: burnrate.RoundUSD(optimized.Total()), Kinds: kinds,
		TargetBudget: cmd.TargetBudget, PricesAsOf: plan.AsOf}
	rc, err := b.record(ctx, c, domain.BurnRateOptimize, id, d)
	if err != nil {
		return BurnRateOptimized{}, err
	}
	return BurnRateOptimized{EstimateID: id, Plan: plan, Suggestions: shown, Optimized: optimized, Receipt: rc}, nil
}

// BurnRateTrack records one call's actual spend.
type BurnRateTrack struct {
	Caller          Caller
	Provider, Model string
	TaskID          string
	ActualCost      *float64
	InputTokens     *int64
	OutputTokens    *int64
	CacheReadTokens int64
}

// BurnRateTracked is what a tracked call recorded, with the model's
// correction factor before and after it.
type BurnRateTracked struct {
	Tracked        burnrate.SpendTracked
	PreviousFactor float64
	Receipt        Receipt
}

// Track records the spend (free): for a model of the price map with its
// cost and tokens, the ratio of the cost to the list price corrects the
// organization's later estimates of the model. A model the map does not
// list is recorded with its actual_cost (it counts in the budget).
func (b *BurnRate) Track(ctx context.Context, cmd BurnRateTrack) (BurnRateTracked, error) {
	return b.track.Handle(ctx, cmd)
}

func (b *BurnRate) doTrack(ctx context.Context, cmd BurnRateTrack) (BurnRateTracked, error) {
	c := cmd.Caller
	spend, err := b.prices.Identify(cmd.Provider, cmd.Model)
	var le *burnrate.LookupError
	switch {
	case err == nil:
	case errors.As(err, &le) && cmd.ActualCost != nil:
		// recorded under the names given: it counts in the budget
	default:
		return BurnRateTracked{}, err
	}
	spend.OrgID, spend.TaskID = c.OrgID, cmd.TaskID
	spend.ActualCost, spend.InputTokens, spend.OutputTokens, spend.CacheRead = cmd.ActualCost, cmd.InputTokens, cmd.OutputTokens, cmd.CacheReadTokens
	// refused before the transaction when it cannot be tracked
	if _, err := burnrate.NewCalibration().Track(spend); err != nil {
		return BurnRateTracked{}, err
	}
	id := burnrate.CalibrationID(c.OrgID, spend.Provider, spend.Name)
	var out BurnRateTracked
	rc, err := b.s.Meter.Run(ctx, c, domain.BurnRateTrack, func(tx *eventstore.Tx) error {
		cal, err := b.calibrations.Load(tx, id)
		if err != nil {
			return err
		}
		tracked, err := cal.Track(spend)
		if err != nil {
			return err
		}
		out = BurnRateTracked{Tracked: tracked, PreviousFactor: cal.Factor()}
		_, err = b.calibrations.Save(tx, id, cal, tracked)
		return err
	})
	if err != nil {
		return BurnRateTracked{}, fmt.Errorf("burnrate track: %w", err)
	}
	out.Receipt = rc
	return out, nil
}

// BurnRateBudget is the organization's spend today (UTC).
type BurnRateBudget struct {
	Day     projections.BurnRateDay
	Date    time.Time
	Receipt Receipt
}

// Budget reads the caller's organization's tracked spend and activity
// today, UTC (free).
func (b *BurnRate) Budget(ctx context.Context, c Caller, now time.Time) (BurnRateBudget, error) {
	day, err := b.s.ports.Queries.BurnRateDay(ctx, c.OrgID, now)
	if err != nil {
		return BurnRateBudget{}, err
	}
	rc, err := b.s.Meter.Balance(ctx, c)
	if err != nil {
		return BurnRateBudget{}, err
	}
	u := now.UTC()
	return BurnRateBudget{Day: day, Date: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC), Receipt: rc}, nil
}
