package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"svc/commands"
	"svc/domain/dedupq"
	"svc/eventstore"
	"svc/eventstore/event"
)

// DedupQ is the DedupQ product's operations (spec C): check, complete
// and stats. The tiers of a check, in order: the shared cache (Redis,
// when wired) by content hash; the content's entry in the event store
// (db_exact); the semantic index of the organization's results (vector),
// guarded against look-alikes. Everything is per organization: keys,
// streams, index and read-model rows all carry the caller's org id.
type DedupQ struct {
	s       *Suite
	entries *eventstore.Repository[*dedupq.Entry]
	index   *indexes

	check    commands.Handler[DedupQCheck, DedupQCheckResult]
	complete commands.Handler[DedupQComplete, DedupQCompleteResult]
	stats    commands.Handler[Caller, DedupQStats]
}

func newDedupQ(s *Suite) *DedupQ {
	d := &DedupQ{s: s, index: newIndexes(s.ports.Queries, maxIndexedOrgs)}
	d.entries = eventstore.NewRepository(s.repos.Store, eventstore.Kind[*dedupq.Entry]{
		Stream: func(id string) string { return "dedupq-" + id },
		New:    func(string) *dedupq.Entry { return dedupq.New() },
	})
	d.check = handle(s, d.runCheck)
	d.complete = handle(s, d.runComplete)
	d.stats = handle(s, d.runStats)
	return d
}

// entryID is the repository id of orgID's entry for hash (its stream is
// dedupq.Stream(orgID, hash)).
func entryID(orgID, hash string) string { return orgID + "-" + hash }

// Errors of DedupQ's operations beyond the domain's.
var (
	// ErrDedupQNoContent refuses a completion without content whose task
	// id no check named.
	ErrDedupQNoContent = errors.New("send content, or the task_id of an earlier check")
)

// Fallbacks: fallback_behavior when a dependency was degraded.
const (
	FallbackCacheDown    = "cache unavailable; answered from the database"
	FallbackEmbedderDown = "embedder unavailable; exact matches only (semantic search skipped)"
	FallbackNotEmbedded  = "embedder unavailable; result stored for exact matches only"
	FallbackIndexLoading = "semantic index loading; exact matches only"
)

// DedupQCheck is a check of content by caller.
type DedupQCheck struct {
	Caller  Caller
	Content string
	TaskID  string
	// HashOnly skips the semantic tier.
	HashOnly bool
	// Threshold is the cosine a semantic match needs (nil: the default).
	Threshold *float64
}

// DedupQCheckResult is a check's outcome.
type DedupQCheckResult struct {
	Receipt Receipt
	// Outcome is dedupq.OutcomeHit, OutcomeMiss or OutcomeLocked.
	Outcome     string
	ContentHash string
	// Tier and Match are set on a hit.
	Tier  string
	Match *DedupQMatch
	// LockedBy and LockedUntil are set when locked.
	LockedBy    string
	LockedUntil *time.Time
	// ClaimedUntil is set on a miss: the content is this caller's until.
	ClaimedUntil *time.Time
	Fallback     string
}

// DedupQMatch is the result a hit returns.
type DedupQMatch struct {
	TaskID     string
	Similarity float64
	MatchType  string
	Result     json.RawMessage
	ResultType string
	Summary    string
	ActualCost float64
	Tags       []string
	CachedAt   time.Time
	ExpiresAt  time.Time
}

// Check runs a check (1 credit).
func (d *DedupQ) Check(ctx context.Context, cmd DedupQCheck) (DedupQCheckResult, error) {
	return d.check.Handle(ctx, cmd)
}

// DedupQComplete is a task's result.
type DedupQComplete struct {
	Caller Caller
	TaskID string
	// Content links the result to that content; "" links it to the
	// content the task id's latest check named.
	Content    string
	Result     json.RawMessage
	ResultType string
	Summary    string
	ActualCost float64
	TTLSeconds int
	Tags       []string
	// HashOnly stores the result for exact matches only (no embedding).
	HashOnly bool
}

// DedupQCompleteResult is a completion's outcome.
type DedupQCompleteResult struct {
	Receipt     Receipt
	TaskID      string
	ContentHash string
	ExpiresAt   time.Time
	// Semantic reports whether semantic checks can find the result.
	Semantic bool
	Fallback string
}

// Complete stores a result (2 credits).
func (d *DedupQ) Complete(ctx context.Context, cmd DedupQComplete) (DedupQCompleteResult, error) {
	return d.complete.Handle(ctx, cmd)
}

// DedupQStats are the caller's figures for the current UTC month.
type DedupQStats struct {
	Receipt Receipt
	// Period is the month, "2026-11".
	Period      string
	TotalChecks int64
	CacheHits   int64
	// CostSaved is the sum of the actual costs of the results hits
	// returned (USD); CostOfService what DedupQ charged (USD, 1,000
	// credits a dollar).
	CostSaved     float64
	CostOfService float64
	Credits       int64
}

// Stats reads the caller's month (free).
func (d *DedupQ) Stats(ctx context.Context, c Caller) (DedupQStats, error) {
	return d.stats.Handle(ctx, c)
}

// CreditsPerUSD is the price of credits the savings are set against.
const CreditsPerUSD = 1000

func (d *DedupQ) runStats(ctx context.Context, c Caller) (DedupQStats, error) {
	period := time.Now().UTC().Format("2006-01")
	m, err := d.s.ports.Queries.DedupQMonth(ctx, c.OrgID, period)
	if err != nil {
		return DedupQStats{}, fmt.Errorf("dedupq stats: %w", err)
	}
	rc, err := d.s.Meter.Balance(ctx, c)
	if err != nil {
		return DedupQStats{}, fmt.Errorf("dedupq stats: %w", err)
	}
	return DedupQStats{Receipt: rc, Period: period, TotalChecks: m.Checks, CacheHits: m.Hits, CostSaved: m.CostSaved,
		CostOfService: float64(m.Credits) / CreditsPerUSD, Credits: m.Credits}, nil
}

// embed is content's unit vector by the suite's embedder and its name.
func (d *DedupQ) embed(ctx context.Context, content string) ([]float32, string, error) {
	e := d.s.ports.Embedder
	vs, err := e.Embed(ctx, []string{dedupq.EmbedText(content, e.Name())})
	if err != nil {
		return nil, "", fmt.Errorf("embed: %w", err)
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, "", errors.New("embed: no vector")
	}
	return dedupq.Unit(vs[0]), e.Name(), nil
}

// appendCheck records check ch on the organization's check log.
func appendCheck(tx *eventstore.Tx, ch dedupq.Checked) error {
	_, err := tx.Append(dedupq.CheckLog(ch.OrgID), event.AnyVersion, ch)
	return err
}
