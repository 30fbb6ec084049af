// Package httpapi is the service's REST API: routing, middleware (request
// ids, error envelopes, x-api-key authentication, role floors, rate limits)
// and the handlers, which run commands and read projections.
package httpapi

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"svc/commands"
	"svc/commands/suite"
	"svc/domain/apikey"
	"svc/domain/catalog"
	"svc/projections"
)

// Config is what the API needs to know about its deployment.
type Config struct {
	BaseURL        string
	TrustedProxies []netip.Prefix
	Version        string
	// SSEHeartbeat, SSETimeout and SSEPoll pace execute's event stream
	// (defaults: spec A's 15 s and 290 s; 5 s: a stream is woken by its
	// workflow's appends, the poll is a safety net).
	SSEHeartbeat, SSETimeout, SSEPoll time.Duration
	// PlanTimeout is spec A's plan time budget (default 25 s).
	PlanTimeout time.Duration
	// ErasureWait bounds how long a data deletion's confirmation waits
	// for the erasure (default 25 s).
	ErasureWait time.Duration
	// ConnectionsDisabled turns the connection gateway off: the
	// connection routes answer 501 feature_not_enabled (SVC_CONNECTIONS).
	ConnectionsDisabled bool
}

// Kicker is told when a workflow was queued, so a worker of this process
// starts it at once.
type Kicker interface{ Kick(workflowID string) }

type noKicker struct{}

func (noKicker) Kick(string) {}

// Deps are the API's collaborators: the write side (Commands), the read
// side (Queries) and the rate limiter.
type Deps struct {
	Commands *commands.Handlers
	Queries  *projections.Queries
	Limiter  Limiter
	Log      *slog.Logger
	// Catalog lists task types and templates (default: catalog.Default,
	// which the default planner plans with).
	Catalog *catalog.Catalog
	// Kicker starts queued workflows early (optional: workers poll).
	Kicker Kicker
	// Collectors are served by /metrics beside the API's own (the
	// database statements counter, say).
	Collectors []prometheus.Collector
	// Secrets opens what commands sealed (invite link tokens); required.
	Secrets Opener
	// KeyUsage learns of each request's API key, for last_used_at
	// (optional).
	KeyUsage KeyToucher
	// Suite runs the agent-infrastructure suite's operations (spec C);
	// required.
	Suite *suite.Suite
}

// Opener opens a value a command sealed with the service's secret key.
type Opener interface {
	Open(sealed string) ([]byte, error)
}

// KeyToucher records that an API key was used.
type KeyToucher interface{ Touch(keyID string) }

type noTouch struct{}

func (noTouch) Touch(string) {}

// Server serves the API.
type Server struct {
	cfg      Config
	commands *commands.Handlers
	queries  *projections.Queries
	limiter  Limiter
	log      *slog.Logger
	catalog  *catalog.Catalog
	kicker   Kicker
	secrets  Opener
	keyUsage KeyToucher
	suite    *suite.Suite
	mcp      *suiteMCP    // the suite's tool server (mcp_suite.go)
	rigorMCP http.Handler // the workflow MCP server (mcp_rigor.go)
	keys     *keyCache
	metrics  *metrics
	router   *mux.Router
	rigor    *mux.Router
	closing  chan struct{}
	closed   sync.Once
	apiDoc   openAPIDoc // openapi.go
}

// New returns a server over deps; Commands, Queries, Limiter and Log are
// required.
func New(cfg Config, d Deps) *Server {
	if d.Commands == nil || d.Queries == nil || d.Limiter == nil || d.Log == nil || d.Secrets == nil || d.Suite == nil {
		panic("httpapi: missing dependency")
	}
	if d.Catalog == nil {
		d.Catalog = catalog.Default()
	}
	if d.Kicker == nil {
		d.Kicker = noKicker{}
	}
	if d.KeyUsage == nil {
		d.KeyUsage = noTouch{}
	}
	if cfg.SSEHeartbeat == 0 {
		cfg.SSEHeartbeat = 15 * time.Second
	}
	if cfg.SSETimeout == 0 {
		cfg.SSETimeout = 290 * time.Second
	}
	if cfg.PlanTimeout == 0 {
		cfg.PlanTimeout = 25 * time.Second
	}
	if cfg.SSEPoll == 0 {
		cfg.SSEPoll = 5 * time.Second
	}
	s := &Server{
		cfg: cfg, commands: d.Commands, queries: d.Queries, limiter: d.Limiter, log: d.Log, catalog: d.Catalog,
		kicker: d.Kicker, secrets: d.Secrets, keyUsage: d.KeyUsage, suite: d.Suite, closing: make(chan struct{}),
		keys:    newKeyCache(10*time.Second, 50_000),
		metrics: newMetrics(d.Collectors...),
	}
	d.Queries.OnPrincipalsWritten(s.keys.clear)
	changed, unsubscribe := d.Queries.PrincipalsChanged()
	go func() {
		defer unsubscribe()
		s.keys.watch(changed, s.closing)
	}()
	s.routes()
	return s
}

func (s *Server) routes() {
	r := mux.NewRouter()
	notAllowed := func(w http.ResponseWriter, r *http.Request, allowed []string) {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		s.writeError(w, r, newError(http.StatusMethodNotAllowed, "method_not_allowed",
			r.Method+" is not allowed on "+r.URL.Path+"; use "+strings.Join(allowed, " or ")+"."))
	}
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// mux reports a wrong method on a subrouter's route as not found
		if allowed := s.allowedMethods(r); len(allowed) > 0 {
			notAllowed(w, r, allowed)
			return
		}
		s.notFound(w, r)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		notAllowed(w, r, s.allowedMethods(r))
	})
	// Every matched route, those of subrouters included: path variables and
	// query parameters must be text PostgreSQL can store (text.go).
	r.Use(s.checkParams)

	r.Handle("/api/health", s.handle(s.health)).Methods(http.MethodGet).Name("health")
	r.Handle("/metrics", s.internalOnly(s.metrics.handler())).Methods(http.MethodGet).Name("metrics")
	// Go's profiler, for operators on the machine (same rule as /metrics).
	r.Handle("/debug/pprof/profile", s.internalOnly(http.HandlerFunc(pprof.Profile))).Name("pprof.profile")
	r.PathPrefix("/debug/pprof/").Handler(s.internalOnly(http.HandlerFunc(pprof.Index))).Name("pprof")
	r.Handle("/docs", s.handle(s.docs)).Methods(http.MethodGet).Name("docs")
	r.Handle("/docs/{asset}", s.handle(s.docsAsset)).Methods(http.MethodGet).Name("docs.asset")
	r.Handle("/openapi.json", s.handle(s.openAPIJSON)).Methods(http.MethodGet).Name("openapi")
	// The web dashboard's pages (http/dashboard.go), outside the JSON API.
	s.dashboardRoutes(r)

	r.Handle("/api/keys", s.handle(s.createKey)).Methods(http.MethodPost).Name("keys.create")
	r.Handle("/api/keys/verify", s.authenticated(authOptions{code: "unauthorized"}, s.verifyKey)).Methods(http.MethodGet).Name("keys.verify")
	r.Handle("/api/keys/verify-email", s.handle(s.verifyEmailLink)).Methods(http.MethodGet).Name("keys.verify_email")

	r.Handle("/api/auth/signup", s.handle(s.signup)).Methods(http.MethodPost).Name("auth.signup")
	r.Handle("/api/auth/login", s.handle(s.login)).Methods(http.MethodPost).Name("auth.login")
	r.Handle("/api/auth/logout", s.handle(s.logout)).Methods(http.MethodPost).Name("auth.logout")
	r.Handle("/api/auth/refresh", s.handle(s.refresh)).Methods(http.MethodPost).Name("auth.refresh")
	r.Handle("/api/auth/callback", s.handle(s.callback)).Methods(http.MethodGet).Name("auth.callback")
	r.Handle("/api/auth/mcp/initiate", s.platform(apikey.Admin, s.mcpInitiate)).Methods(http.MethodPost).Name("auth.mcp.initiate")
	r.Handle("/api/auth/mcp/callback", s.handle(s.mcpCallback)).Methods(http.MethodGet).Name("auth.mcp.callback")
	r.Handle("/api/user/me", s.platform("", s.me)).Methods(http.MethodGet).Name("user.me")
	s.workspaceRoutes(r)

	r.Handle("/api/billing/balance", s.authenticated(authOptions{}, s.balance)).Methods(http.MethodGet).Name("billing.balance")
	s.billingProcessorRoutes(r)
	s.autoReloadRoutes(r)
	s.notificationRoutes(r)
	s.dataDeletionRoutes(r)
	// The agent-infrastructure suite (spec C), in its own envelope, and
	// its tool server.
	s.suiteRoutes(r)
	s.mcp = s.newSuiteMCP()
	r.Handle("/api/mcp", s.handle(s.mcpManifest)).Methods(http.MethodGet).Name("mcp.manifest")
	r.Handle("/api/mcp", s.handle(s.mcpCall)).Methods(http.MethodPost).Name("mcp.call")
	// The workflow MCP server (spec A): its tools are the workflow routes.
	r.Handle("/api/mcp/rigor", s.handle(s.mcpRigor)).Methods(http.MethodPost).Name("mcp.rigor")

	// Workflow routes (spec A): the per-org rate limit applies to those it
	// lists; templates and task types are not limited.
	s.rigor = r.PathPrefix("/api/rigor").Subrouter()
	s.router = r
	s.rigorMCP = s.newRigorMCP()
	s.rigor.Handle("/templates", s.handle(s.templates)).Methods(http.MethodGet).Name("rigor.templates")
	s.rigor.Handle("/task-types", s.authenticated(authOptions{}, s.taskTypes)).Methods(http.MethodGet).Name("rigor.task_types")
	s.rigor.Handle("/enhance", s.publicLimited(s.enhance)).Methods(http.MethodPost).Name("rigor.enhance")
	s.RigorHandle("/plan", http.MethodPost, "rigor.plan", apikey.Viewer, s.plan)
	s.RigorHandle("/status/{workflow_id}", http.MethodGet, "rigor.status", apikey.Viewer, s.status)
	s.RigorHandle("/workflows", http.MethodGet, "rigor.workflows", apikey.Viewer, s.workflows)
	s.RigorHandle("/lineage/{workflow_id:.*}", http.MethodGet, "rigor.lineage", apikey.Viewer, s.lineage)
	s.RigorHandle("/execute", http.MethodPost, "rigor.execute", apikey.Member, s.execute)
	s.RigorHandle("/step", http.MethodPost, "rigor.step", apikey.Member, s.step)
	s.RigorHandle("/resume", http.MethodPost, "rigor.resume", apikey.Member, s.resume)
	s.RigorHandle("/approve", http.MethodPost, "rigor.approve", apikey.Admin, s.approve)
	s.RigorHandle("/workflows/actions", http.MethodPost, "rigor.workflows.actions", apikey.Admin, s.workflowActions)
	s.RigorHandle("/webhooks/deliveries", http.MethodGet, "rigor.webhooks.deliveries", apikey.Viewer, s.webhookDeliveries)
	s.RigorHandle("/usage-summary", http.MethodGet, "rigor.usage_summary", apikey.Viewer, s.usageSummary)
	s.RigorHandle("/costs", http.MethodGet, "rigor.costs", apikey.Viewer, s.costs)
	s.connectionRoutes() // not rate limited (spec A, Limits)
}

// Rigor is the subrouter of /api/rigor: routes registered on it need a key and
// count toward the organization's per-minute limit.
func (s *Server) Rigor() *mux.Router { return s.rigor }

// RigorHandle registers a rate-limited, authenticated workflow route.
func (s *Server) RigorHandle(path, method, name string, floor Role, h handlerFunc) {
	s.rigor.Handle(path, s.authenticated(authOptions{floor: floor, rateLimited: true}, h)).Methods(method).Name(name)
}

// Handler returns the API with its outer middleware.
func (s *Server) Handler() http.Handler { return s.outer(s.router) }

// StopStreams ends the open event streams (the server is shutting down;
// clients reconnect elsewhere with Last-Event-ID).
func (s *Server) StopStreams() { s.closed.Do(func() { close(s.closing) }) }

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// allowedMethods lists the methods some route accepts for r's path.
func (s *Server) allowedMethods(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		var match mux.RouteMatch
		if s.router.Match(probe, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	return out
}

// notFound answers 404 not_found for r's path.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, newError(http.StatusNotFound, "not_found", "No such endpoint: "+r.Method+" "+r.URL.Path))
}

// internalOnly serves h to loopback peers and trusted proxies only; others
// get 404, as if the route did not exist. The peer address is used, never
// X-Forwarded-For.
func (s *Server) internalOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		peer, perr := netip.ParseAddr(host)
		if err != nil || perr != nil || !(peer.Unmap().IsLoopback() || s.trusted(peer)) {
			s.notFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func routeName(r *http.Request) string {
	if m := mux.CurrentRoute(r); m != nil && m.GetName() != "" {
		return m.GetName()
	}
	return "unmatched"
}
