// Package bench holds what the benchmarks share: the synthetic ledger
// generator used by the projection rebuild benchmark and by test/bench/run.sh.
// See docs/benchmarks.md.
package bench

import (
	"context"
	"crypto/md5"
	_ "embed"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LedgerSQL inserts synthetic ledger events; see the comment at its top for
// its parameters ($1 orgs, $2 first event, $3 end) and the shape of the log.
//
//go:embed ledger.sql
var LedgerSQL string

// OrgID is the id LedgerSQL gives organization o.
func OrgID(o int) string { return md5UUID(fmt.Sprintf("svc-bench-org-%d", o)) }

// KeyID is the id LedgerSQL gives organization o's API key.
func KeyID(o int) string { return md5UUID(fmt.Sprintf("svc-bench-key-%d", o)) }

func md5UUID(s string) string {
	sum := md5.Sum([]byte(s))
	return uuid.MustParse(hex.EncodeToString(sum[:])).String()
}

// GenerateLedger appends that many synthetic ledger events ("events") for orgs
// organizations to the (migrated) database of pool, chunk events per
// transaction, and returns after the last commit. The log must hold no
// ledger stream of those orgs yet.
func GenerateLedger(ctx context.Context, pool *pgxpool.Pool, orgs, events, chunk int) error {
	if orgs <= 0 || events < 0 || chunk <= 0 {
		return fmt.Errorf("bench: GenerateLedger(%d orgs, %d events, chunk %d)", orgs, events, chunk)
	}
	for from := 0; from < events; from += chunk {
		to := min(from+chunk, events)
		if _, err := pool.Exec(ctx, LedgerSQL, int64(orgs), int64(from), int64(to)); err != nil {
			return fmt.Errorf("bench: generate events %d..%d: %w", from, to, err)
		}
	}
	return nil
}
