// Package suite names the agent-infrastructure suite's products (spec C)
// and its metered operations, with the credit price of each. It holds no
// storage: the products' aggregates live in their own packages (dedupq,
// burnrate, qualitygate, guardrail, pitfalldb) and the charge of an
// operation is a credit.Charged whose Reason is the operation's name.
package suite

import "strings"

// Product is one of the suite's five products.
type Product string

// The products, named as their routes and keys' products list name them.
const (
	DedupQ      Product = "dedupq"
	BurnRate    Product = "burnrate"
	QualityGate Product = "qualitygate"
	GuardRail   Product = "guardrail"
	PitfallDB   Product = "pitfalldb"
)

// Products lists the products in spec C's order.
var Products = []Product{DedupQ, BurnRate, QualityGate, GuardRail, PitfallDB}

// Op is a metered operation of a product: its name and its price.
type Op struct {
	Product Product
	Name    string
	Credits int64
}

// String is the operation's name as the tool server's action and the
// charge's reason spell it: "dedupq.check".
func (o Op) String() string { return string(o.Product) + "." + o.Name }

// OrgWide reports whether the operation changes what every caller of the
// organization is answered at once (GuardRail's policies: "active from the
// next check on"), so that its answer waits for the read models rather
// than leaving the wait to its own caller's next request (decision 230).
func (o Op) OrgWide() bool {
	return o == GuardRailCreatePolicy || o == GuardRailDeletePolicy
}

// The operations and their prices (spec C, What the service does).
var (
	DedupQCheck    = Op{DedupQ, "check", 1}
	DedupQComplete = Op{DedupQ, "complete", 2}
	DedupQStats    = Op{DedupQ, "stats", 0}

	BurnRateEstimate = Op{BurnRate, "estimate", 1}
	BurnRateTrack    = Op{BurnRate, "track", 0}
	BurnRateOptimize = Op{BurnRate, "optimize", 1}
	BurnRateBudget   = Op{BurnRate, "budget", 0}

	// QualityGateValidate costs 1 credit with pattern checks only;
	// QualityGateValidateLLM is the same operation with an LLM check
	// (tone, factual_claims, internal_consistency) among its check types.
	QualityGateValidate    = Op{QualityGate, "validate", 1}
	QualityGateValidateLLM = Op{QualityGate, "validate", 8}
	QualityGateTrends      = Op{QualityGate, "trends", 0}

	GuardRailCheck        = Op{GuardRail, "check", 1}
	GuardRailCreatePolicy = Op{GuardRail, "create_policy", 0}
	GuardRailListPolicies = Op{GuardRail, "list_policies", 0}
	// GuardRailDeletePolicy is beyond spec C (decision 271).
	GuardRailDeletePolicy = Op{GuardRail, "delete_policy", 0}

	PitfallDBQuery  = Op{PitfallDB, "query", 2}
	PitfallDBReport = Op{PitfallDB, "report", 0}
	PitfallDBStats  = Op{PitfallDB, "stats", 0}
)

// ProductOf is the product a charge's reason names ("guardrail.check"),
// false for a charge that is not a suite operation's.
func ProductOf(reason string) (Product, bool) {
	name, _, ok := strings.Cut(reason, ".")
	if !ok {
		return "", false
	}
	for _, p := range Products {
		if string(p) == name {
			return p, true
		}
	}
	return "", false
}
