package httpapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"
)

// The OpenAPI document (GET /openapi.json) is built once per server from
// its router and apiOps (openapi_doc.go); GET /docs renders it.

// openAPIDoc is a server's document, built on first use.
type openAPIDoc struct {
	once sync.Once
	doc  []byte
	err  error
}

// openAPI returns s's document.
func (s *Server) openAPI() ([]byte, error) {
	s.apiDoc.once.Do(func() { s.apiDoc.doc, s.apiDoc.err = buildOpenAPI(s.router, s.cfg) })
	return s.apiDoc.doc, s.apiDoc.err
}

// openAPIJSON is GET /openapi.json.
func (s *Server) openAPIJSON(w http.ResponseWriter, r *http.Request) error {
	doc, err := s.openAPI()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(doc)
	return nil
}

// examplesJSON are real answers recorded by the black-box tests
// (BLACKBOX_RECORD_EXAMPLES, see test/blackbox/openapi_test.go), by
// operation id and status; the document shows them.
//
//go:embed openapi_examples.json
var examplesJSON []byte

// recordedExamples decodes examplesJSON.
func recordedExamples() map[string]map[string]json.RawMessage {
	out := map[string]map[string]json.RawMessage{}
	if err := json.Unmarshal(examplesJSON, &out); err != nil {
		panic("openapi: openapi_examples.json: " + err.Error())
	}
	return out
}
