package httpapi

// burnrateOps are the burnrate operations of the suite (spec C).
func (s *Server) burnrateOps() []suiteOp { return nil }
