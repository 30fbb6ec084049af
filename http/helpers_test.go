package httpapi_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"testing"
	"time"

	"svc/adapters/llm/offline"
	"svc/adapters/mail"
	"svc/adapters/mcpctx"
	"svc/adapters/outbound"
	"svc/adapters/ratelimit"
	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/eventstore"
	httpapi "svc/http"
	"svc/projections"
)

// apiLimiter gives the API a rate limiter of adapters/ratelimit, as serve
// does.
type apiLimiter struct{ ratelimit.Limiter }

func (l apiLimiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (httpapi.LimitDecision, error) {
	d, err := l.Limiter.Allow(ctx, key, limit, window)
	return httpapi.LimitDecision(d), err
}

func (l apiLimiter) AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (httpapi.LimitDecision, error) {
	d, err := l.Limiter.AllowUntil(ctx, key, limit, reset)
	return httpapi.LimitDecision(d), err
}

// memoryLimiter is a fresh in-process limiter for the API.
func memoryLimiter() httpapi.Limiter { return apiLimiter{ratelimit.NewMemory()} }

// testDeps wires the API over st and runner as serve does, with test
// defaults: the offline LLM writer, secrets sealed with a key that dies
// with the test, the outbound client refusing private addresses, mail to
// the log.
func testDeps(t *testing.T, st *eventstore.Store, runner *projections.Runner, limiter httpapi.Limiter) httpapi.Deps {
	t.Helper()
	return testDepsWith(t, st, runner, limiter, nil)
}

// testDepsWith is testDeps reaching context servers (connection tests,
// plans' checks) through private, a client allowed private addresses;
// nil: testDeps' client, which refuses them.
func testDepsWith(t *testing.T, st *eventstore.Store, runner *projections.Runner, limiter httpapi.Limiter, private *http.Client) httpapi.Deps {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, err := secrets.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := outbound.NewClient(outbound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if private != nil {
		client = private
	}
	sender, err := mail.Open("", "a@b.co", quiet)
	if err != nil {
		t.Fatal(err)
	}
	queries := projections.NewQueries(st, commands.NewRepositories(st).Workflows, runner, quiet)
	planner := planning.NewPlanner(catalog.Default(), planning.WithModels(testModels))
	handlers := commands.NewHandlers(commands.NewRepositories(st), commands.Ports{
		Planner: planner, Sealer: box, NewSecret: webhook.NewSecret,
		Connections: mcpctx.NewChecker(client, quiet), CostHistory: queries,
		LLM: offline.New(), Mail: sender, BaseURL: "http://test", Log: quiet, Consistency: projections.NewFenced(queries),
		Payments: testPayments(t), ContextServers: mcpctx.NewGateway(client, private != nil, nil),
	})
	products := suite.New(commands.NewRepositories(st), suite.Ports{LLM: offline.New(), Queries: queries, Consistency: projections.NewFenced(queries), Log: quiet})
	return httpapi.Deps{Commands: handlers, Queries: queries, Limiter: limiter, Log: quiet, Catalog: planner.Catalog(), Secrets: box,
		Suite: products}
}

// testModels are the models the test API's plans route to (the offline
// writer answers for both).
var testModels = planning.Models{Tier1: []string{"gpt-4o"}, Tier2: []string{"gpt-4o-mini"}}
