package projections

// pitfalldbProjections are the pitfalldb product's read models (spec C).
func pitfalldbProjections() []Projection { return nil }
