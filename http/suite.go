package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"svc/commands/suite"
	"svc/domain/org"
	"svc/projections"
)

// The agent-infrastructure suite (spec C): five products whose routes use
// the suite's own envelope, {error, message, request_id, status, fix?,
// docs?, support?}, and whose answers carry its metadata (suiteMeta). Each
// operation is a suiteOp: the REST route serves it, and the tool server
// calls its run with the same parameters, so both share one call path.

// Tags of the suite's routes, one per product.
const (
	tagDedupQ      = "DedupQ"
	tagBurnRate    = "BurnRate"
	tagQualityGate = "QualityGate"
	tagGuardRail   = "GuardRail"
	tagPitfallDB   = "PitfallDB"
	tagTools       = "Tool server"
)

// suitePrefixes are the path prefixes of the suite's products: whatever
// answers under them (an unknown path, a wrong method, a bad query
// parameter) answers in the suite's envelope.
var suitePrefixes = []string{"/api/dedupq/", "/api/burnrate/", "/api/qualitygate/", "/api/guardrail/", "/api/pitfalldb/"}

// isSuitePath reports whether path is under a suite product's prefix.
func isSuitePath(path string) bool {
	if path == "/api/mcp" {
		return true
	}
	for _, p := range suitePrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// suiteOp is one operation of the suite.
type suiteOp struct {
	// action is the operation's name, "dedupq.check": the tool server's
	// action and the route's name.
	action string
	method string
	path   string
	// status is the success status (200, or 201 for a creation).
	status int
	// floor is the lowest key role allowed ("" for any).
	floor Role
	// reads are the event types whose read models the operation reads:
	// before it runs, it waits for the caller's earlier writes of those
	// types to reach them (withReads). nil is every type (the safe
	// default); an operation that reads no read model lists none.
	reads []string
	// run does the operation for the caller with params, a JSON object
	// (the body of a POST, the query of a GET, the tool's params).
	run func(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error)
	// doc documents the route (its guard is guardSuite).
	doc apiOp
}

// suiteCall is one call of an operation.
type suiteCall struct {
	caller suite.Caller
	params json.RawMessage
}

// suiteBody is a success answer: a response type that embeds suiteMeta.
type suiteBody interface{ meta() *suiteMeta }

// suiteMeta is spec C's standard metadata, on every suite answer.
type suiteMeta struct {
	RequestID        string `json:"request_id"`
	CreditsUsed      int64  `json:"credits_used"`
	CreditsRemaining int64  `json:"credits_remaining"`
	// FallbackBehavior says what the service did when a dependency was
	// degraded; "none" when normal.
	FallbackBehavior string  `json:"fallback_behavior"`
	CrossProduct     *string `json:"cross_product,omitempty"`
}

func (m *suiteMeta) meta() *suiteMeta { return m }

// fallbackNone is fallback_behavior when every dependency answered.
const fallbackNone = "none"

// suiteOps lists every operation of the suite, product by product.
func (s *Server) suiteOps() []suiteOp {
	var out []suiteOp
	out = append(out, s.dedupqOps()...)
	out = append(out, s.burnrateOps()...)
	out = append(out, s.qualitygateOps()...)
	out = append(out, s.guardrailOps()...)
	out = append(out, s.pitfalldbOps()...)
	return out
}

// documentedSuiteOps are the suite's operations as the reference reads
// them (their docs, names, paths and floors; their run is never called),
// built once.
var documentedSuiteOps = sync.OnceValue(func() []suiteOp { return (&Server{}).suiteOps() })

// suiteRoutes registers the suite's REST routes.
func (s *Server) suiteRoutes(r *mux.Router) {
	for _, o := range s.suiteOps() {
		r.Handle(o.path, s.suiteRoute(o)).Methods(o.method).Name(o.action)
	}
}

// suiteRoute serves o over REST: the key, its role, the org's per-minute
// limit, the parameters, then the operation; every refusal in the suite's
// envelope.
func (s *Server) suiteRoute(o suiteOp) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.serveSuite(w, r, o); err != nil {
			s.writeSuiteError(w, r, err)
		}
	})
}

func (s *Server) serveSuite(w http.ResponseWriter, r *http.Request, o suiteOp) error {
	p, err := s.suitePrincipal(r.WithContext(withReads(r.Context(), o.reads)))
	if err != nil {
		return err
	}
	if o.floor != "" && !p.Role.AtLeast(o.floor) {
		return &suiteError{Status: http.StatusForbidden, Code: "insufficient_permissions",
			Message: "This operation needs the " + string(o.floor) + " role or above; this key is " + string(p.Role) + "."}
	}
	r = r.WithContext(withPrincipal(r.Context(), *p))
	if err := s.suiteRateLimit(w, r, *p); err != nil {
		return err
	}
	params, err := suiteParams(w, r)
	if err != nil {
		return err
	}
	if params, err = withPathVars(params, mux.Vars(r)); err != nil {
		return err
	}
	body, receipt, err := o.run(r.Context(), suiteCall{caller: callerOf(*p, r), params: params})
	if err != nil {
		return err
	}
	s.writeSuite(w, r, o.status, body, receipt)
	return nil
}

// The suite's per-organization limits: agents call it on every action
// (a GuardRail check before each step), so its window is ten times the
// workflow routes' and counted apart from them.
const (
	suitePerMinute           = 1200
	suitePerMinuteEnterprise = 6000
)

// suiteRateLimit counts a suite call against its organization's
// per-minute window: 429 rate_limited (Retry-After) past it.
func (s *Server) suiteRateLimit(w http.ResponseWriter, r *http.Request, p projections.Principal) error {
	limit := suitePerMinute
	if p.Tier == org.Enterprise {
		limit = suitePerMinuteEnterprise
	}
	return s.perMinute(w, r, "suite:"+p.OrgID, limit, "this organization's suite calls")
}

// suitePrincipal resolves the request's x-api-key (keyPrincipal).
func (s *Server) suitePrincipal(r *http.Request) (*projections.Principal, error) {
	return s.keyPrincipal(r.Context(), r.Header.Get("x-api-key"))
}

// keyPrincipal resolves an x-api-key value: 401 missing_api_key or
// invalid_api_key (in the suite's envelope on the suite's paths, which
// writeError picks).
func (s *Server) keyPrincipal(ctx context.Context, raw string) (*projections.Principal, error) {
	if raw == "" {
		return nil, newError(http.StatusUnauthorized, "missing_api_key", "Send your API key in the x-api-key header.").
			withFix("Create a key with POST /api/keys and send it as x-api-key: svc_live_...")
	}
	p, err := s.principal(ctx, raw)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, newError(http.StatusUnauthorized, "invalid_api_key", "The API key is unknown or revoked.").
			withFix("Check the key, or create one with POST /api/keys.")
	}
	return p, nil
}

// callerOf is the suite's caller for principal p; the agent is named by
// the X-Agent-Id header (optional).
func callerOf(p projections.Principal, r *http.Request) suite.Caller {
	return suite.Caller{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, KeyID: p.KeyID, AgentID: r.Header.Get("X-Agent-Id")}
}

// suiteParams are a call's parameters as a JSON object: a POST's body
// ({} when empty), a GET's query (numbers and booleans as such).
func suiteParams(w http.ResponseWriter, r *http.Request) (json.RawMessage, error) {
	if r.Method == http.MethodGet {
		obj := map[string]any{}
		for k, vs := range r.URL.Query() {
			if len(vs) == 0 {
				continue
			}
			v := vs[len(vs)-1]
			var parsed any
			if err := json.Unmarshal([]byte(v), &parsed); err == nil {
				switch parsed.(type) {
				case float64, bool:
					obj[k] = parsed
					continue
				}
			}
			obj[k] = v
		}
		return json.Marshal(obj)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &suiteError{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
				Message: fmt.Sprintf("The request body is over %d bytes.", maxBody)}
		}
		return nil, suiteInvalid("", "The request body could not be read.")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage("{}"), nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return nil, suiteInvalid("", "The request body must be one JSON object.")
	}
	if ae := jsonTextError(raw, ""); ae != nil {
		return nil, suiteInvalid("", ae.Message)
	}
	return raw, nil
}

// withPathVars adds a route's path variables ({policy_id}) to its
// parameters, over any of the same name (the path names the resource).
func withPathVars(params json.RawMessage, vars map[string]string) (json.RawMessage, error) {
	if len(vars) == 0 {
		return params, nil
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(params, &obj); err != nil {
		return nil, suiteInvalid("", "The request body must be one JSON object.")
	}
	for k, v := range vars {
		obj[k], _ = json.Marshal(v)
	}
	return json.Marshal(obj)
}

// decode reads the call's parameters into dst: a value of the wrong type
// is invalid_request naming its field. Unknown fields are ignored.
func (c suiteCall) decode(dst any) error {
	if err := json.Unmarshal(c.params, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return suiteInvalid(typeErr.Field, "Field "+typeErr.Field+" must be "+jsonKind(typeErr.Type.Kind().String())+", not "+typeErr.Value+".")
		}
		return suiteInvalid("", "The parameters are not a valid JSON object: "+err.Error())
	}
	return nil
}

// jsonKind names a Go kind as JSON does.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "interface":
		return "a JSON value"
	}
	return "a number"
}

// suiteError is a refusal in the suite's envelope.
type suiteError struct {
	Status  int
	Code    string
	Message string
	Fix     string
	// Field is the parameter an invalid_request is about ("" for none).
	Field string
}

func (e *suiteError) Error() string { return e.Code + ": " + e.Message }

// suiteInvalid is 400 invalid_request about field ("" for the whole body).
func suiteInvalid(field, message string) *suiteError {
	return &suiteError{Status: http.StatusBadRequest, Code: "invalid_request", Message: message, Field: field}
}

// suiteMissing is 400 invalid_request naming a missing required field.
func suiteMissing(field string) *suiteError {
	return suiteInvalid(field, "Field "+field+" is required.")
}

// suiteErrorResponse is the suite's error envelope.
type suiteErrorResponse struct {
	Error     string `json:"error"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	Status    int    `json:"status"`
	Fix       string `json:"fix,omitempty"`
	Docs      string `json:"docs,omitempty"`
	Support   string `json:"support,omitempty"`
}

// suiteCodes maps the shared middleware's codes to the suite's.
var suiteCodes = map[string]string{
	"invalid_body": "invalid_request", "invalid_field": "invalid_request", "missing_field": "invalid_request",
	"body_too_large": "payload_too_large", "rate_limit_exceeded": "rate_limited",
}

// asSuiteError is err as the suite answers it.
func asSuiteError(err error) *suiteError {
	var se *suiteError
	if errors.As(err, &se) {
		return se
	}
	var ae *apiError
	if errors.As(err, &ae) {
		code := ae.Code
		if c, ok := suiteCodes[code]; ok {
			code = c
		}
		return &suiteError{Status: ae.Status, Code: code, Message: ae.Message, Fix: ae.Fix}
	}
	if errors.Is(err, suite.ErrInsufficientCredits) {
		return &suiteError{Status: http.StatusPaymentRequired, Code: "insufficient_credits",
			Message: "The balance does not cover this operation: " + err.Error() + ".",
			Fix:     "Buy credits with POST /api/billing/checkout, or check the balance with GET /api/billing/balance."}
	}
	return nil
}

// writeSuiteError writes err in the suite's envelope; an unexpected error
// is logged and answered 500 internal_error.
func (s *Server) writeSuiteError(w http.ResponseWriter, r *http.Request, err error) {
	se := asSuiteError(err)
	if se == nil {
		se = &suiteError{Status: http.StatusInternalServerError, Code: "internal_error",
			Message: "Something went wrong on our side. Retry, and quote the request_id if it persists."}
	}
	body := suiteErrorResponse{Error: se.Code, Message: se.Message, RequestID: requestID(r.Context()), Status: se.Status,
		Fix: se.Fix, Docs: s.cfg.BaseURL + "/docs"}
	if se.Status >= 500 {
		s.log.ErrorContext(r.Context(), "suite request failed", "error", err.Error(), "request_id", body.RequestID, "path", r.URL.Path)
		body.Support = "Quote request_id " + body.RequestID + " when you contact support."
	}
	var ae *apiError
	if errors.As(err, &ae) {
		for k, v := range ae.Headers {
			w.Header().Set(k, v)
		}
		if ae.RetryAfter != nil && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(*ae.RetryAfter))
		}
	}
	writeJSON(w, se.Status, body)
}

// writeSuite writes a success answer with its metadata.
func (s *Server) writeSuite(w http.ResponseWriter, r *http.Request, status int, body suiteBody, rc suite.Receipt) {
	m := body.meta()
	m.RequestID = requestID(r.Context())
	m.CreditsUsed, m.CreditsRemaining = rc.CreditsUsed, rc.CreditsRemaining
	if m.FallbackBehavior == "" {
		m.FallbackBehavior = fallbackNone
	}
	writeJSON(w, status, body)
}
