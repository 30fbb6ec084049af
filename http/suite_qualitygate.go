package httpapi

// qualitygateOps are the qualitygate operations of the suite (spec C).
func (s *Server) qualitygateOps() []suiteOp { return nil }
