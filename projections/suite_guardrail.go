package projections

// guardrailProjections are the guardrail product's read models (spec C).
func guardrailProjections() []Projection { return nil }
