package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// openAPIVersion is the OpenAPI version of the document.
const openAPIVersion = "3.1.0"

// apiOps are the documented routes, spec A's and spec B's, by route name.
func apiOps() map[string]apiOp {
	out := make(map[string]apiOp, len(rigorOps)+len(platformOps))
	for name, op := range rigorOps {
		out[name] = op
	}
	for name, op := range platformOps {
		if _, dup := out[name]; dup {
			panic("openapi: route " + name + " is documented twice")
		}
		out[name] = op
	}
	for name, op := range mcpOps {
		out[name] = op
	}
	// the suite's operations document themselves (suiteOp.doc)
	for _, o := range documentedSuiteOps() {
		if _, dup := out[o.action]; dup {
			panic("openapi: route " + o.action + " is documented twice")
		}
		op := o.doc
		op.guard, op.floor = guardSuite, o.floor
		out[o.action] = op
	}
	return out
}

// tagGroups groups the tags by product, in the reference's order.
var tagGroups = []struct {
	name string
	tags []string
}{
	{"Workflow API (spec A)", []string{tagPlanning, tagExecution, tagWorkflows, tagUsage, tagContextServers}},
	{"Platform (spec B)", []string{tagKeys, tagSessions, tagUser, tagBilling, tagNotifications, tagWorkspaces, tagMembers,
		tagWorkspaceKeys, tagFolders, tagSettings, tagHooks, tagConnections, tagDataDeletion}},
	{"Agent suite (spec C)", []string{tagDedupQ, tagBurnRate, tagQualityGate, tagGuardRail, tagPitfallDB, tagTools}},
	{"Service", []string{tagService, tagReference}},
}

var pathVar = regexp.MustCompile(`\{([^}:]+)(?::[^}]*)?\}`)

// openAPIPath is a mux path template as OpenAPI writes it: its
// variables without their patterns.
func openAPIPath(template string) string { return pathVar.ReplaceAllString(template, "{$1}") }

// operationID is the route's name in camel case (rigor.usage_summary:
// rigorUsageSummary).
func operationID(name string) string {
	var b strings.Builder
	upper := false
	for _, c := range name {
		switch {
		case c == '.' || c == '_':
			upper = true
		case upper:
			b.WriteString(strings.ToUpper(string(c)))
			upper = false
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// docBuilder builds the document.
type docBuilder struct {
	resp, req  *reflector
	components map[string]jsonSchema
	used       map[string]bool
	examples   map[string]map[string]json.RawMessage
	// suite: the operation being built is a suite route's (its refusals
	// in the suite's envelope).
	suite bool
}

// buildOpenAPI is the OpenAPI document of router's routes: their methods
// and paths from the router, the rest from apiOps; a route apiOps does not
// know is left out (the drift test fails for it).
func buildOpenAPI(router *mux.Router, cfg Config) (doc []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("openapi: %v", p)
		}
	}()
	b := newDocBuilder()
	ops := apiOps()
	paths := map[string]map[string]any{}
	err = router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, terr := route.GetPathTemplate()
		methods, merr := route.GetMethods()
		op, known := ops[route.GetName()]
		if terr != nil || merr != nil || !known || op.internal {
			return nil
		}
		path := openAPIPath(tpl)
		for _, m := range methods {
			if paths[path] == nil {
				paths[path] = map[string]any{}
			}
			paths[path][strings.ToLower(m)] = b.operation(route.GetName(), tpl, op)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("openapi: walking the routes: %w", err)
	}
	b.resp.schemaOf(errorResponse{})
	out := map[string]any{
		"openapi":           openAPIVersion,
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": map[string]any{
			"title":       "svc API",
			"version":     cfg.Version,
			"summary":     "Plan, run and review LLM workflows; accounts, workspaces and billing around them.",
			"description": infoDescription,
			"license":     map[string]any{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
		},
		"servers":     []any{map[string]any{"url": cfg.BaseURL, "description": "This instance (SVC_BASE_URL)."}},
		"tags":        tagsOf(),
		"x-tagGroups": tagGroupsOf(),
		"paths":       paths,
		"components": map[string]any{
			"schemas":         b.components,
			"securitySchemes": securitySchemes,
		},
	}
	doc, err = json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("openapi: encoding the document: %w", err)
	}
	return doc, nil
}

func newDocBuilder() *docBuilder {
	components, used := map[string]jsonSchema{}, map[string]bool{}
	return &docBuilder{resp: newReflector(components, used, false), req: newReflector(components, used, true),
		components: components, used: used, examples: recordedExamples()}
}

// infoDescription introduces the document.
const infoDescription = "The reference of every route this service has: the workflow API (specification A), the platform " +
	"(specification B) and the agent-infrastructure suite (specification C, whose routes answer errors in its flat envelope " +
	"`{error, message, request_id, status, fix?, docs?, support?}` and carry `request_id`, `credits_used`, `credits_remaining` " +
	"and `fallback_behavior` on every answer). Programs authenticate with an API key in the `x-api-key` header (`Authorization: Bearer` is not read); " +
	"browser routes take the session cookie of `POST /api/auth/login`. Errors of specs A and B answer `{error:{code, message, request_id, fix?, details?}}` " +
	"(rate limits add `retry_after` or `retry_after_seconds` beside `error`); each route lists the codes it answers. Quote `request_id` " +
	"(also the `X-Request-Id` header) to support. 1,000 credits = 1 USD."

var securitySchemes = map[string]any{
	"ApiKeyAuth": map[string]any{"type": "apiKey", "in": "header", "name": "x-api-key",
		"description": "An API key (svc_live_...): POST /api/keys creates an organization with one; workspace admins create more."},
	"SessionCookie": map[string]any{"type": "apiKey", "in": "cookie", "name": sessionCookie,
		"description": "The session of a signed-in user, set by POST /api/auth/signup and /api/auth/login."},
	"StripeSignature": map[string]any{"type": "apiKey", "in": "header", "name": "Stripe-Signature",
		"description": "The payment processor's signature of its events (STRIPE_WEBHOOK_SECRET)."},
}

var tagDescriptions = map[string]string{
	tagPlanning: "Classify a task and cost a plan (free); templates, task types, description scoring.", tagExecution: "Run workflows and follow them.",
	tagWorkflows: "List, cancel, chain and audit workflows.", tagUsage: "What the organization spent.",
	tagKeys: "Organizations and their keys (spec B).", tagSessions: "Users, passwords and sessions.", tagUser: "The caller.",
	tagBilling: "Credits, purchases, subscriptions and auto-reload.", tagNotifications: "In-app notifications of the organization.",
	tagWorkspaces: "Workspaces of an organization.", tagMembers: "Members, roles and invitations.",
	tagWorkspaceKeys: "API keys of a workspace.", tagFolders: "Folders of workflows.", tagSettings: "Audit log, budget and model policy.",
	tagHooks: "Event webhooks of a workspace (Pro and above).", tagConnections: "OAuth connections to MCP providers.",
	tagDedupQ:      "Task deduplication: exact and semantic matches of completed tasks (spec C).",
	tagBurnRate:    "Cost prediction of agent plans, tracked spend and daily budgets (spec C).",
	tagQualityGate: "Validation of agent output: directives, JSON Schema, code syntax, LLM checks (spec C).",
	tagGuardRail:   "Policies of deterministic rules that allow or deny agents' proposed actions (spec C).",
	tagPitfallDB:   "Verified failure patterns by task type; anonymized failure reports (spec C).",
	tagTools:       "The suite's tools over MCP: the manifest and the JSON-RPC 2.0 tool server (spec C).",
	tagContextServers: "Connections to external read-only context servers (MCP): registered, tested with the SSRF rules and MCP initialize, " +
		"listed with the provider registry. Only resources are ever listed and read.",
	tagService: "Health of the service.", tagReference: "This reference.", tagDataDeletion: "Irreversible erasure of all of an organization's data (the owner's).",
}

func tagsOf() []any {
	var out []any
	for _, g := range tagGroups {
		for _, t := range g.tags {
			out = append(out, map[string]any{"name": t, "description": tagDescriptions[t]})
		}
	}
	return out
}

func tagGroupsOf() []any {
	var out []any
	for _, g := range tagGroups {
		out = append(out, map[string]any{"name": g.name, "tags": g.tags})
	}
	return out
}

// operation is the operation object of route name (path template tpl).
func (b *docBuilder) operation(name, tpl string, op apiOp) map[string]any {
	b.suite = op.guard == guardSuite || op.guard == guardMCP || op.suiteEnvelope
	id := operationID(name)
	desc := op.authText()
	if op.note != "" {
		desc = op.note + "\n\n" + desc
	}
	if d, ok := routeDocs[name]; ok && d.description != "" { // a suite route's is op.note
		desc = d.description + "\n\n" + desc
	}
	out := map[string]any{"operationId": id, "summary": op.summary, "description": desc, "tags": []string{op.tag}}
	if sec := op.security(); sec != nil {
		out["security"] = sec
	} else {
		out["security"] = []any{}
	}
	var params []any
	for _, m := range pathVar.FindAllStringSubmatch(tpl, -1) {
		schema := op.pathParams[m[1]]
		if schema == nil {
			schema = jsonSchema{"type": "string"}
		}
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": schema})
	}
	for _, p := range op.params {
		params = append(params, map[string]any{"name": p.name, "in": p.in, "required": p.required, "description": p.desc, "schema": p.schema})
	}
	if params != nil {
		out["parameters"] = params
	}
	if op.body != nil {
		schema := b.req.schemaOf(op.body)
		if len(op.required) > 0 {
			schema["required"] = op.required
		}
		out["requestBody"] = map[string]any{"required": !op.bodyOptional,
			"content": map[string]any{"application/json": map[string]any{"schema": schema}}}
	}
	responses := map[string]any{}
	failures := map[string]reply{}
	for _, r := range op.replies {
		responses[strconv.Itoa(r.status)] = b.reply(id, r)
		if r.failure {
			failures[strconv.Itoa(r.status)] = r
		}
	}
	for status, cs := range op.refusals() {
		key := strconv.Itoa(status)
		if f, ok := failures[key]; ok {
			responses[key] = b.failure(id, f, b.refusal(id, status, cs))
			continue
		}
		if _, taken := responses[key]; taken {
			panic(fmt.Sprintf("route %s answers %d both as a success and as %v", name, status, cs))
		}
		responses[key] = b.refusal(id, status, cs)
	}
	out["responses"] = responses
	return out
}

// reply is the response object of a success answer.
func (b *docBuilder) reply(id string, r reply) map[string]any {
	out := map[string]any{"description": r.desc}
	content := map[string]any{}
	var schema jsonSchema
	switch {
	case r.body != nil:
		schema = b.resp.schemaOf(r.body)
	case r.alts != nil:
		var alts []any
		for _, a := range r.alts {
			alts = append(alts, b.resp.schemaOf(a))
		}
		schema = jsonSchema{"oneOf": alts}
	case r.rawJSON:
		schema = jsonSchema{"type": "object"}
	}
	if schema != nil {
		media := map[string]any{"schema": schema}
		if ex, ok := b.examples[id][strconv.Itoa(r.status)]; ok {
			media["example"] = ex
		}
		content["application/json"] = media
	}
	if r.sse {
		content["text/event-stream"] = map[string]any{"schema": jsonSchema{"type": "string",
			"description": "Server-sent events: `id: {workflow_id}:{marker}`, `event: <name>`, `data: <JSON>`."}}
	}
	if r.html {
		content["text/html"] = map[string]any{"schema": jsonSchema{"type": "string"}}
	}
	if r.script {
		content["text/javascript"] = map[string]any{"schema": jsonSchema{"type": "string"}}
	}
	if len(content) > 0 {
		out["content"] = content
	}
	if r.redirect {
		out["headers"] = map[string]any{"Location": map[string]any{"description": "Where the browser goes next.", "schema": jsonSchema{"type": "string"}}}
	}
	return out
}

// failure is the response object of a status answered either with the
// error envelope (refusal) or with f's body of its own.
func (b *docBuilder) failure(id string, f reply, refusal map[string]any) map[string]any {
	envelope := refusal["content"].(map[string]any)["application/json"].(map[string]any)
	media := map[string]any{"schema": jsonSchema{"oneOf": []any{envelope["schema"], b.resp.schemaOf(f.body)}}}
	if ex, ok := envelope["example"]; ok {
		media["example"] = ex
	}
	return map[string]any{"description": f.desc + " Else " + refusal["description"].(string),
		"content": map[string]any{"application/json": media}}
}

// refusal is the response object of status, answering the error codes cs.
func (b *docBuilder) refusal(id string, status int, cs []string) map[string]any {
	enum := make([]any, len(cs))
	for i, c := range cs {
		enum[i] = c
	}
	// the envelope, its code narrowed to the route's (keywords beside a
	// $ref apply with it in OpenAPI 3.1; generators read the $ref)
	schema := jsonSchema{"$ref": "#/components/schemas/ErrorResponse",
		"properties": jsonSchema{"error": jsonSchema{"properties": jsonSchema{"code": jsonSchema{"enum": enum}}}}}
	if b.suite { // spec C's flat envelope: its code is "error"
		b.resp.schemaOf(suiteErrorResponse{})
		schema = jsonSchema{"$ref": "#/components/schemas/SuiteErrorResponse",
			"properties": jsonSchema{"error": jsonSchema{"enum": enum}, "status": jsonSchema{"const": status}}}
	}
	media := map[string]any{"schema": schema}
	if ex, ok := b.examples[id][strconv.Itoa(status)]; ok {
		media["example"] = ex
	}
	out := map[string]any{"description": http.StatusText(status) + ": " + strings.Join(cs, ", ") + ".",
		"content": map[string]any{"application/json": media}}
	if status == http.StatusTooManyRequests {
		out["headers"] = map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait, when the limit says.", "schema": jsonSchema{"type": "integer"}}}
	}
	return out
}
