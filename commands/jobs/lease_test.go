package jobs_test

import (
	"context"
	"testing"
	"time"

	"svc/commands/jobs"
)

// A job that runs longer than the lease keeps it: the runner renews it,
// and its context lives on.
func TestLeaseRenewedWhileJobRuns(t *testing.T) {
	kind := kindOf(t)
	b, _ := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a", Lease: 600 * time.Millisecond}, "long")
	first, ok := leaseOf(t, kind, "long")
	if !ok || first.owner != "owner-a" {
		t.Fatalf("lease %+v (%v) while the job runs", first, ok)
	}
	// until the first lease would have run out, and a renewal more
	waitFor(t, "the first lease's end", 10*time.Second, func() bool {
		var past bool
		if err := db.Pool.QueryRow(context.Background(), `SELECT now() > $1::timestamptz + interval '200 milliseconds'`, first.expires).Scan(&past); err != nil {
			t.Fatal(err)
		}
		return past
	})
	held, err := jobs.Held(context.Background(), db.Pool, kind, "long")
	if err != nil || !held {
		t.Fatalf("held %v (%v) past the first lease's end", held, err)
	}
	if now, ok := leaseOf(t, kind, "long"); !ok || now.owner != "owner-a" || !now.expires.After(first.expires) {
		t.Fatalf("lease %+v, first %+v", now, first)
	}
	select {
	case err := <-b.ended:
		t.Fatalf("the job's context ended: %v", err)
	default:
	}
	close(b.release)
	receive(t, "the job's end", b.ended)
}

// A lease another owner took over (the runner stalled past its expiry)
// ends the job's context with ErrLeaseLost; the release afterwards leaves
// the other owner's lease alone.
func TestLeaseTakenOverCancelsJob(t *testing.T) {
	kind := kindOf(t)
	b, stop := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a", Lease: 600 * time.Millisecond}, "taken")
	if _, err := db.Pool.Exec(context.Background(), `UPDATE job_leases SET owner = 'ghost', expires_at = now() + interval '1 minute'
		WHERE kind = $1 AND job_id = $2`, kind, "taken"); err != nil {
		t.Fatal(err)
	}
	if err := receive(t, "the job's end", b.ended); err != jobs.ErrLeaseLost {
		t.Fatalf("the job's context ended with %v, want ErrLeaseLost", err)
	}
	stop() // every release done
	if l, ok := leaseOf(t, kind, "taken"); !ok || l.owner != "ghost" {
		t.Fatalf("lease %+v (%v), want the ghost's", l, ok)
	}
}

// The lease is held while the job runs and released when it returns.
func TestLeaseReleasedWhenJobReturns(t *testing.T) {
	kind := kindOf(t)
	b, _ := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a"}, "short")
	if l, ok := leaseOf(t, kind, "short"); !ok || l.owner != "owner-a" {
		t.Fatalf("lease %+v (%v) while the job runs", l, ok)
	}
	close(b.release)
	receive(t, "the job's end", b.ended)
	waitFor(t, "the release", 10*time.Second, func() bool {
		_, ok := leaseOf(t, kind, "short")
		return !ok
	})
}

// Stopping ends running jobs (ErrStopped) and hands back every lease of
// this owner and kind, stale ones too; other owners' and other kinds'
// leases stay.
func TestStopReleasesAllLeases(t *testing.T) {
	kind := kindOf(t)
	other := kind + "-other"
	insertLease(t, kind, "stale", "owner-a", time.Minute) // a release that failed
	insertLease(t, kind, "theirs", "owner-b", time.Minute)
	insertLease(t, other, "mine", "owner-a", time.Minute)
	b, stop := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a"}, "running")
	stop()
	if err := receive(t, "the job's end", b.ended); err != jobs.ErrStopped {
		t.Fatalf("the job's context ended with %v, want ErrStopped", err)
	}
	for _, id := range []string{"stale", "running"} {
		if l, ok := leaseOf(t, kind, id); ok {
			t.Errorf("lease of %s left: %+v", id, l)
		}
	}
	if l, ok := leaseOf(t, kind, "theirs"); !ok || l.owner != "owner-b" {
		t.Errorf("another owner's lease: %+v (%v)", l, ok)
	}
	if l, ok := leaseOf(t, other, "mine"); !ok || l.owner != "owner-a" {
		t.Errorf("a lease of another kind: %+v (%v)", l, ok)
	}
}

// A job whose lease another owner holds is not run; once the lease
// expires it is taken over.
func TestLiveLeaseOfAnotherOwnerIsNotTaken(t *testing.T) {
	kind := kindOf(t)
	insertLease(t, kind, "busy", "owner-b", 500*time.Millisecond)
	b := newBlocking()
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Run: b.run})
	r.Kick("busy")
	r.Kick("free") // kicks are taken in order: once it runs, busy was tried
	if id := receive(t, "the free job", b.started); id != "free" {
		t.Fatalf("started %q while another owner held its lease", id)
	}
	waitFor(t, "the other owner's lease to expire", 10*time.Second, func() bool {
		held, err := jobs.Held(context.Background(), db.Pool, kind, "busy")
		if err != nil {
			t.Fatal(err)
		}
		return !held
	})
	r.Kick("busy")
	if id := receive(t, "the job whose lease expired", b.started); id != "busy" {
		t.Fatalf("started %q", id)
	}
	if l, ok := leaseOf(t, kind, "busy"); !ok || l.owner != "owner-a" {
		t.Fatalf("lease %+v (%v) after the takeover", l, ok)
	}
	close(b.release)
}

// Held reads live leases inside a caller's transaction: an expired lease
// or none is not held.
func TestHeld(t *testing.T) {
	kind := kindOf(t)
	insertLease(t, kind, "live", "owner-a", time.Minute)
	insertLease(t, kind, "expired", "owner-a", -time.Second)
	ctx := context.Background()
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	for id, want := range map[string]bool{"live": true, "expired": false, "none": false} {
		held, err := jobs.Held(ctx, tx, kind, id)
		if err != nil || held != want {
			t.Errorf("Held(%s) = %v (%v), want %v", id, held, err, want)
		}
		if other, err := jobs.Held(ctx, tx, kind+"-other", id); err != nil || other {
			t.Errorf("Held(%s) of another kind = %v (%v)", id, other, err)
		}
	}
}

// Leases are renewed together: ten jobs running past several renewals
// keep every lease, each renewed.
func TestLeasesRenewedTogether(t *testing.T) {
	kind := kindOf(t)
	b := newBlocking()
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Concurrency: 16, Lease: 300 * time.Millisecond, Poll: time.Hour, Run: b.run,
		Find: func(context.Context, int) ([]string, error) { return nil, nil }})
	var ids []string
	for i := range 10 {
		id := "job-" + string(rune('a'+i))
		ids = append(ids, id)
		r.Kick(id)
		receive(t, "a kicked job", b.started)
	}
	time.Sleep(time.Second) // about ten renewals
	for _, id := range ids {
		if held, err := jobs.Held(context.Background(), db.Pool, kind, id); err != nil || !held {
			t.Fatalf("%s held %v (%v) after a second of 300 ms leases", id, held, err)
		}
	}
	close(b.release)
	for range ids {
		receive(t, "a job's end", b.ended)
	}
}
