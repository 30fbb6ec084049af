package httpapi

import (
	"net/http"
	"sort"
)

// An operation of the OpenAPI document: what the router cannot say of a
// route (its method and path come from the router). routeOps holds one
// per route name (openapi_ops_rigor.go, openapi_ops_platform.go);
// TestOpenAPIMatchesRouter fails for a route without one, an entry
// without a route, and any difference between the document and the
// router.

// guard is how a route authenticates its caller: it decides the route's
// security requirement and the refusals every route guarded so answers.
type guard int

const (
	// guardNone: no credentials.
	guardNone guard = iota
	// guardKey: x-api-key (authenticated): 401 missing_api_key or
	// invalid_api_key, 403 insufficient_permissions below a floor above
	// viewer.
	guardKey
	// guardKeyLimited: guardKey and the organization's per-minute limit
	// (the /api/rigor routes): 429 rate_limit_exceeded.
	guardKeyLimited
	// guardKeyCheck: x-api-key, every refusal 401 unauthorized.
	guardKeyCheck
	// guardKeyOnly: x-api-key with spec B's floor: 401 missing_api_key or
	// invalid_api_key, 403 forbidden.
	guardKeyOnly
	// guardPlatform: x-api-key or the session cookie: 401 unauthorized,
	// 403 forbidden below a floor.
	guardPlatform
	// guardWorkspace: guardPlatform and the caller's role in workspace
	// {id}: 403 forbidden, 404 not_found.
	guardWorkspace
	// guardSession: the session cookie only: 401 unauthorized.
	guardSession
	// guardKeyOptional: none, or a key whose organization's limit it
	// counts toward: 401 invalid_api_key, 429 rate_limit_exceeded.
	guardKeyOptional
	// guardSignature: the payment processor's Stripe-Signature.
	guardSignature
	// guardMCP: x-api-key on the suite's tool server: 401
	// missing_api_key or invalid_api_key and 413 payload_too_large in the
	// suite's envelope (everything else is a JSON-RPC answer).
	guardMCP
	// guardSuite: x-api-key on a suite route (spec C), every refusal in
	// the suite's envelope: 401 missing_api_key or invalid_api_key, 403
	// insufficient_permissions below a floor above viewer, 429
	// rate_limited, 400 invalid_request.
	guardSuite
)

// apiOp documents one route.
type apiOp struct {
	tag, summary string
	// note is added to the description (routeDocs' and who may call).
	note  string
	guard guard
	floor Role
	// params are the query parameters and headers; path parameters come
	// from the route's template (pathParams names their schemas).
	params     []param
	pathParams map[string]jsonSchema
	// body is a value of the request body's Go type (nil: no body);
	// required lists its required top-level fields; bodyOptional: an
	// empty body is accepted.
	body         any
	required     []string
	bodyOptional bool
	// readsBody: no body is expected, but one that is not a JSON object
	// (or {}) is refused.
	readsBody bool
	replies   []reply
	errs      []codes
	// internal routes (loopback only) are left out of the document.
	internal bool
	// suiteEnvelope: the route answers refusals in the suite's envelope
	// (guardSuite and guardMCP routes do anyway).
	suiteEnvelope bool
}

// param is a query parameter or a header.
type param struct {
	in, name, desc string
	schema         jsonSchema
	required       bool
}

func query(name, desc string, schema jsonSchema) param {
	return param{in: "query", name: name, desc: desc, schema: schema}
}

func header(name, desc string) param {
	return param{in: "header", name: name, desc: desc, schema: jsonSchema{"type": "string"}}
}

func (p param) must() param { p.required = true; return p }

// reply is a success answer: status and body (one of alts when several
// shapes), or an event stream, a page or a redirect.
type reply struct {
	status   int
	desc     string
	body     any
	alts     []any
	sse      bool // also text/event-stream
	html     bool // also text/html
	script   bool // text/javascript
	redirect bool // no body; a Location header
	rawJSON  bool // any JSON object (the document itself)
	// failure: not a success but a refusal in a shape of its own, one of
	// the status's bodies beside the error envelope (a connection test's
	// {error: <string>}).
	failure bool
}

// failedReply is a refusal answered with body instead of the error envelope.
func failedReply(status int, desc string, body any) reply {
	return reply{status: status, desc: desc, body: body, failure: true}
}

func ok(status int, desc string, body any) reply {
	return reply{status: status, desc: desc, body: body}
}

func oneOf(status int, desc string, alts ...any) reply {
	return reply{status: status, desc: desc, alts: alts}
}

// codes are the error codes a route answers with one status.
type codes struct {
	status int
	codes  []string
}

func errs(status int, cs ...string) codes { return codes{status: status, codes: cs} }

// refusals are every error code op answers, by status: its own and those
// of its guard, its body and every route.
func (op apiOp) refusals() map[int][]string {
	out := map[int][]string{}
	add := func(status int, cs ...string) { out[status] = append(out[status], cs...) }
	add(http.StatusInternalServerError, "internal_error")
	if op.guard == guardMCP {
		add(http.StatusUnauthorized, "missing_api_key", "invalid_api_key")
		add(http.StatusRequestEntityTooLarge, "payload_too_large")
		for _, c := range op.errs {
			add(c.status, c.codes...)
		}
		return out
	}
	if op.suiteEnvelope {
		for _, c := range op.errs {
			add(c.status, c.codes...)
		}
		return out
	}
	if op.guard == guardSuite {
		add(http.StatusBadRequest, "invalid_request")
		add(http.StatusUnauthorized, "missing_api_key", "invalid_api_key")
		add(http.StatusTooManyRequests, "rate_limited")
		if op.body != nil {
			add(http.StatusRequestEntityTooLarge, "payload_too_large")
		}
		if op.floor != "" && op.floor != "viewer" {
			add(http.StatusForbidden, "insufficient_permissions")
		}
		for _, c := range op.errs {
			add(c.status, c.codes...)
		}
		for status, cs := range out {
			out[status] = dedupe(cs)
		}
		return out
	}
	add(http.StatusBadRequest, "invalid_field") // query parameters and path variables (checkParams)
	if op.body != nil || op.readsBody {
		add(http.StatusBadRequest, "invalid_body")
		add(http.StatusRequestEntityTooLarge, "body_too_large")
	}
	above := op.floor != "" && op.floor != "viewer"
	switch op.guard {
	case guardKey, guardKeyLimited:
		add(http.StatusUnauthorized, "missing_api_key", "invalid_api_key")
		if above {
			add(http.StatusForbidden, "insufficient_permissions")
		}
		if op.guard == guardKeyLimited {
			add(http.StatusTooManyRequests, "rate_limit_exceeded")
		}
	case guardKeyCheck:
		add(http.StatusUnauthorized, "unauthorized")
	case guardKeyOnly:
		add(http.StatusUnauthorized, "missing_api_key", "invalid_api_key")
		add(http.StatusForbidden, "forbidden")
	case guardPlatform:
		add(http.StatusUnauthorized, "unauthorized")
		if op.floor != "" {
			add(http.StatusForbidden, "forbidden")
		}
	case guardWorkspace:
		add(http.StatusUnauthorized, "unauthorized")
		add(http.StatusForbidden, "forbidden")
		add(http.StatusNotFound, "not_found")
	case guardSession:
		add(http.StatusUnauthorized, "unauthorized")
	case guardKeyOptional:
		add(http.StatusUnauthorized, "invalid_api_key")
		add(http.StatusTooManyRequests, "rate_limit_exceeded")
	}
	for _, c := range op.errs {
		add(c.status, c.codes...)
	}
	for status, cs := range out {
		out[status] = dedupe(cs)
	}
	return out
}

// dedupe sorts cs and drops repeats.
func dedupe(cs []string) []string {
	sort.Strings(cs)
	out := cs[:0]
	for i, c := range cs {
		if i == 0 || c != cs[i-1] {
			out = append(out, c)
		}
	}
	return out
}

// security is op's security requirement (nil: none).
func (op apiOp) security() []any {
	key := map[string][]string{"ApiKeyAuth": {}}
	session := map[string][]string{"SessionCookie": {}}
	switch op.guard {
	case guardKey, guardKeyLimited, guardKeyCheck, guardKeyOnly, guardSuite, guardMCP:
		return []any{key}
	case guardPlatform, guardWorkspace:
		return []any{key, session}
	case guardSession:
		return []any{session}
	case guardKeyOptional:
		return []any{map[string][]string{}, key}
	case guardSignature:
		return []any{map[string][]string{"StripeSignature": {}}}
	}
	return nil
}

// authText says who may call op, for its description.
func (op apiOp) authText() string {
	var who string
	switch op.guard {
	case guardNone:
		return "No credentials."
	case guardKey, guardKeyLimited, guardKeyCheck, guardKeyOnly, guardSuite, guardMCP:
		who = "An API key (x-api-key)"
	case guardPlatform, guardWorkspace:
		who = "An API key (x-api-key) or the session cookie"
	case guardSession:
		who = "The session cookie (a signed-in user)"
	case guardKeyOptional:
		return "No credentials; an API key (x-api-key) is optional and counts the call against its organization."
	case guardSignature:
		return "The payment processor's Stripe-Signature header; not for clients."
	}
	switch {
	case op.guard == guardWorkspace && op.floor != "":
		who += ", with the " + string(op.floor) + " role or above in the workspace"
	case op.guard == guardWorkspace:
		who += " of a member of the workspace"
	case op.floor != "" && op.floor != "viewer":
		who += ", with the " + string(op.floor) + " role or above"
	}
	if op.guard == guardKeyLimited || op.guard == guardSuite {
		who += "; counts toward the organization's per-minute limit"
	}
	return who + "."
}
