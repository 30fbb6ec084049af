package projections

// dedupqProjections are the dedupq product's read models (spec C).
func dedupqProjections() []Projection { return nil }
