package commands_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// pricedPlan is a stored-plan candidate of org costing credits: one
// content step and the 530-credit Synthesis.
func pricedPlan(orgID, desc string, credits int) workflow.Planned {
	p := planned(orgID, desc)
	p.Steps = []workflow.PlannedStep{
		{Step: 1, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: credits - 530},
		{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530},
	}
	p.TotalSteps, p.Credits = len(p.Steps), credits
	return p
}

// claimFreeRun uses up org's free first workflow.
func claimFreeRun(t *testing.T, orgID string) {
	t.Helper()
	if _, err := store.Append(context.Background(), workflow.FirstRunStream(orgID), event.NewStream,
		event.New{Data: workflow.FirstRunClaimed{WorkflowID: workflow.NewID()}, Metadata: event.Metadata{OrgID: orgID}}); err != nil {
		t.Fatal(err)
	}
}

func ledgerOf(t *testing.T, orgID string) *credit.Ledger {
	t.Helper()
	l, err := credit.Load(orgID, mustLoad(t, credit.Stream(orgID)))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestConcurrentExecutesReserveWithinTheBalance reproduces the report: 16
// executes at once on an Enterprise org holding its 2,500 signup credits.
// Each accepted run holds its estimate, so the accepted ones together fit
// the balance and the others are refused with the spendable balance at
// that moment; before reservations every one of them passed the check
// alone and most then halted for want of credits.
func TestConcurrentExecutesReserveWithinTheBalance(t *testing.T) {
	cases := []struct {
		name     string
		estimate int
		free     bool // the org's first run is still free
		accepted int
	}{
		{"first run used, 600 each", 600, false, 4},                // 4 × 600 = 2,400 of 2,500
		{"first run free, 1,850 each (the report)", 1850, true, 2}, // the free run and one reserved
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			a := signup(t, "")
			if !c.free {
				claimFreeRun(t, a.OrgID)
			}
			ids := make([]string, 16)
			for i := range ids {
				ids[i] = storePlan(t, pricedPlan(a.OrgID, fmt.Sprintf("concurrent run %d of %s", i, a.OrgID), c.estimate))
			}
			h := executor()
			var (
				wg       sync.WaitGroup
				mu       sync.Mutex
				accepted []commands.WorkflowQueued
				refused  []*commands.InsufficientCreditsError
			)
			for _, id := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "enterprise", WorkflowID: id,
						Delivery: workflow.Delivery{Method: "polling"}})
					mu.Lock()
					defer mu.Unlock()
					var short *commands.InsufficientCreditsError
					switch {
					case err == nil:
						accepted = append(accepted, res)
					case errors.As(err, &short):
						refused = append(refused, short)
					default:
						t.Errorf("execute %s: %v", id, err)
					}
				}()
			}
			wg.Wait()
			if len(accepted) != c.accepted || len(refused) != 16-c.accepted {
				t.Fatalf("%d accepted, %d refused; want %d and %d", len(accepted), len(refused), c.accepted, 16-c.accepted)
			}
			var reserved int64
			for _, q := range accepted {
				if !q.Queued.Free {
					reserved += int64(q.Planned.Credits)
				}
			}
			l := ledgerOf(t, a.OrgID)
			if l.Reserved() != reserved || reserved > credit.SignupGrant || l.Balance() != credit.SignupGrant-reserved || l.Owned() != credit.SignupGrant {
				t.Fatalf("ledger: reserved %d (accepted runs' estimates %d), spendable %d, owned %d", l.Reserved(), reserved, l.Balance(), l.Owned())
			}
			for _, q := range accepted {
				want := int64(q.Planned.Credits)
				if q.Queued.Free {
					want = 0
				}
				if got := l.Held(q.Planned.WorkflowID); got != want {
					t.Errorf("accepted %s holds %d, want %d", q.Planned.WorkflowID, got, want)
				}
			}
			for _, r := range refused {
				if r.Required != int64(c.estimate) || r.Balance >= r.Required || r.Balance < 0 {
					t.Errorf("refusal %+v: want required %d and the smaller spendable balance", r, c.estimate)
				}
			}
			queued := 0
			for _, id := range ids {
				if statusOf(t, id) == workflow.StatusQueued {
					queued++
				} else if l.Held(id) != 0 {
					t.Errorf("refused %s holds %d", id, l.Held(id))
				}
			}
			if queued != c.accepted {
				t.Fatalf("%d workflows queued, %d accepted", queued, c.accepted)
			}
		})
	}
}

// Cancel, an interactive abort and a timeout release what their run
// holds; the resume of a timed-out run reserves what remains again, and
// is refused when the spendable balance no longer covers it; an
// interactive step counts its run's reservation; nothing else may spend
// reserved credits.
func TestControlCommandsReleaseAndReserve(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	claimFreeRun(t, a.OrgID)
	execute := func(mode string) string {
		t.Helper()
		id := storePlan(t, pricedPlan(a.OrgID, "control "+workflow.NewID(), 1000))
		if _, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "enterprise", WorkflowID: id,
			Mode: mode, Delivery: workflow.Delivery{Method: "polling"}}); err != nil {
			t.Fatalf("execute: %v", err)
		}
		return id
	}
	spendable := func(want int64) {
		t.Helper()
		if l := ledgerOf(t, a.OrgID); l.Balance() != want {
			t.Fatalf("spendable balance %d (reserved %d), want %d", l.Balance(), l.Reserved(), want)
		}
	}

	// cancel releases the whole estimate
	id := execute("")
	spendable(1500)
	if _, err := commands.NewCancelWorkflowsHandler(commands.NewRepositories(store)).Handle(ctx, commands.CancelWorkflows{OrgID: a.OrgID, IDs: []string{id}, Confirm: true}); err != nil {
		t.Fatal(err)
	}
	spendable(2500)
	if l := ledgerOf(t, a.OrgID); l.Held(id) != 0 || l.Reserved() != 0 {
		t.Fatalf("cancelled run holds %d", l.Held(id))
	}

	// an interactive run: next is covered by its own reservation even
	// when nothing is spendable; abort releases it
	id = execute(workflow.ModeInteractive)
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: a.OrgID, Amount: 1500, Reason: "test_spend"}}); err != nil {
		t.Fatal(err)
	}
	spendable(0)
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: a.OrgID, Amount: 1, Reason: "test_spend"}}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("a charge spent reserved credits: %v", err)
	}
	step := commands.NewStepWorkflowHandler(commands.NewRepositories(store), time.Hour)
	if _, err := step.Handle(ctx, commands.StepWorkflow{OrgID: a.OrgID, WorkflowID: id, Action: commands.StepSkip}); err != nil {
		t.Fatalf("skip: %v", err)
	}
	if _, err := step.Handle(ctx, commands.StepWorkflow{OrgID: a.OrgID, WorkflowID: id, Action: commands.StepAbort}); err != nil {
		t.Fatalf("abort: %v", err)
	}
	spendable(1000)
	id = execute(workflow.ModeInteractive)
	spendable(0)
	if res, err := step.Handle(ctx, commands.StepWorkflow{OrgID: a.OrgID, WorkflowID: id, Action: commands.StepNext}); err != nil || res.Status != workflow.StatusStepExecuting {
		t.Fatalf("next with nothing spendable but the run's reservation: %+v %v", res, err)
	}
	if res, err := commands.NewCancelWorkflowsHandler(commands.NewRepositories(store)).Handle(ctx, commands.CancelWorkflows{OrgID: a.OrgID, IDs: []string{id}, Force: true, Confirm: true}); err != nil || len(res.Succeeded) != 1 {
		t.Fatalf("force cancel: %+v %v", res, err)
	}
	spendable(1000)

	// a timed-out interactive run releases its reservation; its resume
	// must reserve what remains again
	id = execute(workflow.ModeInteractive)
	spendable(0)
	expired := commands.NewStepWorkflowHandler(commands.NewRepositories(store), time.Nanosecond)
	time.Sleep(time.Millisecond)
	if _, err := expired.Handle(ctx, commands.StepWorkflow{OrgID: a.OrgID, WorkflowID: id, Action: commands.StepNext}); !errors.Is(err, workflow.ErrSessionExpired) {
		t.Fatalf("step past the idle limit: %v", err)
	}
	spendable(1000)
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: a.OrgID, Amount: 900, Reason: "test_spend"}}); err != nil {
		t.Fatal(err)
	}
	resume := commands.NewResumeWorkflowHandler(commands.NewRepositories(store))
	var short *commands.InsufficientCreditsError
	if _, err := resume.Handle(ctx, commands.ResumeWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: id}); !errors.As(err, &short) || short.Required != 1000 || short.Balance != 100 {
		t.Fatalf("resume without the credits: %v", err)
	}
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.GrantCredits{OrgID: a.OrgID, Amount: 900, Reason: credit.ReasonOperator}); err != nil {
		t.Fatal(err)
	}
	if _, err := resume.Handle(ctx, commands.ResumeWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: id}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if l := ledgerOf(t, a.OrgID); l.Held(id) != 1000 || l.Balance() != 0 {
		t.Fatalf("resumed run holds %d, spendable %d; want 1000 and 0", l.Held(id), l.Balance())
	}
}

// Executes and cancels of one org interleaved: each appends to the
// workflow, the ledger and the slots, in that order and under the org's
// lock (control.go), so none deadlocks or runs out of tries; once all are
// cancelled, nothing is reserved, no slot is held, and the balance is
// whole again.
func TestExecutesAndCancelsInterleave(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	claimFreeRun(t, a.OrgID)
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.GrantCredits{OrgID: a.OrgID, Amount: 100_000, Reason: credit.ReasonOperator}); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 24)
	for i := range ids {
		ids[i] = storePlan(t, pricedPlan(a.OrgID, fmt.Sprintf("interleaved %d of %s", i, a.OrgID), 1000))
	}
	execute, cancel := executor(), commands.NewCancelWorkflowsHandler(commands.NewRepositories(store))
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := execute.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "enterprise", WorkflowID: id,
				Delivery: workflow.Delivery{Method: "polling"}}); err != nil {
				t.Errorf("execute %s: %v", id, err)
				return
			}
			res, err := cancel.Handle(ctx, commands.CancelWorkflows{OrgID: a.OrgID, IDs: []string{id}, Confirm: true})
			if err != nil || len(res.Succeeded) != 1 {
				t.Errorf("cancel %s: %+v %v", id, res, err)
			}
		}()
	}
	wg.Wait()
	l := ledgerOf(t, a.OrgID)
	if l.Reserved() != 0 || l.Balance() != 102_500 {
		t.Fatalf("after every run was cancelled: reserved %d, spendable %d", l.Reserved(), l.Balance())
	}
	slots := workflow.NewSlots()
	if err := event.Fold(slots, mustLoad(t, workflow.SlotsStream(a.OrgID))); err != nil {
		t.Fatal(err)
	}
	if held := slots.Active(); len(held) != 0 {
		t.Fatalf("slots still held: %v", held)
	}
}
