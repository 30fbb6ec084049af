package projections

// burnrateProjections are the burnrate product's read models (spec C).
func burnrateProjections() []Projection { return nil }
