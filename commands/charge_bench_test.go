package commands_test

// BenchmarkCharge: what a charge costs with a cold ledger cache (a fresh
// process, a second instance, an evicted entry), at 10 and at 1,000,000
// ledger events; docs/benchmarks.md explains it. Run with
//
//	go test -run '^$' -bench '^BenchmarkCharge$' -benchtime 300x ./commands
//	SVC_BENCH_CHARGE_EVENTS=100000 go test -run '^$' -bench '^BenchmarkCharge$' ./commands   # a smaller long ledger
//
// The ledgers are generated with SQL straight into this package's pgtest
// database (chargeLedgerSQL), in the shape runs leave under reservations:
// per run a purchase, the reservation, six step charges and the fee drawn
// on it, and the settlement. Every iteration charges through a fresh
// Repositories, so no fold cache helps; the snapshots (migration 0008) are
// what keep the long ledger's charge as cheap as the short one's.
// Each iteration's charge is removed again (timer stopped), so every
// iteration meets the ledger at the same length. "tail=249" is the worst
// case of a cold load, commands.LedgerSnapshotEvery-1 events past the
// snapshot (one more and the load writes a new one); "nosnapshot" is the same charge on the long ledger
// folded from its start, as before snapshots. Nothing here asserts a
// duration.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/credit"
	"svc/eventstore"
)

// chargeLedgerSQL appends ledger events $2 (inclusive) to $3 (exclusive)
// of org $1: version 0 is the signup grant; from version 1 on, runs of ten
// events (a purchase of 2,000 credits, a reservation of 1,850, six step
// charges of 200 and the 530 fee drawn on it, the settlement releasing
// 120). The same JSON the domain writes.
const chargeLedgerSQL = `
INSERT INTO events (event_id, stream_id, version, type, data, metadata, org_id, recorded_at)
SELECT gen_random_uuid(), 'credits-' || $1::text, g.v, g.type, g.data,
	jsonb_build_object('org_id', $1::text, 'actor', 'system'), $1::uuid,
	timestamptz '2026-10-01 00:00:00+00' + g.v * interval '1 second'
FROM (
	SELECT s.v,
		CASE WHEN s.v = 0 OR s.k = 0 THEN 'CreditsGranted'
			WHEN s.k = 1 THEN 'CreditsReserved'
			WHEN s.k = 9 THEN 'CreditsSettled'
			ELSE 'CreditsCharged' END AS type,
		CASE WHEN s.v = 0 THEN jsonb_build_object('org_id', $1::text, 'amount', 2500, 'reason', 'signup')
			WHEN s.k = 0 THEN jsonb_build_object('org_id', $1::text, 'amount', 2000, 'reason', 'purchase')
			WHEN s.k = 1 THEN jsonb_build_object('org_id', $1::text, 'workflow_id', s.wf, 'amount', 1850)
			WHEN s.k = 9 THEN jsonb_build_object('org_id', $1::text, 'workflow_id', s.wf, 'released', 120, 'reason', 'WorkflowCompleted')
			WHEN s.k = 8 THEN jsonb_build_object('org_id', $1::text, 'amount', 530, 'reason', 'orchestration_fee',
				'workflow_id', s.wf, 'from_reservation', 530)
			ELSE jsonb_build_object('org_id', $1::text, 'amount', 200, 'reason', 'workflow_step', 'workflow_id', s.wf,
				'step', s.k - 1, 'from_reservation', 200)
		END AS data
	FROM (SELECT v, (v - 1) % 10 AS k, 'wr_' || md5($1::text || '-' || ((v - 1) / 10)) AS wf
		FROM generate_series($2::bigint, $3::bigint - 1) AS v) s
) g
ORDER BY g.v`

// chargeLedger generates the events of org's ledger (a new org when org
// is 0) from version from up to version to (exclusive) and returns the
// org's id.
func chargeLedger[O string | int](b *testing.B, org O, to int) string {
	b.Helper()
	ctx := context.Background()
	id, from := fmt.Sprint(org), 0
	if id == "0" {
		id = uuid.NewString()
	} else if err := db.Pool.QueryRow(ctx, `SELECT max(version) + 1 FROM events WHERE stream_id = $1`, credit.Stream(id)).Scan(&from); err != nil {
		b.Fatal(err)
	}
	for ; from < to; from += 100_000 {
		if _, err := db.Pool.Exec(ctx, chargeLedgerSQL, id, from, min(from+100_000, to)); err != nil {
			b.Fatal(err)
		}
	}
	return id
}

// snapshotRow is a stored snapshot, to put back between sub-benchmarks.
type snapshotRow struct {
	version int64
	eventID uuid.UUID
	codec   int
	state   []byte
}

func readSnapshot(b *testing.B, stream string) snapshotRow {
	b.Helper()
	var r snapshotRow
	if err := db.Pool.QueryRow(context.Background(), `SELECT version, event_id, codec, state FROM snapshots WHERE stream_id = $1`, stream).
		Scan(&r.version, &r.eventID, &r.codec, &r.state); err != nil {
		b.Fatalf("snapshot of %s: %v", stream, err)
	}
	return r
}

func putSnapshot(b *testing.B, stream string, r snapshotRow) {
	b.Helper()
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO snapshots (stream_id, version, event_id, codec, state) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, event_id = excluded.event_id, codec = excluded.codec, state = excluded.state`,
		stream, r.version, r.eventID, r.codec, r.state); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCharge(b *testing.B) {
	long := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_CHARGE_EVENTS")); err == nil && v > 2*commands.LedgerSnapshotEvery {
		long = v
	}
	ctx := context.Background()
	db.Reset(b)
	short := chargeLedger(b, 0, 10)
	// the long ledger in two parts: a cold load of the first writes a
	// snapshot (in the background) LedgerSnapshotEvery-1 events before the
	// end; the second is written by hand at the end
	tail := int64(commands.LedgerSnapshotEvery - 1)
	big := chargeLedger(b, 0, long-int(tail))
	cold := func(org string) *credit.Ledger {
		repos := commands.NewRepositories(store)
		l, err := repos.Ledgers.Get(ctx, org)
		if err != nil {
			b.Fatal(err)
		}
		repos.Ledgers.WaitSnapshots()
		return l
	}
	cold(big)
	behind := readSnapshot(b, credit.Stream(big))
	chargeLedger(b, big, long)
	if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE) events"); err != nil {
		b.Fatal(err)
	}
	l := cold(big) // from the snapshot, the tail folded: too few to write another
	if behind.version != int64(long)-tail-1 || l.Version() != int64(long-1) || l.Balance() < 2500 || len(l.WorkflowCharges()) > 1 {
		b.Fatalf("long ledger: snapshot at %d, version %d, balance %d, %d open accounts", behind.version, l.Version(), l.Balance(), len(l.WorkflowCharges()))
	}
	state, err := l.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	head := snapshotRow{version: l.Version(), codec: credit.SnapshotCodec, state: state}
	if err := db.Pool.QueryRow(ctx, `SELECT event_id FROM events WHERE stream_id = $1 AND version = $2`, credit.Stream(big), l.Version()).Scan(&head.eventID); err != nil {
		b.Fatal(err)
	}
	if s := cold(short); s.Version() != 9 {
		b.Fatalf("short ledger at version %d", s.Version())
	}

	// charge charges org once per iteration through a fresh Repositories
	// (a cold fold cache, as in a new process) and, timer stopped, removes
	// the charge again, so the ledger keeps its length.
	charge := func(b *testing.B, org string, repos func() *commands.Repositories) {
		var last int64
		if err := db.Pool.QueryRow(ctx, `SELECT max(version) FROM events WHERE stream_id = $1`, credit.Stream(org)).Scan(&last); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			r := repos()
			if _, err := commands.NewChargeCreditsHandler(r).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: org, Amount: 1, Reason: "bench"}}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			r.Ledgers.WaitSnapshots()
			if _, err := db.Pool.Exec(ctx, `DELETE FROM events WHERE stream_id = $1 AND version > $2`, credit.Stream(org), last); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(last+1), "ledger-events")
	}
	withSnapshots := func() *commands.Repositories { return commands.NewRepositories(store) }
	b.Run("events=10", func(b *testing.B) { charge(b, short, withSnapshots) })
	b.Run(fmt.Sprintf("events=%d", long), func(b *testing.B) {
		putSnapshot(b, credit.Stream(big), head)
		charge(b, big, withSnapshots)
	})
	// the most a cold load folds: LedgerSnapshotEvery-1 events past the
	// snapshot
	b.Run(fmt.Sprintf("events=%d/tail=%d", long, tail), func(b *testing.B) {
		putSnapshot(b, credit.Stream(big), behind)
		charge(b, big, withSnapshots)
	})
	// the whole ledger folded, as before snapshots: one iteration is
	// usually all -benchtime allows
	b.Run(fmt.Sprintf("events=%d/nosnapshot", long), func(b *testing.B) {
		charge(b, big, func() *commands.Repositories {
			r := commands.NewRepositories(store)
			r.Ledgers = eventstore.NewRepository(store, eventstore.Kind[*credit.Ledger]{
				Stream: credit.Stream, New: credit.New, Owner: (*credit.Ledger).OrgID, Cache: 1, Clone: (*credit.Ledger).Clone})
			return r
		})
	})
}
