package suite

// PitfallDB is the PitfallDB product's operations (spec C).
type PitfallDB struct{ s *Suite }

func newPitfallDB(s *Suite) *PitfallDB { return &PitfallDB{s: s} }
