package httpapi

// pitfalldbOps are the pitfalldb operations of the suite (spec C).
func (s *Server) pitfalldbOps() []suiteOp { return nil }
