package suite

// DedupQ is the DedupQ product's operations (spec C).
type DedupQ struct{ s *Suite }

func newDedupQ(s *Suite) *DedupQ { return &DedupQ{s: s} }
