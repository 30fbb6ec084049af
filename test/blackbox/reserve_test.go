package blackbox

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestConcurrentExecutesAreReserved reproduces the report that led to
// reservations (decision 34): 16 executes at once on an Enterprise org
// holding its 2,500 signup credits, each estimated well above a sixteenth
// of them. Before, execute checked each estimate against the balance alone:
// several were accepted, then halted with insufficient_credits, and the
// customer paid for steps that made no deliverable. Now an accepted run
// holds its estimate: the accepted ones together fit the balance, every
// one of them completes, the others are answered 402 with the spendable
// balance, and the final balance is the grant less exactly what the
// completed runs were charged, nothing left reserved.
func TestConcurrentExecutesAreReserved(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.setTier(t, a, "enterprise")

	type answer struct {
		res *response
		err error
	}
	answers := make([]answer, 16)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.try(req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key,
				Body: process(fmt.Sprintf("reserved run %d %s", i, randomHex(4)), map[string]any{"delivery": polling})})
			answers[i] = answer{res, err}
		}()
	}
	wg.Wait()

	type run struct {
		id   string
		est  int64
		free bool
	}
	var (
		accepted []run
		refused  int
		reserved int64
	)
	for i, an := range answers {
		if an.err != nil {
			t.Fatalf("execute %d: %v", i, an.err)
		}
		switch an.res.Status {
		case http.StatusOK:
			id, est := wantQueued(t, s, an.res, "polling")
			r := run{id: id, est: est, free: boolean(t, an.res.Body, "free")}
			if !r.free {
				reserved += est
			}
			accepted = append(accepted, r)
		case http.StatusPaymentRequired:
			wantError(t, an.res, http.StatusPaymentRequired, "insufficient_credits")
			details := object(t, object(t, an.res.Body, "error"), "details")
			required, balance := integer(t, details, "required_credits"), integer(t, details, "balance")
			if required <= 0 || balance < 0 || balance >= required {
				t.Errorf("402 details %v: want the spendable balance, below the estimate", details)
			}
			refused++
		default:
			t.Fatalf("execute %d answered %d %s", i, an.res.Status, an.res.Raw)
		}
	}
	if len(accepted) < 2 || refused == 0 || len(accepted)+refused != 16 {
		t.Fatalf("%d accepted, %d refused: want the free run, at least one reserved run, and refusals", len(accepted), refused)
	}
	if reserved > 2500 {
		t.Fatalf("the accepted runs reserved %d credits of 2,500", reserved)
	}
	t.Logf("%d accepted (%d credits reserved), %d refused", len(accepted), reserved, refused)

	// every accepted run completes and is charged its estimate (the free
	// one nothing); none halts for want of credits
	var charged int64
	for _, r := range accepted {
		wf := s.waitTerminal(t, a.Key, r.id, 90*time.Second)
		if wf["status"] != "completed" {
			t.Fatalf("accepted run %s ended %v (halt_reason %v)", r.id, wf["status"], wf["halt_reason"])
		}
		used := integer(t, wf, "credits_used")
		if want := r.est; (r.free && used != 0) || (!r.free && used != want) {
			t.Errorf("run %s: credits_used %d, estimate %d, free %v", r.id, used, r.est, r.free)
		}
		charged += used
	}

	// the balance is the grant less what the completed runs were charged,
	// nothing is left reserved, and the log agrees with the read model
	s.waitSettled(t, a.Key, 2500-charged)
	replayBilling(t, s.dbURL, a.OrgID)
	events := s.settledEvents(t, a)
	if n, want := countEvents(events, "CreditsReserved"), len(accepted)-1; n != want {
		t.Errorf("%d reservations, want %d (every accepted run but the free one)", n, want)
	}
	if n := countEvents(events, "WorkflowHalted"); n != 0 {
		t.Errorf("%d runs halted", n)
	}
}

// The balance answer shows what accepted runs hold: right after an execute
// the spendable balance is the grant less the estimate, and reserved the
// estimate; once the run ends, nothing is reserved.
func TestBalanceShowsReserved(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	// the first run is free and reserves nothing
	first, _ := wantQueued(t, s, s.execute(t, a.Key, process("first of reserved "+randomHex(4), map[string]any{"delivery": polling})), "polling")
	s.waitTerminal(t, a.Key, first, 60*time.Second)
	s.grant(t, a, 5000)
	res := s.execute(t, a.Key, process("reserved balance "+randomHex(4), map[string]any{"delivery": polling}))
	id, est := wantQueued(t, s, res, "polling")
	bal := s.do(t, req{Path: "/api/billing/balance", Key: a.Key})
	wantStatus(t, bal, http.StatusOK)
	b, r := checkBalanceBody(t, bal), integer(t, bal.Body, "reserved")
	// the run may already have charged steps, from its reservation: what
	// it holds and what it spent add up to its estimate
	if r < 0 || r > est || b != 7500-est {
		t.Errorf("right after execute: balance %d reserved %d, want balance %d and at most %d reserved", b, r, 7500-est, est)
	}
	wf := s.waitTerminal(t, a.Key, id, 60*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("run %v", wf)
	}
	s.waitSettled(t, a.Key, 7500-integer(t, wf, "credits_used"))
}

// waitSettled waits until the balance answer says balance want and nothing
// reserved. Both are needed: a reserved run's charges draw on its
// reservation, so the spendable balance reaches its final figure before
// the run's settlement is projected.
func (s *server) waitSettled(t testing.TB, key string, want int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res := s.do(t, req{Path: "/api/billing/balance", Key: key})
		wantStatus(t, res, http.StatusOK)
		b, r := checkBalanceBody(t, res), integer(t, res.Body, "reserved")
		if b == want && r == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("balance %d reserved %d, want %d and 0 once every run has ended", b, r, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
