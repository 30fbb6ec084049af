package blackbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Every answer a test receives from a svc server is checked against the
// server's OpenAPI document (GET /openapi.json): the transport of every
// client of these tests (http.DefaultTransport, wrapped in TestMain)
// finds the operation of the request, and kin-openapi's openapi3filter
// requires the status to be declared and the body to match the schema of
// its media type (an event stream's body is not read). A violation fails
// the test that sent the request (do reports it) or, for a request sent
// otherwise, the run (TestMain). So a field renamed in a handler but not
// in the document, or an error code a route does not declare, fails.

// contract is the document and what the checks found.
var contract = struct {
	mu       sync.Mutex
	doc      *openapi3.T
	ops      []contractOp
	hosts    map[string]bool // host:port of the svc servers of this run
	problems []violation
	loaded   sync.Once
	loadErr  error
	// examples are the first answer per operation and status
	// (BLACKBOX_RECORD_EXAMPLES).
	examples map[string]map[string]json.RawMessage
	// checked counts the answers checked; seen, by operation id.
	checked int
	seen    map[string]int
}{hosts: map[string]bool{}, examples: map[string]map[string]json.RawMessage{}, seen: map[string]int{}}

// contractOp is one operation of the document, with the path template's
// pattern.
type contractOp struct {
	method, path string
	pattern      *regexp.Regexp
	params       []string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// violation is an answer the document does not describe.
type violation struct {
	requestID, what string
	reported        bool
}

// baseTransport is the transport the checking one wraps.
var baseTransport = http.DefaultTransport

// checkedTransport checks every answer of a svc server of this run.
type checkedTransport struct{ next http.RoundTripper }

// serveContract records addr as a svc server whose answers are checked.
func serveContract(addr string) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	contract.hosts[addr] = true
}

// loadContract reads the document from the server at base, once per run:
// every server of the run is the same binary.
func loadContract(base string) error {
	contract.loaded.Do(func() {
		client := &http.Client{Timeout: 20 * time.Second, Transport: baseTransport}
		resp, err := client.Get(base + "/openapi.json")
		if err != nil {
			contract.loadErr = fmt.Errorf("GET /openapi.json: %w", err)
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			contract.loadErr = fmt.Errorf("GET /openapi.json: %d %v", resp.StatusCode, err)
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			contract.loadErr = fmt.Errorf("loading the OpenAPI document: %w", err)
			return
		}
		// the page and scripts of GET /docs are text: checked as strings
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.FileBodyDecoder)
		openapi3filter.RegisterBodyDecoder("text/javascript", openapi3filter.FileBodyDecoder)
		var ops []contractOp
		for path, item := range doc.Paths.Map() {
			pattern, params := templatePattern(path)
			for method, op := range item.Operations() {
				ops = append(ops, contractOp{method: method, path: path, pattern: pattern, params: params, item: item, op: op})
			}
		}
		// a literal path before a template that also matches it
		sort.Slice(ops, func(i, j int) bool { return len(ops[i].params) < len(ops[j].params) })
		contract.mu.Lock()
		contract.doc, contract.ops = doc, ops
		contract.mu.Unlock()
	})
	return contract.loadErr
}

var templateVar = regexp.MustCompile(`\\\{([^}]+)\\\}`)

// templatePattern is the regexp of an OpenAPI path template, and its
// variables in order.
func templatePattern(path string) (*regexp.Regexp, []string) {
	var params []string
	quoted := regexp.QuoteMeta(path)
	pattern := templateVar.ReplaceAllStringFunc(quoted, func(m string) string {
		params = append(params, templateVar.FindStringSubmatch(m)[1])
		return `([^/]*)`
	})
	return regexp.MustCompile("^" + pattern + "$"), params
}

// RoundTrip sends r and checks the answer of a svc server.
func (c checkedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	// a svc server of this run (not another server that took a stopped
	// one's port: svc names every answer's request)
	contract.mu.Lock()
	checked := contract.hosts[r.URL.Host] && contract.doc != nil && resp.Header.Get("X-Request-Id") != ""
	contract.mu.Unlock()
	if !checked || strings.HasPrefix(r.URL.Path, "/debug/pprof") || r.URL.Path == "/metrics" {
		return resp, nil
	}
	if isEventStream(resp.Header) {
		checkAnswer(r, resp, nil, false)
		return resp, nil
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil // the caller sees a short body; nothing to check
	}
	checkAnswer(r, resp, body, true)
	return resp, nil
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// checkAnswer records what the document does not say of resp, the answer
// to r (body is nil when it was not read).
func checkAnswer(r *http.Request, resp *http.Response, body []byte, read bool) {
	var found *contractOp
	var values []string
	pathFound := false
	contract.mu.Lock()
	ops, doc := contract.ops, contract.doc
	contract.mu.Unlock()
	for i := range ops {
		m := ops[i].pattern.FindStringSubmatch(r.URL.Path)
		if m == nil {
			continue
		}
		pathFound = true
		if ops[i].method == r.Method {
			found, values = &ops[i], m[1:]
			break
		}
	}
	id := resp.Header.Get("X-Request-Id")
	where := fmt.Sprintf("%s %s answered %d", r.Method, r.URL.Path, resp.StatusCode)
	if found == nil {
		// no operation: the router's 404 not_found or 405 method_not_allowed
		want := map[bool]int{false: http.StatusNotFound, true: http.StatusMethodNotAllowed}[pathFound]
		if resp.StatusCode != want || !read {
			addViolation(id, fmt.Sprintf("%s: the document has no such operation (want %d for it)", where, want))
			return
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			addViolation(id, fmt.Sprintf("%s: not JSON: %v", where, err))
			return
		}
		if err := doc.Components.Schemas["ErrorResponse"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			addViolation(id, fmt.Sprintf("%s: not the error envelope: %v", where, err))
		}
		return
	}
	params := map[string]string{}
	for i, name := range found.params {
		params[name], _ = url.PathUnescape(values[i])
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params,
			Route: &routers.Route{Spec: doc, Path: found.path, PathItem: found.item, Method: found.method, Operation: found.op}},
		Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: !read,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation()}},
	}
	input.SetBodyBytes(body)
	contract.mu.Lock()
	contract.checked++
	contract.seen[found.op.OperationID]++
	contract.mu.Unlock()
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		addViolation(id, fmt.Sprintf("%s (%s): %v\nbody: %.2000s", where, found.op.OperationID, err, body))
		return
	}
	if !read {
		if found.op.Responses.Status(resp.StatusCode).Value.Content.Get(resp.Header.Get("Content-Type")) == nil {
			addViolation(id, fmt.Sprintf("%s: Content-Type %q is not declared", where, resp.Header.Get("Content-Type")))
		}
		return
	}
	recordExample(found.op.OperationID, resp, body)
}

func addViolation(requestID, what string) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	contract.problems = append(contract.problems, violation{requestID: requestID, what: what})
}

// reportContract fails t for the violations of the answer of request id.
func reportContract(t testing.TB, requestID string) {
	t.Helper()
	contract.mu.Lock()
	var found []string
	for i := range contract.problems {
		if p := &contract.problems[i]; p.requestID == requestID && requestID != "" && !p.reported {
			p.reported = true
			found = append(found, p.what)
		}
	}
	contract.mu.Unlock()
	for _, what := range found {
		t.Errorf("the answer does not match the OpenAPI document (GET /openapi.json): %s", what)
	}
}

// unreportedViolations are the violations no test reported (answers to
// requests sent otherwise than by do).
func unreportedViolations() []string {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	var out []string
	for _, p := range contract.problems {
		if !p.reported {
			out = append(out, p.what)
		}
	}
	return out
}

// contractSummary says how many answers were checked, and which
// operations of the document no test received an answer of.
func contractSummary() string {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.doc == nil {
		return "no svc server started: nothing checked against the OpenAPI document"
	}
	var never []string
	for _, op := range contract.ops {
		if contract.seen[op.op.OperationID] == 0 {
			never = append(never, op.method+" "+op.path)
		}
	}
	sort.Strings(never)
	return fmt.Sprintf("%d answers checked against the OpenAPI document; %d of its %d operations answered no test: %s",
		contract.checked, len(never), len(contract.ops), strings.Join(never, ", "))
}

// Examples: with BLACKBOX_RECORD_EXAMPLES=<file> the first answer of each
// operation and status is written to <file> when the run ends, with
// secrets replaced; http/openapi_examples.json is such a file (the
// document shows its answers as examples, and TestOpenAPILint validates
// them against their schemas):
//
//	BLACKBOX_RECORD_EXAMPLES=$PWD/http/openapi_examples.json go test ./test/blackbox

func recordExample(opID string, resp *http.Response, body []byte) {
	if os.Getenv("BLACKBOX_RECORD_EXAMPLES") == "" || len(body) == 0 {
		return
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return
	}
	status := strconv.Itoa(resp.StatusCode)
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.examples[opID] == nil {
		contract.examples[opID] = map[string]json.RawMessage{}
	}
	if _, ok := contract.examples[opID][status]; ok || opID == "openapi" {
		return
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	raw, err := json.Marshal(scrub(v, ""))
	if err == nil {
		contract.examples[opID][status] = raw
	}
}

var (
	secretFields = map[string]string{"key": "svc_live_EXAMPLEKEY0000000000000000", "api_key": "svc_live_EXAMPLEKEY0000000000000000",
		"token": "EXAMPLE-TOKEN", "access_token": "EXAMPLE-ACCESS-TOKEN", "refresh_token": "EXAMPLE-REFRESH-TOKEN",
		"secret": "EXAMPLE-SECRET", "prefix": "svc_live_EXAM", "key_prefix": "svc_live_EXAM", "webhook_secret": "0000000000000000000000000000000000000000000000000000000000000000"}
	liveKey   = regexp.MustCompile(`svc_(live|stg)_[A-Za-z0-9_]+`)
	localBase = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// scrub replaces secrets and this run's addresses in v, and shortens long
// lists and texts.
func scrub(v any, field string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = scrub(e, k)
		}
	case []any:
		if len(x) > 3 {
			x = x[:3]
		}
		for i, e := range x {
			x[i] = scrub(e, field)
		}
		return x
	case string:
		if s, ok := secretFields[field]; ok && x != "" {
			return s
		}
		x = liveKey.ReplaceAllString(x, "svc_live_EXAMPLEKEY0000000000000000")
		x = localBase.ReplaceAllString(x, "http://127.0.0.1:8080")
		if len(x) > 600 {
			x = x[:600] + "..."
		}
		return x
	}
	return v
}

// writeExamples writes the recorded examples (BLACKBOX_RECORD_EXAMPLES).
func writeExamples() error {
	path := os.Getenv("BLACKBOX_RECORD_EXAMPLES")
	if path == "" {
		return nil
	}
	contract.mu.Lock()
	defer contract.mu.Unlock()
	raw, err := json.MarshalIndent(contract.examples, "", "  ")
	if err != nil {
		return fmt.Errorf("examples: %w", err)
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
