package suite

// QualityGate is the QualityGate product's operations (spec C).
type QualityGate struct{ s *Suite }

func newQualityGate(s *Suite) *QualityGate { return &QualityGate{s: s} }
