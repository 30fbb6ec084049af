// Package burnrate is the BurnRate product (spec C): the price map, token
// estimation, pricing and optimizing agent plans, and the organizations'
// tracked spend, whose ratio to list prices corrects later estimates.
package burnrate

import "svc/eventstore/event"

// Event types.
const (
	EventEstimateMade  = "BurnRateEstimateMade"
	EventPlanOptimized = "BurnRatePlanOptimized"
	EventSpendTracked  = "BurnRateSpendTracked"
)

// EstimateMade is the data of BurnRateEstimateMade: a plan priced.
type EstimateMade struct {
	EstimateID string `json:"estimate_id"`
	OrgID      string `json:"org_id"`
	// Steps is the plan's length; Models its models ("provider/model").
	Steps        int      `json:"steps"`
	Models       []string `json:"models"`
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	TotalCostUSD float64  `json:"total_cost_usd"`
	// BudgetLimit is the caller's limit (nil: none).
	BudgetLimit  *float64 `json:"budget_limit,omitempty"`
	WithinBudget bool     `json:"within_budget"`
	Suggestions  int      `json:"suggestions"`
	PricesAsOf   string   `json:"prices_as_of"`
}

// PlanOptimized is the data of BurnRatePlanOptimized: a plan's
// substitutions listed.
type PlanOptimized struct {
	EstimateID   string   `json:"estimate_id"`
	OrgID        string   `json:"org_id"`
	Steps        int      `json:"steps"`
	Models       []string `json:"models"`
	TotalCostUSD float64  `json:"total_cost_usd"`
	// OptimizedCostUSD is the plan's cost with every suggestion applied.
	OptimizedCostUSD float64 `json:"optimized_cost_usd"`
	// Kinds are the suggestions' kinds, ranked.
	Kinds        []string `json:"kinds"`
	TargetBudget *float64 `json:"target_budget,omitempty"`
	PricesAsOf   string   `json:"prices_as_of"`
}

// SpendTracked is the data of BurnRateSpendTracked: one call's actual
// spend, and the model's correction factor after it.
type SpendTracked struct {
	OrgID string `json:"org_id"`
	// Provider and Model are canonical for a model of the price map
	// (Known), as given (lower case) otherwise.
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Known    bool   `json:"known"`
	TaskID   string `json:"task_id,omitempty"`
	// CostUSD is the spend; CostSource "reported" (the caller's
	// actual_cost) or "price_map" (priced from the tokens).
	CostUSD         float64 `json:"cost_usd"`
	CostSource      string  `json:"cost_source"`
	InputTokens     *int64  `json:"input_tokens,omitempty"`
	OutputTokens    *int64  `json:"output_tokens,omitempty"`
	CacheReadTokens int64   `json:"cache_read_tokens,omitempty"`
	// ListCostUSD is the price map's cost of the tokens (nil without
	// them); ObservedRatio CostUSD over it, when it corrected the factor.
	ListCostUSD   *float64 `json:"list_cost_usd,omitempty"`
	ObservedRatio *float64 `json:"observed_ratio,omitempty"`
	// Factor and Samples are the correction after this call.
	Factor     float64 `json:"factor"`
	Samples    int     `json:"samples"`
	PricesAsOf string  `json:"prices_as_of"`
}

// EventType implements event.Data.
func (EstimateMade) EventType() string { return EventEstimateMade }

// EventType implements event.Data.
func (PlanOptimized) EventType() string { return EventPlanOptimized }

// EventType implements event.Data.
func (SpendTracked) EventType() string { return EventSpendTracked }

// RegisterEvents registers the burnrate event types.
func RegisterEvents(r *event.Registry) {
	event.Register[EstimateMade](r)
	event.Register[PlanOptimized](r)
	event.Register[SpendTracked](r)
}

var registry = event.NewRegistry(RegisterEvents)
