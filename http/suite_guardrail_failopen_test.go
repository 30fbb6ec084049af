package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/apikey"
	"svc/eventstore"
	"svc/projections"
)

// suiteOver is a Suite over st, as testDeps builds it.
func suiteOver(st *eventstore.Store) *suite.Suite {
	queries := projections.NewQueries(st, commands.NewRepositories(st).Workflows, nil, quiet)
	return suite.New(commands.NewRepositories(st), suite.Ports{LLM: offline.New(), Queries: queries, Consistency: queries, Log: quiet})
}

// A check fails open without the database: a second Suite over a pool
// that reaches no server, sharing the first one's policy cache, decides
// from the cached policies, charges nothing and records nothing; with no
// cached copy it allows.
func TestSuiteGuardRailFailsOpen(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	if code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key, bigSpend); code != 201 {
		t.Fatalf("create: %d %v", code, body)
	}
	// the key's next request waits for the policy to reach the read model
	// (read fences, decision 230); the checks below call the suite directly
	if code, body := rawCall(t, f, "GET", "/api/guardrail/policies", key, ""); code != 200 {
		t.Fatalf("list: %d %v", code, body)
	}
	ctx := context.Background()
	live := suiteOver(store)
	caller := suite.Caller{OrgID: orgID, KeyID: "k"}
	dear := json.RawMessage(`{"type":"purchase","cost_estimate":500,"tags":["prod"]}`)
	d, err := live.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: caller, AgentID: "a", ProposedAction: dear})
	if err != nil || d.Decision != "deny" || d.AuditID == "" || d.Fallback != "" || d.Receipt.CreditsUsed != 1 {
		t.Fatalf("live check: %+v %v", d, err)
	}

	pool, err := pgxpool.New(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	dead := suiteOver(eventstore.New(pool))
	dead.GuardRail.UseCache(live.GuardRail.Cache())
	d, err = dead.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: caller, AgentID: "a", ProposedAction: dear})
	if err != nil || d.Decision != "deny" || d.PolicyName != "No big spend" || d.AuditID != "" || d.Receipt.CreditsUsed != 0 ||
		d.Receipt.CreditsRemaining != live.GuardRail.Cache().Balance(orgID) ||
		!strings.HasPrefix(d.Fallback, "fail_open: database unavailable; evaluated against cached policies from ") {
		t.Fatalf("fail open from the cache: %+v %v", d, err)
	}
	cheap := json.RawMessage(`{"type":"purchase","cost_estimate":5}`)
	if d, err = dead.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: caller, AgentID: "a", ProposedAction: cheap}); err != nil || d.Decision != "allow" {
		t.Fatalf("fail open, allowed: %+v %v", d, err)
	}
	// an organization with no cached copy: allowed
	other := suite.Caller{OrgID: "00000000-0000-4000-8000-000000000001"}
	d, err = dead.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: other, AgentID: "a", ProposedAction: dear})
	if err != nil || d.Decision != "allow" || d.AuditID != "" || !strings.Contains(d.Fallback, "no cached policies") {
		t.Fatalf("fail open without a copy: %+v %v", d, err)
	}
	// bad input is still refused
	if _, err := dead.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: caller, AgentID: "", ProposedAction: dear}); err == nil {
		t.Fatal("a check without agent_id passed")
	}
	// nothing was recorded while failing open: only the live check is (the
	// live Suite here has no runner to wait for, so the read model may lag)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := rawCall(t, f, "GET", "/api/guardrail/decisions", key, "")
		if body["total"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("decisions: %v", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
