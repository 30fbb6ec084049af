// Package suite is the write side of the agent-infrastructure suite (spec
// C): one file per product, whose handlers load the product's aggregates,
// let them decide, and append what they decided in the same transaction
// as the operation's credit charge (Meter). The REST routes and the tool
// server call the same handlers.
package suite

import (
	"context"
	"log/slog"

	"svc/adapters/llm"
	"svc/commands"
	"svc/domain/embedding"
	"svc/projections"
)

// Ports are what the suite needs beyond the repositories.
type Ports struct {
	// Embedder embeds texts for the semantic tiers (DedupQ, PitfallDB):
	// the provider's embeddings when one is configured, embedding.Local
	// otherwise (the default).
	Embedder embedding.Embedder
	// LLM runs QualityGate's LLM checks (required; the offline writer is
	// deterministic).
	LLM llm.Provider
	// Queries are the read models the products read (required).
	Queries *projections.Queries
	// Cache is the shared cache of hot answers (Redis when REDIS_URL is
	// set); nil skips that tier.
	Cache Cache
	// Consistency makes each operation's answer, and the caller's reads
	// after it, reflect its events (commands.WithReadYourWrites).
	Consistency commands.Waiter
	// Log receives one record per operation (default: slog's default).
	Log *slog.Logger
}

// Cache is a shared key-value cache with expiry (Redis): a miss or an
// error is a miss, never a failure.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, value []byte, ttlSeconds int) error
	Ping(ctx context.Context) error
}

// Suite holds the products' handlers over one set of repositories.
type Suite struct {
	Meter       *Meter
	DedupQ      *DedupQ
	BurnRate    *BurnRate
	QualityGate *QualityGate
	GuardRail   *GuardRail
	PitfallDB   *PitfallDB

	repos *commands.Repositories
	ports Ports
	log   *slog.Logger
}

// New returns the suite over repos and p; a missing required port panics
// (a wiring mistake, found at start).
func New(repos *commands.Repositories, p Ports) *Suite {
	if repos == nil || repos.Store == nil || p.LLM == nil || p.Queries == nil {
		panic("suite: missing dependency")
	}
	if p.Embedder == nil {
		p.Embedder = embedding.Local{}
	}
	if p.Log == nil {
		p.Log = slog.Default()
	}
	s := &Suite{repos: repos, ports: p, log: p.Log, Meter: &Meter{repos: repos}}
	s.DedupQ = newDedupQ(s)
	s.BurnRate = newBurnRate(s)
	s.QualityGate = newQualityGate(s)
	s.GuardRail = newGuardRail(s)
	s.PitfallDB = newPitfallDB(s)
	return s
}

// Ports are the ports the suite was built with (Embedder and Log set).
func (s *Suite) Ports() Ports { return s.ports }

// handle runs one operation as the API runs every command: logged, and
// once it returns its events are visible to the caller's reads.
func handle[C any, R any](s *Suite, f func(ctx context.Context, cmd C) (R, error)) commands.Handler[C, R] {
	return commands.WithReadYourWrites(commands.WithLogging(commands.Handler[C, R](commands.HandlerFunc[C, R](f)), s.log), s.ports.Consistency)
}
