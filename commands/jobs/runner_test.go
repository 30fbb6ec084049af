package jobs_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/commands/jobs"
)

// Two runners (two processes) poll fast over the same jobs: the leases
// keep each job to one of them at a time.
func TestTwoOwnersNeverRunOneJobAtOnce(t *testing.T) {
	kind := kindOf(t)
	var ids []string
	for i := range 8 {
		ids = append(ids, fmt.Sprintf("job-%d", i))
	}
	var turn atomic.Int32
	find := func(_ context.Context, limit int) ([]string, error) { // a different first job each time
		first := int(turn.Add(1)) % len(ids)
		due := append(append([]string{}, ids[first:]...), ids[:first]...)
		return due[:min(limit, len(due))], nil
	}
	var (
		mu      sync.Mutex
		active  = map[string]int{}
		runs    = map[string]int{}
		overlap []string
	)
	job := func(_ context.Context, id string) *time.Time {
		mu.Lock()
		active[id]++
		if active[id] > 1 {
			overlap = append(overlap, id)
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		active[id]--
		runs[id]++
		mu.Unlock()
		return nil
	}
	for _, owner := range []string{"owner-a", "owner-b"} {
		start(t, jobs.Config{Kind: kind, ID: owner, Concurrency: 4, Poll: 2 * time.Millisecond, Find: find, Run: job})
	}
	waitFor(t, "every job to run five times", 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			if runs[id] < 5 {
				return false
			}
		}
		return true
	})
	mu.Lock()
	defer mu.Unlock()
	if len(overlap) > 0 {
		t.Fatalf("jobs run by two owners at once: %v", overlap)
	}
}

// A kicked job starts without waiting for the poll, and a job already
// running here is not started again by another kick. Find is asked once,
// at the start, and not again before the poll.
func TestKickStartsJobWithoutPoll(t *testing.T) {
	kind := kindOf(t)
	var finds atomic.Int32
	b := newBlocking()
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Run: b.run,
		Find: func(context.Context, int) ([]string, error) { finds.Add(1); return nil, nil }})
	waitFor(t, "the first look", 5*time.Second, func() bool { return finds.Load() == 1 })
	r.Kick("first")
	if id := receive(t, "the kicked job", b.started); id != "first" {
		t.Fatalf("started %q", id)
	}
	r.Kick("first")
	r.Kick("first")
	r.Kick("second") // kicks are taken in order: once it runs, the others were seen
	if id := receive(t, "the second kicked job", b.started); id != "second" {
		t.Fatalf("started %q, want second (first runs already)", id)
	}
	if n := finds.Load(); n != 1 {
		t.Fatalf("Find called %d times, want once (at the start)", n)
	}
	close(b.release)
	receive(t, "a job's end", b.ended)
	receive(t, "a job's end", b.ended)
	select {
	case id := <-b.started:
		t.Fatalf("%s started again", id)
	default:
	}
}

// No more than Concurrency jobs run at once; Find is asked for no more
// than the free slots, and a freed slot takes the next job.
func TestConcurrencyBoundsRunningJobs(t *testing.T) {
	kind := kindOf(t)
	const limit = 3
	var ids []string
	for i := range 10 {
		ids = append(ids, fmt.Sprintf("job-%d", i))
	}
	var (
		mu           sync.Mutex
		done         = map[string]bool{}
		asked        []int
		active, most int
	)
	find := func(_ context.Context, n int) ([]string, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, n)
		var due []string
		for _, id := range ids {
			if !done[id] && len(due) < n {
				due = append(due, id)
			}
		}
		return due, nil
	}
	running := func() int {
		mu.Lock()
		defer mu.Unlock()
		return active
	}
	allDone := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(done) == len(ids)
	}
	step := make(chan struct{})
	job := func(ctx context.Context, id string) *time.Time {
		mu.Lock()
		active++
		most = max(most, active)
		mu.Unlock()
		select {
		case <-step:
		case <-ctx.Done():
		}
		mu.Lock()
		active--
		done[id] = true
		mu.Unlock()
		return nil
	}
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Concurrency: limit, Poll: 5 * time.Millisecond, Find: find, Run: job})
	waitFor(t, "the slots to fill", 10*time.Second, func() bool { return running() == limit })
	for _, id := range ids {
		r.Kick(id) // dropped: every slot is taken
	}
	time.Sleep(100 * time.Millisecond) // twenty polls
	if n := running(); n != limit {
		t.Fatalf("%d jobs running, want %d", n, limit)
	}
	// a step is offered until every job is done: the last job to take
	// one may not have marked itself done yet when it is offered again
	last := time.Now()
	for !allDone() {
		select {
		case step <- struct{}{}:
			last = time.Now()
		case <-time.After(50 * time.Millisecond):
			if time.Since(last) > 10*time.Second {
				t.Fatal("no job took the next step")
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if most != limit {
		t.Fatalf("at most %d jobs ran at once, want %d", most, limit)
	}
	for _, n := range asked {
		if n < 1 || n > limit {
			t.Fatalf("Find asked for %d jobs (limits asked: %v)", n, asked)
		}
	}
}

// A job that returns when it is due again runs again then, not before.
func TestNextTimeRunsJobAgain(t *testing.T) {
	kind := kindOf(t)
	type run struct{ at, next time.Time }
	runs := make(chan run, 10)
	var count atomic.Int32
	job := func(_ context.Context, id string) *time.Time {
		now := time.Now()
		if count.Add(1) > 1 {
			runs <- run{at: now}
			return nil
		}
		next := now.Add(300 * time.Millisecond)
		runs <- run{at: now, next: next}
		return &next
	}
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Run: job})
	r.Kick("again")
	first := receive(t, "the first run", runs)
	second := receive(t, "the run at the returned time", runs)
	if second.at.Before(first.next) {
		t.Fatalf("ran again at %v, before the returned time %v", second.at, first.next)
	}
	select {
	case <-runs:
		t.Fatal("ran a third time after returning nil")
	case <-time.After(200 * time.Millisecond):
	}
}

// With a StopGrace, a running job keeps its context once Run's ends and
// may finish.
func TestStopGraceLetsJobsFinish(t *testing.T) {
	kind := kindOf(t)
	b, stop := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a", StopGrace: time.Minute}, "slow")
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Run returned while a job ran within its grace")
	case err := <-b.ended:
		t.Fatalf("the job's context ended (%v) within the grace", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(b.release)
	if err := receive(t, "the job's end", b.ended); err != nil {
		t.Fatalf("the job ended with cause %v, want a live context", err)
	}
	receive(t, "Run to return", stopped)
	if _, ok := leaseOf(t, kind, "slow"); ok {
		t.Fatal("the lease was not released")
	}
}

// Past StopGrace a running job is abandoned: its context ends with
// ErrStopped, and Run returns once it has.
func TestStopGraceAbandonsJobs(t *testing.T) {
	kind := kindOf(t)
	b, stop := kickBlocking(t, jobs.Config{Kind: kind, ID: "owner-a", StopGrace: 100 * time.Millisecond}, "stuck")
	stop()
	if err := receive(t, "the job's end", b.ended); err != jobs.ErrStopped {
		t.Fatalf("the job's context ended with %v, want ErrStopped", err)
	}
	if _, ok := leaseOf(t, kind, "stuck"); ok {
		t.Fatal("the lease was not released")
	}
}

// With Wake, a wake-up asks Find at once (the poll is an hour), and a
// burst of wake-ups asks it a few times, not once each.
func TestWakeAsksFind(t *testing.T) {
	kind := kindOf(t)
	var finds atomic.Int32
	wake := make(chan struct{}, 1)
	start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Wake: wake,
		Run:  func(context.Context, string) *time.Time { return nil },
		Find: func(context.Context, int) ([]string, error) { finds.Add(1); return nil, nil }})
	waitFor(t, "the first look", 5*time.Second, func() bool { return finds.Load() == 1 })
	wake <- struct{}{}
	waitFor(t, "a look after the wake-up", 5*time.Second, func() bool { return finds.Load() == 2 })
	began := time.Now()
	sent := 0
	for range 200 {
		select {
		case wake <- struct{}{}:
			sent++
		default:
		}
		time.Sleep(100 * time.Microsecond)
	}
	burst := time.Since(began)
	time.Sleep(100 * time.Millisecond)
	// one look per 50 ms of the burst, one at each end of it (the burst's
	// measured length and the spacing's clock start apart by up to a
	// scheduling delay), and one after it
	if n, most := int(finds.Load())-2, int(burst/(50*time.Millisecond))+3; n > most {
		t.Fatalf("Find asked %d times for %d wake-ups over %v (at most %d)", n, sent, burst, most)
	}
}

// A job whose owner died (its lease left to expire, no poll for an hour)
// is taken over when the lease expires: the runner set a timer on it.
func TestExpiredLeaseTakenOverWithoutPoll(t *testing.T) {
	kind := kindOf(t)
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO job_leases (kind, job_id, owner, expires_at)
		VALUES ($1, 'orphan', 'dead-owner', now() + interval '700 milliseconds')`, kind); err != nil {
		t.Fatal(err)
	}
	ran := make(chan string, 4)
	var (
		due   atomic.Bool
		finds atomic.Int32
	)
	due.Store(true)
	start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Find: findOrphan(kind, &due, &finds),
		Run: func(_ context.Context, id string) *time.Time { ran <- id; return nil }})
	began := time.Now()
	if id := receive(t, "the orphan's run", ran); id != "orphan" {
		t.Fatalf("ran %q", id)
	}
	if d := time.Since(began); d < 500*time.Millisecond {
		t.Fatalf("ran after %v, while the dead owner's lease was live", d)
	}
}

// findOrphan is a Finder of one job, orphan, due once due is set and
// whenever no live lease holds it; finds counts the calls.
func findOrphan(kind string, due *atomic.Bool, finds *atomic.Int32) jobs.Finder {
	return func(ctx context.Context, _ int) ([]string, error) {
		finds.Add(1)
		if !due.Load() {
			return nil, nil
		}
		var ids []string
		err := db.Pool.QueryRow(ctx, `SELECT coalesce(array_agg(job_id), '{}') FROM (SELECT 'orphan' AS job_id) j
			WHERE NOT EXISTS (SELECT 1 FROM job_leases l WHERE l.kind = $1 AND l.job_id = j.job_id AND l.expires_at > now())`, kind).Scan(&ids)
		return ids, err
	}
}

// A job another owner leased after the runner's last look, its owner
// dead at once (no renewal), with no poll for an hour and nothing waking
// the runner: the runner looks again within a lease, finds the lease live
// and takes the job over as it expires, not an hour later.
func TestLeaseTakenAfterTheLookTakenOverWithinALease(t *testing.T) {
	kind := kindOf(t)
	const lease = 400 * time.Millisecond
	var (
		due   atomic.Bool
		finds atomic.Int32
	)
	ran := make(chan string, 4)
	start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Lease: lease, Find: findOrphan(kind, &due, &finds),
		Run: func(_ context.Context, id string) *time.Time { ran <- id; return nil }})
	waitFor(t, "the first look", 5*time.Second, func() bool { return finds.Load() >= 1 })
	// after the look: the job is due, and another owner claims it and dies
	insertLease(t, kind, "orphan", "dead-owner", 600*time.Millisecond)
	due.Store(true)
	claimed := time.Now()
	if id := receive(t, "the orphan's run after its owner died", ran); id != "orphan" {
		t.Fatalf("ran %q", id)
	}
	d := time.Since(claimed)
	if d < 500*time.Millisecond {
		t.Fatalf("ran %v after the other owner's claim, while its lease was live", d)
	}
	// the lease expires 600 ms after the claim; a watch within a lease of
	// the claim timed it
	if most := 600*time.Millisecond + lease; d > most {
		t.Fatalf("taken over %v after the other owner's claim, want about 600 ms (its lease, timed by a look within %v)", d, lease)
	}
	t.Logf("taken over %v after the dead owner's claim (its lease 600 ms, the runner's %v)", d.Round(time.Millisecond), lease)
}

// Leases of other owners that end without their job becoming due cost no
// Find: an expired lease of a job that had ended (its owner died after
// it: nobody claims it again) is not reported at every watch, and a lease
// handed back before it expires is no expiry.
func TestLeasesThatEndQuietlyCostNoFind(t *testing.T) {
	kind := kindOf(t)
	const lease = 200 * time.Millisecond
	insertLease(t, kind, "ended", "dead-owner", -time.Second)
	var finds atomic.Int32
	start(t, jobs.Config{Kind: kind, ID: "owner-a", Poll: time.Hour, Lease: lease,
		Run:  func(context.Context, string) *time.Time { return nil },
		Find: func(context.Context, int) ([]string, error) { finds.Add(1); return nil, nil }})
	waitFor(t, "the first look", 5*time.Second, func() bool { return finds.Load() >= 1 })
	insertLease(t, kind, "released", "live-owner", 300*time.Millisecond)
	time.Sleep(lease + 50*time.Millisecond) // a watch times its expiry
	if _, err := db.Pool.Exec(context.Background(), `DELETE FROM job_leases WHERE kind = $1 AND job_id = 'released'`, kind); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if n := finds.Load(); n != 1 {
		t.Fatalf("Find asked %d times, want once (the first look): no lease of another owner expired unreleased", n)
	}
}
