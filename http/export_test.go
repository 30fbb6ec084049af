package httpapi

import "net/http"

// ClientIPOf exposes clientIPOf to the external tests.
func (s *Server) ClientIPOf(r *http.Request) string { return s.clientIPOf(r) }
