package httpapi

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// routedServer is a server with its routes and nothing behind them: enough
// to build the document.
func routedServer() *Server {
	s := &Server{cfg: Config{BaseURL: "http://127.0.0.1:8080", Version: "test"}, metrics: newMetrics()}
	s.routes()
	return s
}

// openAPIOf decodes the document of s.
func openAPIOf(t *testing.T, s *Server) map[string]any {
	t.Helper()
	raw, err := s.openAPI()
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("OPENAPI_DUMP"); p != "" { // to look at it: OPENAPI_DUMP=/tmp/openapi.json
		_ = os.WriteFile(p, raw, 0o644)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestOpenAPIMatchesRouter is the drift test: every route of the router
// is in the document (or named internal in apiOps) and every operation of
// the document is a route of the router, with the same path variables; an
// entry of apiOps without a route fails too.
func TestOpenAPIMatchesRouter(t *testing.T) {
	s := routedServer()
	ops := apiOps()
	routed := map[string][]string{} // "METHOD path" -> path variables
	names := map[string]bool{}
	_ = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		name := route.GetName()
		if _, err := route.GetMethods(); name == "" && err != nil {
			return nil // the /api/rigor subrouter itself
		}
		names[name] = true
		op, known := ops[name]
		if !known {
			t.Errorf("route %q is not in the OpenAPI document: add it to rigorOps or platformOps (http/openapi_ops_*.go)", name)
			return nil
		}
		methods, err := route.GetMethods()
		if op.internal {
			return nil
		}
		tpl, terr := route.GetPathTemplate()
		if err != nil || terr != nil {
			t.Errorf("route %q has no methods or path: name it internal, or give it methods", name)
			return nil
		}
		var vars []string
		for _, m := range pathVar.FindAllStringSubmatch(tpl, -1) {
			vars = append(vars, m[1])
		}
		for _, m := range methods {
			routed[m+" "+openAPIPath(tpl)] = vars
		}
		return nil
	})
	for name := range ops {
		if !names[name] {
			t.Errorf("apiOps documents %q, which is no route of the router: remove it or fix its name", name)
		}
	}
	doc := openAPIOf(t, s)
	documented := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			key := strings.ToUpper(method) + " " + path
			documented[key] = true
			vars, ok := routed[key]
			if !ok {
				t.Errorf("the document has %s, which the router does not route", key)
				continue
			}
			var declared []string
			params, _ := raw.(map[string]any)["parameters"].([]any)
			for _, p := range params {
				if pm := p.(map[string]any); pm["in"] == "path" {
					declared = append(declared, pm["name"].(string))
				}
			}
			if !slices.Equal(vars, declared) {
				t.Errorf("%s: path parameters %v, the route's variables are %v", key, declared, vars)
			}
		}
	}
	for key := range routed {
		if !documented[key] {
			t.Errorf("the router routes %s, which the document lacks", key)
		}
	}
	if len(documented) < 70 {
		t.Errorf("only %d operations documented", len(documented))
	}
}

// TestOpenAPIOperations checks what each operation says of itself: a
// summary, a tag of tagGroups, the required body fields among its
// properties, a success answer, an operation id of its own.
func TestOpenAPIOperations(t *testing.T) {
	doc := openAPIOf(t, routedServer())
	tags := map[string]bool{}
	for _, g := range tagGroups {
		for _, tag := range g.tags {
			tags[tag] = true
		}
	}
	ids := map[string]string{}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for path, item := range doc["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			op := raw.(map[string]any)
			where := strings.ToUpper(method) + " " + path
			id, _ := op["operationId"].(string)
			if prev, dup := ids[id]; dup || id == "" {
				t.Errorf("%s: operationId %q (also %s)", where, id, prev)
			}
			ids[id] = where
			// generators name the operation's answer and body after it
			for _, suffix := range []string{"Response", "JSONBody", "JSONRequestBody", "Params"} {
				if _, taken := schemas[strings.ToUpper(id[:1])+id[1:]+suffix]; taken {
					t.Errorf("%s: component %s%s clashes with what client generators name operation %s's types: name it in componentNames",
						where, strings.ToUpper(id[:1])+id[1:], suffix, id)
				}
			}
			if s, _ := op["summary"].(string); s == "" {
				t.Errorf("%s: no summary", where)
			}
			for _, tag := range op["tags"].([]any) {
				if !tags[tag.(string)] {
					t.Errorf("%s: tag %q is in no tag group", where, tag)
				}
			}
			success := false
			for status := range op["responses"].(map[string]any) {
				success = success || status < "400"
			}
			if !success {
				t.Errorf("%s: no success answer", where)
			}
			body, ok := op["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			schema := body["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			req, _ := schema["required"].([]any)
			for _, f := range req {
				if _, ok := props[f.(string)]; !ok {
					t.Errorf("%s: required body field %q is not a property", where, f)
				}
			}
		}
	}
}

// TestOpenAPIFieldNotes: every field note names a field of a documented
// type (a renamed or removed field leaves a stale note).
func TestOpenAPIFieldNotes(t *testing.T) {
	b := newDocBuilder()
	b.resp.schemaOf(errorResponse{})
	for _, op := range apiOps() {
		if op.body != nil {
			b.req.schemaOf(op.body)
		}
		for _, r := range op.replies {
			if r.body != nil {
				b.resp.schemaOf(r.body)
			}
			for _, a := range r.alts {
				b.resp.schemaOf(a)
			}
		}
	}
	var stale []string
	for key := range fieldNotes {
		if !b.used[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("field notes naming no field of a documented type (http/openapi_fields.go): %v", stale)
	}
}

// TestOpenAPIErrorCodes: every error code the handlers write (newError's
// literal codes in http/*.go) is declared by some route, so a new code
// cannot be forgotten everywhere.
func TestOpenAPIErrorCodes(t *testing.T) {
	declared := map[string]bool{"method_not_allowed": true, "not_found": true}
	for _, op := range apiOps() {
		for _, cs := range op.refusals() {
			for _, c := range cs {
				declared[c] = true
			}
		}
	}
	files, _ := os.ReadDir(".")
	code := regexp.MustCompile(`newError\(http\.Status\w+, "(\w+)"`)
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		src, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range code.FindAllStringSubmatch(string(src), -1) {
			if !declared[m[1]] {
				t.Errorf("%s: error code %q is answered by no route of the document", f.Name(), m[1])
			}
		}
	}
}

// TestDocsNegotiation: GET /docs is a page for a browser and JSON for a
// program (no Accept header included, as before the page existed).
func TestDocsNegotiation(t *testing.T) {
	for accept, html := range map[string]bool{
		"": false, "*/*": false, "application/json": false, "text/html": true,
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": true,
		"application/json, text/html;q=0.5":                               false,
		"text/html;q=0":                                                   false,
	} {
		if got := wantsHTML(accept); got != html {
			t.Errorf("Accept %q: page %v, want %v", accept, got, html)
		}
	}
}
