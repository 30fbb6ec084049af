package httpapi

// guardrailOps are the guardrail operations of the suite (spec C).
func (s *Server) guardrailOps() []suiteOp { return nil }
