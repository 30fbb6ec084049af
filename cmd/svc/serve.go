package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"svc/adapters/mail"
	"svc/adapters/ratelimit"
	httpapi "svc/http"
	"svc/migrations"
	"svc/projections"
)

// shutdownGrace bounds how long in-flight requests may take after SIGTERM.
const shutdownGrace = 25 * time.Second

func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	if helped, err := noArgs(fs, args, "serve\n\nApplies pending migrations, then serves the HTTP API and runs the projections until SIGINT or SIGTERM.\nEnvironment: DATABASE_URL, SVC_ADDR, SVC_BASE_URL, SVC_TRUSTED_PROXIES, SVC_SMTP_URL, REDIS_URL, SVC_LOG_LEVEL."); helped || err != nil {
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

	runner := projections.NewRunner(store, log, projections.All())
	if err := runner.Setup(ctx); err != nil {
		return err
	}
	api := httpapi.New(httpapi.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies, Version: version},
		httpapi.Deps{Store: store, Runner: runner, Limiter: limiter, Mail: sender, Log: log})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}

	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = runner.Run(bg)
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	all, _ := migrations.All()
	log.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "schema_version", all[len(all)-1].Version,
		"cache", map[bool]string{true: "redis", false: "in-process"}[cfg.RedisURL != ""],
		"mail", map[bool]string{true: "smtp", false: "log"}[cfg.SMTPURL != ""])

	select {
	case err := <-serveErr:
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
	api.Close(sctx)
	stopBackground()
	wg.Wait()
	log.Info("stopped")
	return nil
}

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
