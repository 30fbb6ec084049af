package projections

// qualitygateProjections are the qualitygate product's read models (spec C).
func qualitygateProjections() []Projection { return nil }
