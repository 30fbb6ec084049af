package httpapi

// dedupqOps are the dedupq operations of the suite (spec C).
func (s *Server) dedupqOps() []suiteOp { return nil }
