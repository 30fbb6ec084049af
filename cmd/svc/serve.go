package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"svc/adapters/cache"
	"svc/adapters/credentials"
	"svc/adapters/llm/providers"
	"svc/adapters/mail"
	"svc/adapters/mcpctx"
	"svc/adapters/oauth"
	"svc/adapters/outbound"
	"svc/adapters/payments"
	"svc/adapters/ratelimit"
	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/erasure"
	"svc/commands/reload"
	"svc/commands/suite"
	"svc/commands/webhooks"
	"svc/commands/worker"
	"svc/domain/catalog"
	"svc/domain/embedding"
	"svc/domain/planning"
	"svc/eventstore"
	httpapi "svc/http"
	"svc/migrations"
	"svc/projections"
)

// shutdownGrace bounds how long in-flight requests may take after SIGTERM.
const shutdownGrace = 25 * time.Second

func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if helped, err := noArgs(fs, args, "serve\n\nApplies pending migrations, then serves the HTTP API and runs the workflow workers and the projections until SIGINT or SIGTERM.\nEnvironment: see OPERATIONS.md (DATABASE_URL, SVC_ADDR, SVC_BASE_URL, SVC_LLM_*, SVC_SECRET_KEY, SVC_ALLOW_PRIVATE_URLS, SVC_OUTBOUND_CA_FILE, SVC_TRUSTED_PROXIES, SVC_SMTP_URL, REDIS_URL, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE) and the README (SVC_LOG_LEVEL, SVC_WORKERS, SVC_WORKER_LEASE, SVC_SSE_HEARTBEAT, SVC_SSE_TIMEOUT, SVC_INTERACTIVE_IDLE, SVC_WEBHOOK_BACKOFF_SCALE, SVC_WEBHOOK_DISABLE_AFTER, SVC_DIRECT_EXECUTION, SVC_DELETION_TOKEN_TTL, SVC_OAUTH_PROVIDERS and SVC_OAUTH_<NAME>_*, STRIPE_PRICE_<TIER>_<INTERVAL>)."); helped || err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return usageErr("%v", err)
	}
	log := newLogger(cfg.LogLevel)
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Pool().Close()

	limiter, closeLimiter, err := ratelimit.Open(cfg.RedisURL)
	if err != nil {
		return usageErr("REDIS_URL: %v", err)
	}
	defer closeLimiter() //nolint:errcheck
	sender, err := mail.Open(cfg.SMTPURL, cfg.MailFrom, log)
	if err != nil {
		return usageErr("SVC_SMTP_URL: %v", err)
	}

	box, err := secrets.Load(os.Getenv, log)
	if err != nil {
		return usageErr("%v", err)
	}
	outboundClient, err := outbound.NewClient(outbound.Options{AllowPrivate: cfg.AllowPrivateURLs, ExtraCAFile: cfg.OutboundCAFile})
	if err != nil {
		return usageErr("SVC_OUTBOUND_CA_FILE: %v", err)
	}
	if cfg.AllowPrivateURLs {
		log.Warn("SVC_ALLOW_PRIVATE_URLS is on: webhooks and context servers may reach private addresses (local testing only)")
	}
	provider, err := providers.FromEnv(os.Getenv, log)
	if err != nil {
		return usageErr("%v", err)
	}
	mcpOAuth := oauth.New(cfg.OAuthProviders, box, outboundClient, cfg.BaseURL)
	if names := mcpOAuth.Providers(); len(names) > 0 {
		log.Info("mcp oauth providers", "providers", names, "redirect_uri", mcpOAuth.RedirectURL())
	}

	processor, err := paymentProcessor(cfg.BaseURL, log)
	if err != nil {
		return usageErr("%v", err)
	}

	// Push: this instance announces its commits on eventstore.Channel and
	// wakes its readers on the others'; nothing idle polls (WithPoll(0),
	// the workers' and dispatcher's polls are safety nets).
	runner := projections.NewRunner(store, log, projections.All(), projections.WithPoll(0),
		projections.WithLinger(projections.ServeLinger))
	if err := runner.Setup(ctx); err != nil {
		return err
	}
	if err := runner.Upgrade(ctx); err != nil {
		return err
	}
	// One set of repositories for the API's commands, the workers and the
	// dispatcher: their fold caches are shared.
	repos := commands.NewRepositories(store)
	queries := projections.NewQueries(store, repos.Workflows, runner, log)
	// With a provider configured the planner asks it below its confidence
	// threshold (the llm tier); offline it has its models only.
	planner := planning.NewPlanner(catalog.Default(), providers.PlannerOptions(os.Getenv, provider)...)
	// ... and its embedding tier uses the provider's embeddings (the
	// catalogue embedded on first use; the local embedder until then).
	var suiteEmbedder embedding.Embedder = embedding.Local{}
	if embedder, err := providers.EmbedderFromEnv(os.Getenv, log); err != nil {
		return fmt.Errorf("serve: %w", err)
	} else if embedder != nil {
		planner.Classifier().SetEmbedder(embedder)
		suiteEmbedder = embedder
	}
	workflowsMoved, stopWorkflowsMoved := store.SubscribeTypes(projections.Moved(projections.Workflows{}.Name()))
	defer stopWorkflowsMoved()
	workers := worker.New(repos, provider, outboundClient, worker.Config{Concurrency: cfg.Workers, Lease: cfg.WorkerLease,
		Wake: workflowsMoved, DisallowDirect: !cfg.DirectExecution}, log)
	// confirmed data deletions, carried out as leased jobs (the
	// confirmation kicks this instance's runner)
	erasures := erasure.New(repos, erasure.Config{Lease: cfg.WorkerLease}, log)
	handlers := commands.NewHandlers(repos, commands.Ports{
		Planner: planner, Sealer: box, NewSecret: webhook.NewSecret,
		Connections: mcpctx.NewChecker(outboundClient, log), CostHistory: queries,
		LLM: provider, Mail: sender, BaseURL: cfg.BaseURL, InteractiveIdle: cfg.InteractiveIdle, Log: log, Consistency: projections.NewFenced(queries),
		McpOAuth: mcpOAuth, Payments: processor, WebhookSender: webhook.NewSender(outboundClient),
		Erasures: erasures, DeletionTTL: cfg.DeletionTokenTTL,
		ContextServers: mcpctx.NewGateway(outboundClient, cfg.AllowPrivateURLs, nil), ConnectionsDisabled: cfg.ConnectionsOff,
	})
	// The suite (spec C) shares the repositories; its semantic tiers use
	// the provider's embeddings when configured, the local embedder else.
	// the suite answers from its own aggregates: its writes leave read
	// fences for the caller's next requests instead of waiting (decision 230)
	suitePorts := suite.Ports{Embedder: suiteEmbedder, LLM: provider, Queries: queries, Consistency: projections.NewFenced(queries), Log: log}
	// DedupQ's cache tier: Redis when REDIS_URL is set (only a cache)
	sharedCache, closeCache, err := cache.Open(cfg.RedisURL)
	if err != nil {
		return usageErr("REDIS_URL: %v", err)
	}
	defer closeCache() //nolint:errcheck
	if sharedCache != nil {
		suitePorts.Cache = sharedCache
	}
	products := suite.New(repos, suitePorts)
	keyUsage := credentials.NewKeyUsage(store.Pool(), log)
	api := httpapi.New(httpapi.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies, Version: version,
		SSEHeartbeat: cfg.SSEHeartbeat, SSETimeout: cfg.SSETimeout, ConnectionsDisabled: cfg.ConnectionsOff},
		httpapi.Deps{Commands: handlers, Queries: queries, Limiter: apiLimiter{limiter}, Log: log, Catalog: planner.Catalog(), Kicker: workers,
			Secrets: box, KeyUsage: keyUsage, Suite: products,
			Collectors: []prometheus.Collector{prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "svc_db_statements_total", Help: "Statements sent to PostgreSQL by this instance (BEGIN and COMMIT included).",
			}, func() float64 { return float64(eventstore.Statements(store.Pool())) })}})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	srv.RegisterOnShutdown(api.StopStreams)

	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	// Push stops last: the others' final commits are still announced.
	pushCtx, stopPush := context.WithCancel(context.WithoutCancel(ctx))
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		_ = store.Push(pushCtx, eventstore.PushOptions{Log: log})
	}()
	defer func() { stopPush(); <-pushed }()
	wg.Add(3)
	go func() {
		defer wg.Done()
		_ = runner.Run(bg)
	}()
	go func() {
		defer wg.Done()
		keyUsage.Run(bg)
	}()
	// Workers stop with the requests (below), before the projections, so
	// their leases are handed back while the database is still in use.
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	go func() {
		defer wg.Done()
		_ = workers.Run(work)
	}()
	dispatcher := webhooks.New(repos, webhook.NewSender(outboundClient), box, webhooks.Config{BackoffScale: cfg.WebhookBackoffScale, Lease: cfg.WorkerLease, Push: true,
		DisableAfter: cfg.WebhookDisableAfter}, log)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := dispatcher.Run(work); err != nil {
			log.Error("webhook dispatcher stopped", "error", err)
		}
	}()

	// auto-reloads the ledgers request, paid off-session by the processor
	payer, _ := processor.(commands.ReloadPayer)
	reloads := reload.New(repos, payer, reload.Config{Lease: cfg.WorkerLease, Push: true}, log)
	wg.Add(1)
	go func() {
		defer wg.Done()
		reloads.Run(work)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		erasures.Run(work)
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	all, _ := migrations.All()
	log.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "schema_version", all[len(all)-1].Version,
		"cache", map[bool]string{true: "redis", false: "in-process"}[cfg.RedisURL != ""],
		"mail", map[bool]string{true: "smtp", false: "log"}[cfg.SMTPURL != ""])

	select {
	case err := <-serveErr:
		stopWork()
		stopBackground()
		wg.Wait()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("shutdown incomplete", "error", err)
	}
	if err := handlers.Wait(sctx); err != nil { // mail still being sent
		log.Warn("shutdown: background work unfinished", "error", err)
	}
	stopWork()
	stopBackground()
	wg.Wait()
	log.Info("stopped")
	return nil
}

// apiLimiter gives the API the rate limiter in its own terms.
type apiLimiter struct{ ratelimit.Limiter }

// Allow implements httpapi.Limiter.
func (l apiLimiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (httpapi.LimitDecision, error) {
	d, err := l.Limiter.Allow(ctx, key, limit, window)
	return httpapi.LimitDecision(d), err
}

// Undo implements httpapi.LimitUndoer: execute gives back the daily count
// of an execute the command refused.
func (l apiLimiter) Undo(ctx context.Context, key string) error { return l.Limiter.Undo(ctx, key) }

// AllowUntil implements httpapi.WindowLimiter: anonymous MCP's daily
// limit per client address.
func (l apiLimiter) AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (httpapi.LimitDecision, error) {
	d, err := l.Limiter.AllowUntil(ctx, key, limit, reset)
	return httpapi.LimitDecision(d), err
}

var (
	_ httpapi.LimitUndoer   = apiLimiter{}
	_ httpapi.WindowLimiter = apiLimiter{}
)

func runMigrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	if helped, err := noArgs(fs, args, "migrate\n\nApplies pending migrations (creating the database if it is missing) and exits."); helped || err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return usageErr("%v", err)
	}
	store, err := openStore(ctx, cfg, newLogger(cfg.LogLevel))
	if err != nil {
		return err
	}
	defer store.Pool().Close()
	var v int
	if err := store.Pool().QueryRow(ctx, "SELECT max(version) FROM schema_migrations").Scan(&v); err != nil {
		return err
	}
	fmt.Printf("schema at version %d\n", v)
	return nil
}

// paymentProcessor is Stripe when STRIPE_SECRET_KEY is set (STRIPE_*,
// OPERATIONS.md and the README), else none: the billing routes answer 503
// billing_unavailable and everything else works.
func paymentProcessor(baseURL string, log *slog.Logger) (commands.PaymentProcessor, error) {
	p, err := payments.FromEnv(os.Getenv, baseURL, log)
	if err != nil || p == nil {
		if err == nil {
			log.Info("payment processor not configured (STRIPE_SECRET_KEY unset): the billing routes answer 503 billing_unavailable")
		}
		return nil, err
	}
	if !p.Webhooks() {
		log.Warn("STRIPE_WEBHOOK_SECRET is not set: POST /api/billing/webhook answers 503 billing_unavailable, so no purchase or subscription is ever applied")
	}
	log.Info("payment processor", "processor", "stripe", "webhooks", p.Webhooks(), "plans", p.Plans())
	return p, nil
}
