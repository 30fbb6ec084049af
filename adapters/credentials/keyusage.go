package credentials

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// KeyUsageEvery is how often KeyUsage writes what it collected.
const KeyUsageEvery = 5 * time.Second

// KeyUsage collects when API keys were used and writes the latest time of
// each to api_key_usage in one statement every KeyUsageEvery: no event and
// no write per request. Each instance runs its own; the newest time wins.
type KeyUsage struct {
	pool    *pgxpool.Pool
	log     *slog.Logger
	mu      sync.Mutex
	pending map[string]time.Time
}

// NewKeyUsage returns a collector writing through pool.
func NewKeyUsage(pool *pgxpool.Pool, log *slog.Logger) *KeyUsage {
	return &KeyUsage{pool: pool, log: log, pending: map[string]time.Time{}}
}

// Touch records that key keyID was used now.
func (u *KeyUsage) Touch(keyID string) {
	now := time.Now()
	u.mu.Lock()
	u.pending[keyID] = now
	u.mu.Unlock()
}

// Run writes every KeyUsageEvery until ctx ends, then once more.
func (u *KeyUsage) Run(ctx context.Context) {
	t := time.NewTicker(KeyUsageEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := u.Flush(context.WithoutCancel(ctx)); err != nil {
				u.log.Warn("writing api key usage at shutdown", "error", err)
			}
			return
		case <-t.C:
			if err := u.Flush(ctx); err != nil && ctx.Err() == nil {
				u.log.Warn("writing api key usage", "error", err)
			}
		}
	}
}

// Flush writes what was collected; on failure it keeps it for the next
// try.
func (u *KeyUsage) Flush(ctx context.Context) error {
	u.mu.Lock()
	batch := u.pending
	u.pending = map[string]time.Time{}
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	ids := make([]string, 0, len(batch))
	ats := make([]time.Time, 0, len(batch))
	for id, at := range batch {
		ids, ats = append(ids, id), append(ats, at)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// a key the keys read model no longer has (its organization was
	// erased since it was used) is not written back
	_, err := u.pool.Exec(ctx, `INSERT INTO api_key_usage (key_id, last_used_at)
		SELECT u.key_id, u.at FROM unnest($1::uuid[], $2::timestamptz[]) AS u(key_id, at)
		WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.key_id = u.key_id)
		ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`, ids, ats)
	if err != nil {
		u.mu.Lock()
		for id, at := range batch {
			if cur, ok := u.pending[id]; !ok || at.After(cur) {
				u.pending[id] = at
			}
		}
		u.mu.Unlock()
		return fmt.Errorf("write key usage: %w", err)
	}
	return nil
}
