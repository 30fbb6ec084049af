// Package httpapi is the service's REST API: routing, middleware (request
// ids, error envelopes, x-api-key authentication, role floors, rate limits)
// and the handlers, which run commands and read projections.
package httpapi

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"svc/adapters/llm"
	"svc/adapters/llm/offline"
	"svc/adapters/mail"
	"svc/adapters/outbound"
	"svc/adapters/ratelimit"
	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// Config is what the API needs to know about its deployment.
type Config struct {
	BaseURL        string
	TrustedProxies []netip.Prefix
	Version        string
	// ReadYourWrites bounds how long a command's response waits for the
	// projections to reflect it (default 3 s).
	ReadYourWrites time.Duration
	// SSEHeartbeat, SSETimeout and SSEPoll pace execute's event stream
	// (defaults: spec A's 15 s and 290 s; 200 ms).
	SSEHeartbeat, SSETimeout, SSEPoll time.Duration
	// PlanTimeout is spec A's plan time budget (default 25 s).
	PlanTimeout time.Duration
	// InteractiveIdle is how long an interactive session may sit idle
	// before a step call times it out (default spec A's 30 minutes).
	InteractiveIdle time.Duration
}

// Kicker is told when a workflow was queued, so a worker of this process
// starts it at once.
type Kicker interface{ Kick(workflowID string) }

type noKicker struct{}

func (noKicker) Kick(string) {}

// Deps are the API's collaborators.
type Deps struct {
	Store   *eventstore.Store
	Runner  *projections.Runner
	Limiter ratelimit.Limiter
	Mail    mail.Sender
	Log     *slog.Logger
	Planner *planning.Planner
	// Kicker starts queued workflows early (optional: workers poll).
	Kicker Kicker
	// Sealer encrypts the webhook secrets execute creates.
	Sealer commands.Sealer
	// LLM is the LLM port (default: the offline writer).
	LLM llm.Provider
	// Outbound is the SSRF-guarded client for user-given URLs (default:
	// private addresses refused).
	Outbound *http.Client
}

// Server serves the API.
type Server struct {
	cfg      Config
	store    *eventstore.Store
	runner   *projections.Runner
	limiter  ratelimit.Limiter
	mail     mail.Sender
	log      *slog.Logger
	keys     *keyCache
	metrics  *metrics
	router   *mux.Router
	rigor    *mux.Router
	mailing  sync.WaitGroup
	planner  *planning.Planner
	kicker   Kicker
	llm      llm.Provider
	outbound *http.Client
	closing  chan struct{}
	closed   sync.Once

	createOrg       commands.Handler[commands.CreateOrganization, commands.OrganizationCreated]
	verifyEmail     commands.Handler[commands.VerifyEmail, commands.EmailVerified]
	planWorkflow    commands.Handler[commands.PlanWorkflow, commands.WorkflowsPlanned]
	chargeCredits   commands.Handler[commands.ChargeCredits, commands.CreditsCharged]
	executeWorkflow commands.Handler[commands.ExecuteWorkflow, commands.WorkflowQueued]
	stepWorkflow    commands.Handler[commands.StepWorkflow, commands.WorkflowStepped]
	approveWorkflow commands.Handler[commands.ApproveWorkflow, commands.WorkflowDecided]
	resumeWorkflow  commands.Handler[commands.ResumeWorkflow, commands.WorkflowResumed]
	cancelWorkflows commands.Handler[commands.CancelWorkflows, commands.WorkflowsCancelled]
}

// New returns a server over deps.
func New(cfg Config, d Deps) *Server {
	if cfg.ReadYourWrites == 0 {
		cfg.ReadYourWrites = 3 * time.Second
	}
	if d.Planner == nil {
		d.Planner = planning.NewPlanner(catalog.Default())
	}
	if d.Kicker == nil {
		d.Kicker = noKicker{}
	}
	if d.LLM == nil {
		d.LLM = offline.New()
	}
	if d.Outbound == nil {
		c, err := outbound.NewClient(outbound.Options{})
		if err != nil {
			panic(err)
		}
		d.Outbound = c
	}
	if d.Sealer == nil { // tests: secrets sealed with a key that dies with the process
		key := make([]byte, secrets.KeySize)
		_, _ = rand.Read(key)
		box, err := secrets.NewBox(key)
		if err != nil {
			panic(err)
		}
		d.Sealer = box
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
		cfg.SSEPoll = 200 * time.Millisecond
	}
	s := &Server{
		cfg: cfg, store: d.Store, runner: d.Runner, limiter: d.Limiter, mail: d.Mail, log: d.Log, planner: d.Planner,
		kicker: d.Kicker, llm: d.LLM, outbound: d.Outbound, closing: make(chan struct{}),
		keys:    newKeyCache(10*time.Second, 50_000),
		metrics: newMetrics(),
	}
	repos := commands.NewRepositories(d.Store)
	planner := commands.NewPlanWorkflowHandler(repos, d.Planner, commands.WithConnectionChecker(s), commands.WithCostHistory(s))
	s.createOrg = commands.WithLogging[commands.CreateOrganization, commands.OrganizationCreated](
		commands.NewCreateOrganizationHandler(repos), d.Log)
	s.verifyEmail = commands.WithLogging[commands.VerifyEmail, commands.EmailVerified](
		commands.NewVerifyEmailHandler(repos), d.Log)
	s.planWorkflow = commands.WithLogging[commands.PlanWorkflow, commands.WorkflowsPlanned](planner, d.Log)
	s.chargeCredits = commands.WithLogging[commands.ChargeCredits, commands.CreditsCharged](
		commands.NewChargeCreditsHandler(repos), d.Log)
	s.executeWorkflow = commands.WithLogging[commands.ExecuteWorkflow, commands.WorkflowQueued](
		commands.NewExecuteWorkflowHandler(repos, planner, d.Sealer, webhook.NewSecret), d.Log)
	s.stepWorkflow = commands.WithLogging[commands.StepWorkflow, commands.WorkflowStepped](
		commands.NewStepWorkflowHandler(repos, cfg.InteractiveIdle), d.Log)
	s.approveWorkflow = commands.WithLogging[commands.ApproveWorkflow, commands.WorkflowDecided](
		commands.NewApproveWorkflowHandler(repos), d.Log)
	s.resumeWorkflow = commands.WithLogging[commands.ResumeWorkflow, commands.WorkflowResumed](
		commands.NewResumeWorkflowHandler(repos), d.Log)
	s.cancelWorkflows = commands.WithLogging[commands.CancelWorkflows, commands.WorkflowsCancelled](
		commands.NewCancelWorkflowsHandler(repos), d.Log)
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

	r.Handle("/api/health", s.handle(s.health)).Methods(http.MethodGet).Name("health")
	r.Handle("/metrics", s.internalOnly(s.metrics.handler())).Methods(http.MethodGet).Name("metrics")
	// Go's profiler, for operators on the machine (same rule as /metrics).
	r.Handle("/debug/pprof/profile", s.internalOnly(http.HandlerFunc(pprof.Profile))).Name("pprof.profile")
	r.PathPrefix("/debug/pprof/").Handler(s.internalOnly(http.HandlerFunc(pprof.Index))).Name("pprof")
	r.Handle("/docs", s.handle(s.docs)).Methods(http.MethodGet).Name("docs")

	r.Handle("/api/keys", s.handle(s.createKey)).Methods(http.MethodPost).Name("keys.create")
	r.Handle("/api/keys/verify", s.authenticated(authOptions{code: "unauthorized"}, s.verifyKey)).Methods(http.MethodGet).Name("keys.verify")
	r.Handle("/api/keys/verify-email", s.handle(s.verifyEmailLink)).Methods(http.MethodGet).Name("keys.verify_email")

	r.Handle("/api/billing/balance", s.authenticated(authOptions{}, s.balance)).Methods(http.MethodGet).Name("billing.balance")

	// Workflow routes (spec A): the per-org rate limit applies to those it
	// lists; templates and task types are not limited.
	s.rigor = r.PathPrefix("/api/rigor").Subrouter()
	s.router = r
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

// Close waits for mail still being sent.
func (s *Server) Close(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.mailing.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// waitFor makes a response reflect a command's events: it waits, bounded,
// until the named projections have applied pos.
func (s *Server) waitFor(ctx context.Context, pos event.Position, names ...string) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ReadYourWrites)
	defer cancel()
	if err := s.runner.Wait(ctx, pos, names...); err != nil {
		s.log.WarnContext(ctx, "read model lagging behind a command", "error", err, "request_id", requestID(ctx))
	}
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
