package openai

import (
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/offline"
)

// price is what a model costs, in US dollars per million tokens.
type price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Cost returns the cost of usage u at price p, in US dollars.
func (p price) Cost(u llm.Usage) float64 {
	return (float64(u.PromptTokens)*p.InputPerMTok + float64(u.CompletionTokens)*p.OutputPerMTok) / 1e6
}

// priceTable holds list prices (USD per million input/output tokens) of
// common models, as published by their vendors in 2025. A dated or
// suffixed model name ("gpt-4o-2024-08-06") takes the price of its longest
// listed prefix; a name with a router prefix ("openai/gpt-4o") is looked up
// without it. The table is an estimate for cost reporting, not a bill:
// update it when a vendor changes its prices.
var priceTable = map[string]price{
	"gpt-4o":            {2.50, 10.00},
	"gpt-4o-mini":       {0.15, 0.60},
	"gpt-4.1":           {2.00, 8.00},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"gpt-4-turbo":       {10.00, 30.00},
	"gpt-3.5-turbo":     {0.50, 1.50},
	"o1":                {15.00, 60.00},
	"o1-mini":           {1.10, 4.40},
	"o3":                {2.00, 8.00},
	"o3-mini":           {1.10, 4.40},
	"o4-mini":           {1.10, 4.40},
	"claude-3-5-haiku":  {0.80, 4.00},
	"claude-3-5-sonnet": {3.00, 15.00},
	"claude-3-7-sonnet": {3.00, 15.00},
	"claude-sonnet-4":   {3.00, 15.00},
	"claude-opus-4":     {15.00, 75.00},
}

// Default prices of a model the table does not know, by tier: tier 1 is
// priced like gpt-4o, tier 2 like gpt-4o-mini.
var (
	defaultPriceTier1 = price{2.50, 10.00}
	defaultPriceTier2 = price{0.15, 0.60}
)

// priceFor returns the price of model; a model the table does not know
// gets the default price of tier (2 for tier 2, tier 1 otherwise).
func priceFor(model string, tier int) price {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if m == offline.Model {
		return price{}
	}
	if p, ok := priceTable[m]; ok {
		return p
	}
	best, found := "", false
	for name := range priceTable {
		if strings.HasPrefix(m, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	if found {
		return priceTable[best]
	}
	if tier == 2 {
		return defaultPriceTier2
	}
	return defaultPriceTier1
}
