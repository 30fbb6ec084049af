package suite

// BurnRate is the BurnRate product's operations (spec C).
type BurnRate struct{ s *Suite }

func newBurnRate(s *Suite) *BurnRate { return &BurnRate{s: s} }
