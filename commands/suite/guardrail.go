package suite

// GuardRail is the GuardRail product's operations (spec C).
type GuardRail struct{ s *Suite }

func newGuardRail(s *Suite) *GuardRail { return &GuardRail{s: s} }
