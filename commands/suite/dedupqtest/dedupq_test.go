// Package dedupqtest tests DedupQ's operations (commands/suite) against
// PostgreSQL: the shared-cache tier, concurrent checks of one content, the
// semantic index across instances, and a failing embedder.
package dedupqtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/dedupq"
	"svc/eventstore"
	"svc/projections"
	"svc/test/pgtest"
)

var (
	store *eventstore.Store
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "dedupq", func(d *pgtest.DB) { store = eventstore.New(d.Pool) })
}

// memCache is a suite.Cache in memory that can be made to fail.
type memCache struct {
	mu   sync.Mutex
	m    map[string][]byte
	down bool
}

func (c *memCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return nil, false, errors.New("cache down")
	}
	v, ok := c.m[key]
	return v, ok, nil
}

func (c *memCache) Set(_ context.Context, key string, value []byte, _ int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return errors.New("cache down")
	}
	c.m[key] = value
	return nil
}

func (c *memCache) Ping(context.Context) error { return nil }

// failingEmbedder fails every call.
type failingEmbedder struct{}

func (failingEmbedder) Name() string { return "provider-x" }
func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("provider down")
}

var (
	runnerOnce sync.Once
	runner     *projections.Runner
)

// newSuite is one instance's suite over the shared store and projections.
func newSuite(t testing.TB, p suite.Ports) *suite.Suite {
	t.Helper()
	runnerOnce.Do(func() {
		runner = projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(5*time.Millisecond))
		if err := runner.Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		go runner.Run(context.Background())
	})
	repos := commands.NewRepositories(store)
	q := projections.NewQueries(store, repos.Workflows, runner, quiet)
	p.LLM, p.Queries, p.Consistency, p.Log = offline.New(), q, q, quiet
	return suite.New(repos, p)
}

// newOrg signs up an organization with credits to spend.
func newOrg(t testing.TB, credits int64) suite.Caller {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	res, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{})
	if err != nil {
		t.Fatal(err)
	}
	if credits > 0 {
		if _, err := commands.NewGrantCreditsHandler(repos).Handle(ctx, commands.GrantCredits{OrgID: res.OrgID, Amount: credits, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return suite.Caller{OrgID: res.OrgID, WorkspaceID: res.WorkspaceID, KeyID: res.KeyID}
}

func complete(t testing.TB, s *suite.Suite, c suite.Caller, taskID, content string) suite.DedupQCompleteResult {
	t.Helper()
	r, err := s.DedupQ.Complete(context.Background(), suite.DedupQComplete{Caller: c, TaskID: taskID, Content: content,
		Result: json.RawMessage(`{"done":true}`), ActualCost: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func check(t testing.TB, s *suite.Suite, c suite.Caller, content, taskID string) suite.DedupQCheckResult {
	t.Helper()
	r, err := s.DedupQ.Check(context.Background(), suite.DedupQCheck{Caller: c, Content: content, TaskID: taskID})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCacheTier(t *testing.T) {
	cache := &memCache{m: map[string][]byte{}}
	s := newSuite(t, suite.Ports{Cache: cache})
	org := newOrg(t, 0)
	if r := complete(t, s, org, "t1", "Draft the Q3 board memo"); r.Fallback != "" || len(cache.m) != 1 {
		t.Fatalf("completion %+v, cache %d", r, len(cache.m))
	}
	r := check(t, s, org, "draft the Q3 board memo.", "")
	if r.Outcome != dedupq.OutcomeHit || r.Tier != dedupq.TierCache || string(r.Match.Result) != `{"done":true}` || r.Match.ActualCost != 0.25 {
		t.Fatalf("cached check %+v %+v", r, r.Match)
	}
	// another organization's same content is another key
	other := newOrg(t, 0)
	if r := check(t, s, other, "Draft the Q3 board memo", ""); r.Outcome != dedupq.OutcomeMiss {
		t.Fatalf("another org: %+v", r)
	}
	// the cache down: the database answers, and says so
	cache.down = true
	r = check(t, s, org, "Draft the Q3 board memo", "")
	if r.Outcome != dedupq.OutcomeHit || r.Tier != dedupq.TierDBExact || r.Fallback != suite.FallbackCacheDown {
		t.Fatalf("cache down %+v", r)
	}
	// a db_exact hit fills the cache again
	cache.down = false
	clear(cache.m)
	check(t, s, org, "Draft the Q3 board memo", "")
	if r := check(t, s, org, "Draft the Q3 board memo", ""); r.Tier != dedupq.TierCache {
		t.Fatalf("after a db_exact hit: %+v", r)
	}
}

// TestConcurrentChecksClaimOnce: agents checking one new content at once:
// exactly one is told to do it (miss), the others that it is in progress
// (locked), and each check is charged once.
func TestConcurrentChecksClaimOnce(t *testing.T) {
	s := newSuite(t, suite.Ports{})
	org := newOrg(t, 0)
	const n = 8
	outcomes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.DedupQ.Check(context.Background(), suite.DedupQCheck{Caller: org, Content: "Audit the IAM roles of prod",
				TaskID: string(rune('a' + i))})
			if err != nil {
				t.Error(err)
				return
			}
			outcomes[i] = r.Outcome
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, o := range outcomes {
		count[o]++
	}
	if count[dedupq.OutcomeMiss] != 1 || count[dedupq.OutcomeLocked] != n-1 {
		t.Fatalf("outcomes %v", count)
	}
	st, err := s.DedupQ.Stats(context.Background(), org)
	if err != nil || st.TotalChecks != n || st.Credits != n {
		t.Fatalf("stats %+v %v", st, err)
	}
}

// TestIndexAcrossInstances: a result completed through one instance is
// found by another's semantic index, loaded before the result existed.
func TestIndexAcrossInstances(t *testing.T) {
	a, b := newSuite(t, suite.Ports{}), newSuite(t, suite.Ports{})
	org := newOrg(t, 0)
	if r := check(t, b, org, "Write a haiku about autumn leaves", ""); r.Outcome != dedupq.OutcomeMiss {
		t.Fatalf("first check %+v", r)
	}
	complete(t, a, org, "h1", "Write a haiku about autumn leaves")
	r := check(t, b, org, "Please write a haiku about the autumn leaves.", "")
	if r.Outcome != dedupq.OutcomeHit || r.Tier != dedupq.TierVector || r.Match.TaskID != "h1" || r.Match.MatchType != dedupq.MatchSemantic {
		t.Fatalf("semantic check through the other instance %+v", r)
	}
	// replaced through a: b returns the new result
	if _, err := a.DedupQ.Complete(context.Background(), suite.DedupQComplete{Caller: org, TaskID: "h2",
		Content: "Write a haiku about autumn leaves", Result: json.RawMessage(`"v2"`)}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, b, org, "Please write a haiku about the autumn leaves.", ""); r.Match == nil || r.Match.TaskID != "h2" {
		t.Fatalf("after the replacement %+v", r)
	}
}

// TestEmbedderDown: without embeddings checks fall back to exact matches
// and completions are stored for exact matches only; both say so.
func TestEmbedderDown(t *testing.T) {
	s := newSuite(t, suite.Ports{Embedder: failingEmbedder{}})
	org := newOrg(t, 0)
	r := complete(t, s, org, "e1", "Classify the support tickets by urgency")
	if r.Semantic || r.Fallback != suite.FallbackNotEmbedded {
		t.Fatalf("completion %+v", r)
	}
	c := check(t, s, org, "Classify support tickets by urgency", "")
	if c.Outcome != dedupq.OutcomeMiss || c.Fallback != suite.FallbackEmbedderDown {
		t.Fatalf("semantic check %+v", c)
	}
	if c := check(t, s, org, "Classify the support tickets by urgency", ""); c.Tier != dedupq.TierDBExact || c.Fallback != "" {
		t.Fatalf("exact check %+v", c)
	}
}

// TestIndexLoadsInTheBackground: an organization with many results: its
// first checks go on without the semantic tier while its index loads
// (fallback_behavior saying so), then the semantic tier answers.
func TestIndexLoadsInTheBackground(t *testing.T) {
	s := newSuite(t, suite.Ports{})
	org := newOrg(t, 0)
	complete(t, s, org, "real", "Summarize the churn interviews of the Apollo project")
	// dense vectors without a stored sketch: the load computes each one's
	vec := make([]byte, 512)
	for i := range vec {
		vec[i] = byte(i * 7)
	}
	if _, err := store.Pool().Exec(context.Background(), `INSERT INTO dedupq_results (org_id, content_hash, task_id, result_type,
		actual_cost, cached_at, expires_at, embedder, vector, scale, guard, tx, pos)
		SELECT $1, md5(g::text), 'seed-' || g, 'json', 0, now(), now() + interval '1 hour', $2, $3, 0.001, '{}', 0, g
		FROM generate_series(1, 20000) g`, org.OrgID, "local-hash-512", vec); err != nil {
		t.Fatal(err)
	}
	fresh := newSuite(t, suite.Ports{}) // an instance that has not loaded the organization
	r := check(t, fresh, org, "Summarise the churn interviews of the Apollo project", "")
	if r.Fallback != suite.FallbackIndexLoading {
		t.Skipf("the index loaded within the wait (%+v): nothing to see on this machine", r)
	}
	// the load computes a sketch per vector: under -race on a busy
	// machine that takes minutes, not seconds
	deadline := time.Now().Add(4 * time.Minute)
	for r.Fallback != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the index never loaded: %+v", r)
		}
		time.Sleep(200 * time.Millisecond)
		r = check(t, fresh, org, "Summarise the churn interviews of the Apollo project", "")
	}
	if r.Tier != dedupq.TierVector || r.Match.TaskID != "real" {
		t.Fatalf("after the load: %+v", r)
	}
}
