package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/adapters/oauth"
	"svc/eventstore"
	"svc/migrations"
)

// config is the environment of OPERATIONS.md.
type config struct {
	DatabaseURL    string
	Addr           string
	BaseURL        string
	TrustedProxies []netip.Prefix
	SMTPURL        string
	MailFrom       string
	RedisURL       string
	LogLevel       slog.Level

	AllowPrivateURLs bool
	OutboundCAFile   string

	// OAuthProviders are the MCP OAuth providers of SVC_OAUTH_PROVIDERS
	// and their SVC_OAUTH_<NAME>_* variables (README).
	OAuthProviders []oauth.Provider

	// Project tunables (README, "Configuration"): worker and stream pacing,
	// mostly for tests.
	Workers             int
	WorkerLease         time.Duration
	SSEHeartbeat        time.Duration
	SSETimeout          time.Duration
	InteractiveIdle     time.Duration
	WebhookBackoffScale float64
	// WebhookDisableAfter is how many deliveries to a workspace webhook
	// may give up in a row before it is disabled
	// (SVC_WEBHOOK_DISABLE_AFTER, default 20).
	WebhookDisableAfter int
	// DirectExecution allows direct execution (SVC_DIRECT_EXECUTION,
	// default true); when false direct runs fall back to standard.
	DirectExecution bool
	// DeletionTokenTTL is how long a data deletion request may be
	// confirmed (SVC_DELETION_TOKEN_TTL, default 1h; shorter for tests).
	DeletionTokenTTL time.Duration
	// ConnectionsOff turns the connection gateway off (SVC_CONNECTIONS=off;
	// default on): the connection routes answer 501 feature_not_enabled.
	ConnectionsOff bool
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func loadConfig() (config, error) {
	c := config{
		DatabaseURL: env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/svc?sslmode=disable"),
		Addr:        env("SVC_ADDR", "127.0.0.1:8080"),
		SMTPURL:     os.Getenv("SVC_SMTP_URL"),
		MailFrom:    env("SVC_MAIL_FROM", "no-reply@svc.localhost"),
		RedisURL:    os.Getenv("REDIS_URL"),
	}
	c.BaseURL = strings.TrimRight(env("SVC_BASE_URL", "http://"+c.Addr), "/")
	for _, s := range strings.Split(os.Getenv("SVC_TRUSTED_PROXIES"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return c, fmt.Errorf("SVC_TRUSTED_PROXIES: %q is not a CIDR", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("SVC_LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("SVC_LOG_LEVEL: %w", err)
	}
	var err error
	if c.AllowPrivateURLs, err = strconv.ParseBool(env("SVC_ALLOW_PRIVATE_URLS", "false")); err != nil {
		return c, fmt.Errorf("SVC_ALLOW_PRIVATE_URLS: want true or false")
	}
	c.OutboundCAFile = os.Getenv("SVC_OUTBOUND_CA_FILE")
	if c.OAuthProviders, err = oauth.FromEnv(os.Getenv, c.AllowPrivateURLs); err != nil {
		return c, err
	}
	if c.Workers, err = strconv.Atoi(env("SVC_WORKERS", "32")); err != nil || c.Workers < 1 {
		return c, fmt.Errorf("SVC_WORKERS: want a positive number of workflows run at once")
	}
	durations := []struct {
		name, def string
		to        *time.Duration
	}{{"SVC_WORKER_LEASE", "10s", &c.WorkerLease}, {"SVC_SSE_HEARTBEAT", "15s", &c.SSEHeartbeat}, {"SVC_SSE_TIMEOUT", "290s", &c.SSETimeout},
		{"SVC_INTERACTIVE_IDLE", "30m", &c.InteractiveIdle}, {"SVC_DELETION_TOKEN_TTL", "1h", &c.DeletionTokenTTL}}
	for _, d := range durations {
		if *d.to, err = time.ParseDuration(env(d.name, d.def)); err != nil || *d.to <= 0 {
			return c, fmt.Errorf("%s: want a duration such as %s", d.name, d.def)
		}
	}
	if c.DirectExecution, err = strconv.ParseBool(env("SVC_DIRECT_EXECUTION", "true")); err != nil {
		return c, fmt.Errorf("SVC_DIRECT_EXECUTION: want true or false")
	}
	if c.WebhookBackoffScale, err = strconv.ParseFloat(env("SVC_WEBHOOK_BACKOFF_SCALE", "1"), 64); err != nil || c.WebhookBackoffScale <= 0 {
		return c, fmt.Errorf("SVC_WEBHOOK_BACKOFF_SCALE: want a positive number (1 = the real schedule)")
	}
	if c.WebhookDisableAfter, err = strconv.Atoi(env("SVC_WEBHOOK_DISABLE_AFTER", "20")); err != nil || c.WebhookDisableAfter < 1 {
		return c, fmt.Errorf("SVC_WEBHOOK_DISABLE_AFTER: want a positive integer")
	}
	switch strings.ToLower(env("SVC_CONNECTIONS", "on")) {
	case "on", "true":
	case "off", "false":
		c.ConnectionsOff = true
	default:
		return c, fmt.Errorf("SVC_CONNECTIONS: want on or off")
	}
	return c, nil
}

func newLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("service", "svc", "version", version)
}

// openStore connects (creating the database if needed) and migrates.
func openStore(ctx context.Context, c config, log *slog.Logger) (*eventstore.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pool, err := eventstore.Connect(ctx, c.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if _, err := migrations.Apply(ctx, pool, log); err != nil {
		pool.Close()
		return nil, err
	}
	return eventstore.New(pool), nil
}

// openPool connects for an operator command, applying pending migrations
// first so that commands work on a database serve has not touched yet.
func openPool(ctx context.Context) (*pgxpool.Pool, config, error) {
	c, err := loadConfig()
	if err != nil {
		return nil, c, usageErr("%v", err)
	}
	store, err := openStore(ctx, c, newLogger(slog.LevelWarn))
	if err != nil {
		return nil, c, err
	}
	return store.Pool(), c, nil
}
