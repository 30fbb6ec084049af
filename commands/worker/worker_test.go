package worker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/offline"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
	"svc/test/fakellm"
)

// 1. The happy path: the org's first workflow runs free, the second is
// charged its estimate exactly (per-step charges and the fee).
func TestHappyPathFreeThenCharged(t *testing.T) {
	o := newOrg(t)
	free := queue(t, o, "blog_post", planOpts{})
	charged := queue(t, o, "blog_post", planOpts{})
	runs := runAll(t, offline.New(), free, charged)

	// the free first run
	v, l := checkRun(t, o.ID, runs[0])
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != 0 || v.CreditsLive != 0 || !runs[0].Free() {
		t.Fatalf("free run: status %s credits_used %d live %d free %v", v.Status, v.CreditsUsed, v.CreditsLive, runs[0].Free())
	}
	if l.net != 0 || len(l.fees) != 0 {
		t.Fatalf("free run charged: %+v", l)
	}
	done := ofType[workflow.Completed](t, load(t, workflow.Stream(free.WorkflowID)), workflow.EventCompleted)
	if len(done) != 1 || !done[0].Free || done[0].Fee != 0 || done[0].CreditsUsed != 0 {
		t.Fatalf("free completion %+v", done)
	}

	// the charged run
	wf := runs[1]
	v, l = checkRun(t, o.ID, wf)
	fee := feeOf(t, charged)
	if v.Status != workflow.StatusCompleted || v.Error != nil {
		t.Fatalf("status %s error %v", v.Status, v.Error)
	}
	if v.CreditsUsed != charged.Credits || v.CreditsLive != charged.Credits-fee || v.EstimatedCredits != charged.Credits {
		t.Fatalf("credits_used %d live %d, estimate %d fee %d", v.CreditsUsed, v.CreditsLive, charged.Credits, fee)
	}
	if len(l.stepCharges) != len(charged.Steps)-1 || len(l.fees) != 1 || l.fees[0] != int64(fee) || l.net != int64(charged.Credits) {
		t.Fatalf("ledger %+v for %d steps", l, len(charged.Steps))
	}
	for _, s := range charged.Steps {
		if s.Kind != workflow.KindSynthesis && (len(l.stepCharges[s.Step]) != 1 || l.stepCharges[s.Step][0] != int64(s.Credits)) {
			t.Errorf("step %d (%s) charged %v, estimate %d", s.Step, s.Name, l.stepCharges[s.Step], s.Credits)
		}
	}
	if v.QualityScore == nil || *v.QualityScore < 0 || *v.QualityScore > 100 || v.QualityReview == nil || v.QualityReview.Summary == "" {
		t.Fatalf("quality %v %+v", v.QualityScore, v.QualityReview)
	}
	if v.Deliverable == nil || len(v.Deliverable.Sections) == 0 || v.Deliverable.Title == "" {
		t.Fatalf("deliverable %+v", v.Deliverable)
	}
	if v.ActualStepsExecuted != v.TotalSteps || len(v.CompletedStepSummaries) != v.TotalSteps || v.IncompleteCount != 0 || len(v.IncompleteSteps) != 0 {
		t.Fatalf("steps: actual %d summaries %d incomplete %d/%v of %d", v.ActualStepsExecuted, len(v.CompletedStepSummaries), v.IncompleteCount, v.IncompleteSteps, v.TotalSteps)
	}
	if v.StartedAt == nil || v.CompletedAt == nil || v.CurrentStep != v.TotalSteps {
		t.Fatalf("started %v completed %v current_step %d", v.StartedAt, v.CompletedAt, v.CurrentStep)
	}

	events := load(t, workflow.Stream(charged.WorkflowID))
	want := []string{workflow.EventPlanned, workflow.EventQueued, workflow.EventStarted}
	for range charged.Steps {
		want = append(want, workflow.EventStepStarted, workflow.EventStepCompleted)
	}
	want = append(want, workflow.EventReviewStarted, workflow.EventReviewed, workflow.EventCompleted)
	if got := types(events); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		if len(c.Calls) != 1 || c.Calls[0].PromptTokens <= 0 || c.Calls[0].CompletionTokens <= 0 || c.Calls[0].Model == "" || c.Calls[0].Provider == "" || c.Calls[0].Attempts != 1 {
			t.Errorf("step %d calls %+v", c.Step, c.Calls)
		}
		if c.Summary == "" || (c.Kind != workflow.KindSynthesis && len(c.Sections) == 0) || (c.Kind == workflow.KindSynthesis) != (c.Deliverable != nil) {
			t.Errorf("step %d result: summary %q, %d sections, deliverable %v", c.Step, c.Summary, len(c.Sections), c.Deliverable != nil)
		}
	}
	started := ofType[workflow.Started](t, events, workflow.EventStarted)
	if len(started) != 1 || started[0].Resumed || started[0].Worker == "" {
		t.Fatalf("started %+v", started)
	}
	done = ofType[workflow.Completed](t, events, workflow.EventCompleted)
	if done[0].Fee != fee || done[0].CreditsUsed != charged.Credits || done[0].Estimated != charged.Credits || done[0].Partial || done[0].Free {
		t.Fatalf("completion %+v", done[0])
	}
	// the worker hands the lease back just after the terminal event
	for deadline := time.Now().Add(10 * time.Second); leaseOwner(t, charged.WorkflowID) != ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("lease row left behind")
		}
	}

	// the read model (which status answers) catches up with the stream
	waitFor(t, "the workflows read model", 10*time.Second, func() bool {
		row, err := projections.Workflow(context.Background(), testDB.Pool, o.ID, charged.WorkflowID)
		return err == nil && row.View.Status == workflow.StatusCompleted && row.View.CreditsUsed == charged.Credits &&
			row.View.QualityScore != nil && *row.View.QualityScore == *v.QualityScore
	})
}

// 2. A content step whose provider always errs fails the workflow; every
// per-step charge is refunded and the slot released.
func TestProviderErrorsFailAndRefund(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	failing := stepNamed(t, p, "Content Outline")
	if failing.Step != 2 || failing.Kind != workflow.KindContent {
		t.Fatalf("plan changed: %+v", p.Steps)
	}
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=Content Outline", Status: http.StatusInternalServerError})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusFailed || v.CreditsUsed != 0 || v.CreditsLive != 0 || v.QualityScore != nil || v.Deliverable != nil {
		t.Fatalf("status %s credits_used %d live %d score %v", v.Status, v.CreditsUsed, v.CreditsLive, v.QualityScore)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	failed := ofType[workflow.Failed](t, events, workflow.EventFailed)
	first := p.Steps[0].Credits
	if len(failed) != 1 || failed[0].Code != "provider_exhausted" || failed[0].Step != 2 || failed[0].Refunded != first {
		t.Fatalf("failed %+v (step 1 cost %d)", failed, first)
	}
	if v.Error == nil || !strings.Contains(*v.Error, "provider_exhausted") || strings.Contains(*v.Error, "127.0.0.1") || !strings.Contains(failed[0].Cause, "500") {
		t.Fatalf("error %v, cause %q", v.Error, failed[0].Cause)
	}
	if l.net != 0 || sum(l.refunds) != int64(first) || len(l.stepCharges) != 1 || len(l.fees) != 0 {
		t.Fatalf("ledger %+v", l)
	}
	if n := fake.Calls("framework=Content Outline"); n != 2 {
		t.Fatalf("%d calls for the failing step, want 2 (retried once)", n)
	}
	if fake.Calls("kind=synthesis")+fake.Calls("kind=review") != 0 {
		t.Fatalf("the run went on after the failure")
	}
	if balance(t, o.ID) != 2500 {
		t.Fatalf("balance %d after a refunded run", balance(t, o.ID))
	}
}

// 3. The primary provider fails on every call; the fallback answers.
func TestFallbackProviderCompletes(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "quick_research", planOpts{})
	primary, secondary := newFake(t), newFake(t)
	primary.AddRule(fakellm.Rule{Status: http.StatusServiceUnavailable})
	wf := runAll(t, fakeProvider(t, primary, 0, openAIAt(t, secondary, 0)), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || l.net != int64(p.Credits) {
		t.Fatalf("status %s credits_used %d (estimate %d)", v.Status, v.CreditsUsed, p.Credits)
	}
	if v.QualityScore == nil || *v.QualityScore != fakellm.DefaultReviewScore {
		t.Fatalf("quality score %v", v.QualityScore)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		if len(c.Calls) != 1 || !c.Calls[0].Fallback || c.Calls[0].Attempts != 3 || !strings.HasPrefix(secondary.URL(), "http://"+c.Calls[0].Provider) {
			t.Errorf("step %d calls %+v (fallback %s)", c.Step, c.Calls, secondary.URL())
		}
	}
	rev := ofType[workflow.Reviewed](t, events, workflow.EventReviewed)
	if len(rev) != 1 || len(rev[0].Calls) != 1 || !rev[0].Calls[0].Fallback {
		t.Fatalf("review %+v", rev)
	}
	if n, want := primary.Calls(""), 2*(len(p.Steps)+1); n != want {
		t.Fatalf("primary saw %d calls, want %d", n, want)
	}
}

// 4. Malformed answers are retried and then treated as a provider failure.
func TestMalformedAnswersFail(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=Content Outline", Malformed: true})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	failed := ofType[workflow.Failed](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventFailed)
	if v.Status != workflow.StatusFailed || len(failed) != 1 || failed[0].Code != "provider_exhausted" || failed[0].Step != 2 {
		t.Fatalf("status %s failed %+v", v.Status, failed)
	}
	if !strings.Contains(failed[0].Cause, "malformed") {
		t.Fatalf("cause %q does not say the answer was malformed", failed[0].Cause)
	}
	if v.CreditsUsed != 0 || l.net != 0 || failed[0].Refunded != p.Steps[0].Credits {
		t.Fatalf("credits_used %d ledger %+v failed %+v", v.CreditsUsed, l, failed[0])
	}
	if n := fake.Calls("framework=Content Outline"); n != 2 {
		t.Fatalf("%d calls for the malformed step, want 2", n)
	}
}

// 5. A required research step lost: the run goes on, ends
// completed_partial without the fee, and still gets a quality score.
func TestRequiredResearchStepLost(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "competitive_analysis", planOpts{})
	lost := stepNamed(t, p, "Competitor Matrix")
	if lost.Kind != workflow.KindResearch || lost.PriorityClass != "must" || lost.Step == len(p.Steps) {
		t.Fatalf("plan changed: %+v", p.Steps)
	}
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=Competitor Matrix", Status: http.StatusBadGateway})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	fee := feeOf(t, p)
	if v.Status != workflow.StatusCompletedPartial {
		t.Fatalf("status %s", v.Status)
	}
	if len(v.IncompleteSteps) != 1 || v.IncompleteSteps[0].StepIndex != lost.Step-1 || v.IncompleteSteps[0].Framework != lost.Name {
		t.Fatalf("incomplete_steps %+v", v.IncompleteSteps)
	}
	reason := v.IncompleteSteps[0].Reason
	if !strings.Contains(reason, lost.Name) || !strings.HasSuffix(reason, ".") || len(strings.Fields(reason)) < 5 {
		t.Fatalf("reason is not a sentence naming the step: %q", reason)
	}
	if v.Error == nil || !strings.Contains(*v.Error, lost.Name) {
		t.Fatalf("error %v", v.Error)
	}
	if len(l.fees) != 0 || v.CreditsUsed != p.Credits-fee-lost.Credits || l.net != int64(v.CreditsUsed) {
		t.Fatalf("credits_used %d ledger %+v (estimate %d, fee %d, lost %d)", v.CreditsUsed, l, p.Credits, fee, lost.Credits)
	}
	if v.QualityScore == nil || v.Deliverable == nil {
		t.Fatalf("score %v deliverable %v", v.QualityScore, v.Deliverable)
	}
	if v.ActualStepsExecuted != v.TotalSteps-1 || v.IncompleteCount != 1 {
		t.Fatalf("actual %d incomplete %d of %d", v.ActualStepsExecuted, v.IncompleteCount, v.TotalSteps)
	}
	// the later steps ran for real, and without the lost step's findings
	events := load(t, workflow.Stream(p.WorkflowID))
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		if c.Step == lost.Step || len(c.Calls) != 1 || c.Calls[0].Provider == "" {
			t.Errorf("step %d: %+v", c.Step, c.Calls)
		}
	}
	for _, r := range fake.Requests() {
		if r.Kind == llm.KindStep && r.Framework != lost.Name && strings.Contains(r.Messages[1].Content, "Step "+itoa(lost.Step)+": "+lost.Name) {
			t.Errorf("%s was given the lost step as an earlier step", r.Framework)
		}
	}
	done := ofType[workflow.Completed](t, events, workflow.EventCompleted)
	if done[0].Fee != 0 || !done[0].Partial {
		t.Fatalf("completion %+v", done[0])
	}
}

// 6. The terminal ladder: Synthesis times out on every attempt; the run
// retries compressed, then chunked, then salvages, and pays the fee.
func TestTerminalLadderSalvages(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	synth := stepOfKind(t, p, workflow.KindSynthesis)
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "kind=synthesis", Delay: 10 * time.Second})
	wf := runAll(t, fakeProvider(t, fake, 400*time.Millisecond, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	events := load(t, workflow.Stream(p.WorkflowID))
	retrying := ofType[workflow.TerminalRetrying](t, events, workflow.EventTerminalRetrying)
	var strategies []string
	for i, r := range retrying {
		strategies = append(strategies, r.Strategy)
		if r.StepIndex != synth.Step-1 || r.StepName != synth.Name || r.Attempt != i+2 || r.MaxAttempts != workflow.TerminalMaxAttempts || r.Message == "" {
			t.Errorf("retrying %d: %+v", i, r)
		}
	}
	if strings.Join(strategies, ",") != "compressed,chunked,salvage" {
		t.Fatalf("strategies %v", strategies)
	}
	// attempt 1 normal, 2 compressed, 3 chunked: the first chunk tried twice
	var starts, chunks []string
	for _, s := range stepStarts(t, events, synth.Step) {
		starts = append(starts, itoa(s.Attempt)+s.Strategy)
		if s.Chunk != nil {
			chunks = append(chunks, itoa(s.Chunk.Index)+"/"+itoa(s.Chunk.Total))
		}
	}
	if len(starts) < 4 || starts[0] != "1" || starts[1] != "2compressed" || starts[len(starts)-1] != "3chunked" || strings.Join(chunks, ",") != "0/2,0/2" {
		t.Fatalf("synthesis starts %q, chunks %q", starts, chunks)
	}
	if n := fake.Calls("kind=synthesis"); n != 2+2+4 {
		t.Fatalf("%d synthesis calls, want 8 (2 normal, 2 compressed, 2x2 first chunk)", n)
	}
	if fake.Calls("kind=synthesis step="+itoa(synth.Step)+"/"+itoa(len(p.Steps))+" strategy=compressed") != 2 {
		t.Fatalf("compressed calls: %d", fake.Calls("strategy=compressed"))
	}

	if v.Status != workflow.StatusCompletedPartial {
		t.Fatalf("status %s", v.Status)
	}
	want := []workflow.Incomplete{{StepIndex: synth.Step - 1, Framework: "Synthesis", Reason: workflow.ReasonBudgetExhausted}}
	if len(v.IncompleteSteps) != 1 || v.IncompleteSteps[0] != want[0] {
		t.Fatalf("incomplete_steps %+v", v.IncompleteSteps)
	}
	if v.Deliverable == nil || len(v.Deliverable.Sections) != len(p.Steps)-1 {
		t.Fatalf("salvaged deliverable %+v", v.Deliverable)
	}
	for i, s := range v.Deliverable.Sections {
		if s.Heading != p.Steps[i].Name || s.Content == "" {
			t.Errorf("salvaged section %d: %q", i, s.Heading)
		}
	}
	if len(l.fees) != 1 || l.fees[0] != int64(synth.Credits) || v.CreditsUsed != p.Credits {
		t.Fatalf("credits_used %d ledger %+v", v.CreditsUsed, l)
	}
	if v.QualityScore == nil || v.Error == nil || v.TerminalStepAttempts != 3 || v.TerminalStepStrategy != "" {
		t.Fatalf("score %v error %v attempts %d strategy %q", v.QualityScore, v.Error, v.TerminalStepAttempts, v.TerminalStepStrategy)
	}
}

// 7a. A content step over its time budget is run again in chunks; they
// succeed and the step completes as chunked.
func TestContentTimeoutChunksSucceed(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	slow := stepNamed(t, p, "Content Outline")
	fake := newFake(t)
	// chunked calls answer at once; the normal call of the step stalls
	fake.AddRule(fakellm.Rule{Match: "strategy=chunked"})
	fake.AddRule(fakellm.Rule{Match: "framework=Content Outline", Delay: 10 * time.Second})
	wf := runAll(t, fakeProvider(t, fake, 400*time.Millisecond, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || len(l.fees) != 1 {
		t.Fatalf("status %s credits_used %d ledger %+v", v.Status, v.CreditsUsed, l)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	var res workflow.StepCompleted
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		if c.Step == slow.Step {
			res = c
		}
	}
	if res.Strategy != workflow.StrategyChunked || len(res.Calls) != 2 || len(res.Sections) != len(frameworks.Headings(slow.Name)) || res.Credits != slow.Credits {
		t.Fatalf("chunked result %+v (headings %v)", res, frameworks.Headings(slow.Name))
	}
	starts := stepStarts(t, events, slow.Step)
	if len(starts) != 3 || starts[0].Strategy != "" || starts[1].Chunk == nil || starts[1].Chunk.Index != 0 || starts[2].Chunk == nil || starts[2].Chunk.Index != 1 || starts[2].Chunk.Total != 2 {
		t.Fatalf("starts %+v", starts)
	}
	if n := fake.Calls("framework=Content Outline step=2/4 strategy=chunked"); n != 2 {
		t.Fatalf("%d chunk calls", n)
	}
}

// 7b. When the chunks time out too, the step is abandoned: completed_partial
// without a deliverable, later steps not reached, no fee.
func TestContentTimeoutChunksAbandoned(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	slow := stepNamed(t, p, "Content Outline")
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=Content Outline", Delay: 10 * time.Second})
	wf := runAll(t, fakeProvider(t, fake, 400*time.Millisecond, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompletedPartial || v.Deliverable != nil || v.QualityScore != nil {
		t.Fatalf("status %s deliverable %v score %v", v.Status, v.Deliverable, v.QualityScore)
	}
	want := []workflow.Incomplete{{StepIndex: slow.Step - 1, Framework: slow.Name, Reason: workflow.ReasonChunksAbandoned}}
	for _, s := range p.Steps[slow.Step:] {
		want = append(want, workflow.Incomplete{StepIndex: s.Step - 1, Framework: s.Name, Reason: workflow.ReasonNotReached})
	}
	if len(v.IncompleteSteps) != len(want) {
		t.Fatalf("incomplete_steps %+v, want %+v", v.IncompleteSteps, want)
	}
	for i := range want {
		if v.IncompleteSteps[i] != want[i] {
			t.Fatalf("incomplete_steps %+v, want %+v", v.IncompleteSteps, want)
		}
	}
	if len(l.fees) != 0 || v.CreditsUsed != p.Steps[0].Credits {
		t.Fatalf("credits_used %d ledger %+v", v.CreditsUsed, l)
	}
	if v.Error == nil || v.ActualStepsExecuted != 1 || v.IncompleteCount != v.TotalSteps-1 {
		t.Fatalf("error %v actual %d incomplete %d", v.Error, v.ActualStepsExecuted, v.IncompleteCount)
	}
	if fake.Calls("kind=review")+fake.Calls("kind=synthesis") != 0 {
		t.Fatalf("the run went on after abandoning a step")
	}
	if n := fake.Calls("framework=Content Outline step=2/4 strategy=chunked chunk=0/2"); n != 4 {
		t.Fatalf("%d calls for the first chunk, want 4 (2 tries of 2 attempts)", n)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	if n := len(ofType[workflow.Reviewed](t, events, workflow.EventReviewed)); n != 0 {
		t.Fatalf("%d reviews of a run without deliverable", n)
	}
}

// 8. A connection that does not answer halts the run before the step
// that needs external context: halt fields, four resolution options, the
// remaining estimate saved, the slot released.
func TestHaltOnConnectionFailure(t *testing.T) {
	o := newPayingOrg(t)
	down := httptest.NewServer(httpStatus(http.StatusServiceUnavailable))
	defer down.Close()
	healthy := httptest.NewServer(httpStatus(http.StatusOK))
	defer healthy.Close()
	conns := []planning.Connection{
		{ID: "repo", Label: "Source repository", ServerURL: closedURL(t)},
		{ID: "docs", Label: "Design docs", ServerURL: down.URL},
		{ID: "wiki", Label: "Wiki", ServerURL: healthy.URL},
	}
	p := queue(t, o, "security_audit", planOpts{connections: conns})
	var blocking workflow.PlannedStep
	for _, s := range p.Steps {
		if s.NeedsContext {
			blocking = s
			break
		}
	}
	if blocking.Step < 2 || len(p.Connections) != 3 {
		t.Fatalf("want a plan whose first context step comes later: %+v", p.Steps)
	}
	fake := newFake(t)
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusHalted || v.HaltReason != "connection_failure" || v.HaltedAtStep == nil || *v.HaltedAtStep != blocking.Step {
		t.Fatalf("status %s reason %q at %v", v.Status, v.HaltReason, v.HaltedAtStep)
	}
	if len(v.BlockingIssues) != 2 || !strings.Contains(v.BlockingIssues[0], "Source repository") || !strings.Contains(v.BlockingIssues[1], "Design docs") ||
		!strings.Contains(v.BlockingIssues[1], "503") {
		t.Fatalf("blocking issues %q", v.BlockingIssues)
	}
	if len(v.ResolutionOptions) != 4 || !strings.Contains(v.ResolutionOptions[0], blocking.Name) || !strings.Contains(v.ResolutionOptions[0], "skip_frameworks") ||
		!strings.Contains(v.ResolutionOptions[1], "refresh_connections") || !strings.Contains(v.ResolutionOptions[2], "additional_context") || !strings.Contains(v.ResolutionOptions[3], "prior_workflow_id") {
		t.Fatalf("resolution options %q", v.ResolutionOptions)
	}
	spent, remaining := 0, 0
	for _, s := range p.Steps {
		if s.Step < blocking.Step {
			spent += s.Credits
		} else {
			remaining += s.Credits // the Synthesis step's estimate is the fee
		}
	}
	if v.CreditsSavedByHalt == nil || *v.CreditsSavedByHalt != remaining || remaining+spent != p.Credits {
		t.Fatalf("credits_saved_by_halt %v, want %d", v.CreditsSavedByHalt, remaining)
	}
	if v.CreditsUsed != spent || l.net != int64(spent) || len(l.fees) != 0 || v.QualityScore != nil || v.Deliverable != nil {
		t.Fatalf("credits_used %d ledger %+v, want %d", v.CreditsUsed, l, spent)
	}
	if v.ActualStepsExecuted != blocking.Step-1 || v.Error == nil {
		t.Fatalf("actual %d error %v", v.ActualStepsExecuted, v.Error)
	}
	if n := len(stepStarts(t, load(t, workflow.Stream(p.WorkflowID)), blocking.Step)); n != 0 || fake.Calls("framework="+blocking.Name) != 0 {
		t.Fatalf("the blocking step was started (%d)", n)
	}

	// with every connection answering, the same plan runs through
	p2 := plan(t, o, "security_audit", planOpts{connections: conns[2:]})
	grant(t, o.ID, int64(p2.Credits))
	execute(t, o, p2)
	wf = runAll(t, fakeProvider(t, fake, 0, nil), p2)[0]
	if v, _ := checkRun(t, o.ID, wf); v.Status != workflow.StatusCompleted || v.CreditsUsed != p2.Credits {
		t.Fatalf("healthy connection: status %s credits_used %d", v.Status, v.CreditsUsed)
	}
}

// 9a. A run queued before reservations (it holds none): the balance is
// spent elsewhere while step 1 runs, and the run halts with
// insufficient_credits instead of overdrawing.
func TestHaltOnInsufficientCredits(t *testing.T) {
	o := newPayingOrg(t)
	p := queueUnreserved(t, o, "blog_post", planOpts{})
	first := p.Steps[0]
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + first.Name, Delay: time.Second, Times: 1})
	w, _ := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{})
	w.Kick(p.WorkflowID)
	waitFor(t, "step 1's call", 10*time.Second, func() bool { return fake.Calls("framework="+first.Name) > 0 })
	spend(t, o.ID, balance(t, o.ID)) // all of it, while step 1 runs
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusHalted || v.HaltReason != "insufficient_credits" || v.HaltedAtStep == nil || *v.HaltedAtStep != first.Step {
		t.Fatalf("status %s reason %q at %v", v.Status, v.HaltReason, v.HaltedAtStep)
	}
	if v.CreditsUsed != 0 || l.net != 0 || v.CreditsSavedByHalt == nil || *v.CreditsSavedByHalt != p.Credits || len(v.BlockingIssues) != 1 || len(v.ResolutionOptions) != 4 {
		t.Fatalf("credits_used %d saved %v issues %q ledger %+v", v.CreditsUsed, v.CreditsSavedByHalt, v.BlockingIssues, l)
	}
	if b := balance(t, o.ID); b != 0 {
		t.Fatalf("balance %d", b)
	}
	if n := len(ofType[workflow.StepCompleted](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventStepCompleted)); n != 0 {
		t.Fatalf("%d steps recorded without their charge", n)
	}
}

// 9b. A run queued before reservations: the balance no longer covers the
// fee when the run ends, and the fee is waived rather than holding the
// deliverable back.
func TestFeeWaivedWhenBalanceSpent(t *testing.T) {
	o := newPayingOrg(t)
	p := queueUnreserved(t, o, "blog_post", planOpts{})
	fee := feeOf(t, p)
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "kind=synthesis", Delay: time.Second, Times: 1})
	w, _ := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{})
	w.Kick(p.WorkflowID)
	waitFor(t, "the synthesis call", 10*time.Second, func() bool { return fake.Calls("kind=synthesis") > 0 })
	spend(t, o.ID, balance(t, o.ID)-int64(fee)+1)
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.Deliverable == nil || len(l.fees) != 0 || v.CreditsUsed != p.Credits-fee {
		t.Fatalf("status %s credits_used %d ledger %+v", v.Status, v.CreditsUsed, l)
	}
	done := ofType[workflow.Completed](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventCompleted)
	if done[0].Fee != 0 || done[0].CreditsUsed != p.Credits-fee {
		t.Fatalf("completion %+v", done[0])
	}
	if b := balance(t, o.ID); b != int64(fee)-1 {
		t.Fatalf("balance %d", b)
	}
}

// 9c. The run holds its estimate from execute on: the whole spendable
// balance is spent elsewhere while step 1 runs, and the run still
// completes, charged exactly its steps and its fee, every one drawn on its
// reservation; the rest of the balance is untouched.
func TestReservedRunCompletesWhenBalanceSpent(t *testing.T) {
	o := newPayingOrg(t)
	grant(t, o.ID, 1000)
	p := queue(t, o, "blog_post", planOpts{})
	if b := balance(t, o.ID); b != 3500-int64(p.Credits) {
		t.Fatalf("spendable balance %d after execute, want %d (the estimate %d reserved)", b, 3500-p.Credits, p.Credits)
	}
	first := p.Steps[0]
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + first.Name, Delay: time.Second, Times: 1})
	w, _ := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{})
	w.Kick(p.WorkflowID)
	waitFor(t, "step 1's call", 10*time.Second, func() bool { return fake.Calls("framework="+first.Name) > 0 })
	spent := balance(t, o.ID)
	spend(t, o.ID, spent) // all that is spendable, while step 1 runs
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || len(l.fees) != 1 || l.net != int64(p.Credits) {
		t.Fatalf("status %s (%s) credits_used %d ledger %+v, want completed with %d charged", v.Status, v.HaltReason, v.CreditsUsed, l, p.Credits)
	}
	ledger, err := credit.Load(o.ID, load(t, credit.Stream(o.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if ledger.Balance() != 0 || ledger.Reserved() != 0 || ledger.Owned() != 3500-spent-int64(p.Credits) {
		t.Fatalf("balance %d reserved %d owned %d, want 0, 0 and %d", ledger.Balance(), ledger.Reserved(), ledger.Owned(), 3500-spent-int64(p.Credits))
	}
	for _, c := range ofType[credit.Charged](t, load(t, credit.Stream(o.ID)), credit.EventCharged) {
		if c.WorkflowID == p.WorkflowID && c.FromReservation != c.Amount {
			t.Errorf("charge %+v not drawn on the reservation", c)
		}
	}
}

// 9d. What a run does not spend is released with its terminal event: a
// run that fails (refunded) and one that halts (connection) leave the
// spendable balance as if they had never reserved; and the ledger's
// reservation and settlement events are where they belong.
func TestReservationReleasedAtEveryEnd(t *testing.T) {
	o := newPayingOrg(t)
	grant(t, o.ID, 10000)
	p := queue(t, o, "blog_post", planOpts{})
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=Content Outline", Status: http.StatusInternalServerError})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]
	if v, _ := checkRun(t, o.ID, wf); v.Status != workflow.StatusFailed {
		t.Fatalf("status %s", v.Status)
	}
	if b := balance(t, o.ID); b != 12500 {
		t.Fatalf("spendable balance %d after a failed (refunded) run, want 12500", b)
	}
	events := load(t, credit.Stream(o.ID))
	reserved := ofType[credit.Reserved](t, events, credit.EventReserved)
	settled := ofType[credit.Settled](t, events, credit.EventSettled)
	if len(reserved) != 1 || reserved[0].Amount != int64(p.Credits) || len(settled) != 1 || settled[0].Reason != workflow.EventFailed ||
		settled[0].Released != int64(p.Credits-p.Steps[0].Credits) {
		t.Fatalf("reserved %+v settled %+v (estimate %d, step 1 %d)", reserved, settled, p.Credits, p.Steps[0].Credits)
	}
}

// 10a. A worker dies mid-step (its database connections gone, its lease
// left behind): another worker takes the run over once the lease expires,
// runs the interrupted step again, and charges nothing twice.
func TestLeaseTakeoverAfterCrash(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	second := p.Steps[1]
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + second.Name, Delay: 5 * time.Second, Times: 1})

	// worker A has a pool of its own, closed under it to simulate a crash
	poolA, err := eventstore.Connect(context.Background(), testDB.URL)
	if err != nil {
		t.Fatal(err)
	}
	const lease = 600 * time.Millisecond
	a, stopA := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{id: "worker-a", lease: lease, store: eventstore.New(poolA)})
	a.Kick(p.WorkflowID)
	waitFor(t, "step 2's call", 10*time.Second, func() bool { return fake.Calls("framework="+second.Name) > 0 })
	poolA.Close() // A can no longer write anything, nor hand its lease back
	stopA()
	if owner := leaseOwner(t, p.WorkflowID); owner != "worker-a" {
		t.Fatalf("lease owner after the crash %q", owner)
	}
	var expires time.Time
	if err := testDB.Pool.QueryRow(context.Background(), `SELECT expires_at FROM job_leases WHERE kind = 'workflow' AND job_id = $1`, p.WorkflowID).Scan(&expires); err != nil {
		t.Fatal(err)
	}

	startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{id: "worker-b", lease: lease}) // no kick: B finds it through the read model
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || l.net != int64(p.Credits) || len(l.stepCharges) != len(p.Steps)-1 {
		t.Fatalf("status %s credits_used %d ledger %+v", v.Status, v.CreditsUsed, l)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	var resumed []event.Event
	for _, e := range events {
		var s workflow.Started
		if e.Type == workflow.EventStarted && e.Decode(&s) == nil && s.Resumed {
			if s.Worker != "worker-b" {
				t.Errorf("resumed by %q", s.Worker)
			}
			resumed = append(resumed, e)
		}
	}
	if len(resumed) != 1 {
		t.Fatalf("%d resumed starts: %v", len(resumed), types(events))
	}
	if resumed[0].RecordedAt.Before(expires) {
		t.Fatalf("B took over at %s, before A's lease expired at %s", resumed[0].RecordedAt, expires)
	}
	if starts := stepStarts(t, events, second.Step); len(starts) != 2 || starts[1].Attempt != 2 {
		t.Fatalf("step 2 starts %+v: want A's and B's", starts)
	}
	// B hands the lease back once the run is over
	waitFor(t, "B to release the lease", 5*time.Second, func() bool { return leaseOwner(t, p.WorkflowID) == "" })
}

// 10b. A worker stopped normally hands its leases back at once; the run
// is carried on by the next worker without waiting for an expiry.
func TestGracefulStopReleasesLease(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	second := p.Steps[1]
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + second.Name, Delay: 10 * time.Second, Times: 1})
	a, stopA := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{id: "worker-a", lease: 30 * time.Second})
	a.Kick(p.WorkflowID)
	waitFor(t, "step 2's call", 10*time.Second, func() bool { return fake.Calls("framework="+second.Name) > 0 })
	if owner := leaseOwner(t, p.WorkflowID); owner != "worker-a" {
		t.Fatalf("lease owner %q while A runs", owner)
	}
	stopA()
	if owner := leaseOwner(t, p.WorkflowID); owner != "" {
		t.Fatalf("lease still held by %q after a graceful stop", owner)
	}
	if wf := fold(t, p.WorkflowID); wf.Status() != workflow.StatusExecuting {
		t.Fatalf("status %s after the stop", wf.Status())
	}

	// the lease was 30s: B only gets the run this fast because A released it
	start := time.Now()
	startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{id: "worker-b"})
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)
	if time.Since(start) > 15*time.Second {
		t.Fatalf("B took %s", time.Since(start))
	}
	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || l.net != int64(p.Credits) {
		t.Fatalf("status %s credits_used %d ledger %+v", v.Status, v.CreditsUsed, l)
	}
	started := ofType[workflow.Started](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventStarted)
	if len(started) != 2 || started[0].Worker != "worker-a" || started[0].Resumed || started[1].Worker != "worker-b" || !started[1].Resumed {
		t.Fatalf("started %+v", started)
	}
}

// 11. Two workers on the same workflows at once: each workflow completes
// exactly once, no step has two results, charges equal the estimates.
func TestTwoWorkersConcurrently(t *testing.T) {
	o := newPayingOrg(t)
	grant(t, o.ID, 20_000)
	var ps []workflow.Planned
	for _, tt := range []string{"blog_post", "quick_research", "competitive_analysis", "blog_post", "quick_research", "press_release", "blog_post", "quick_research"} {
		ps = append(ps, queue(t, o, tt, planOpts{}))
	}
	jitter := jittery{offline.New()}
	// short leases, so renewals and takeovers race with the runs
	a, _ := startWorker(t, jitter, workerOpts{id: "worker-a", lease: 450 * time.Millisecond})
	b, _ := startWorker(t, jitter, workerOpts{id: "worker-b", lease: 450 * time.Millisecond})
	for _, p := range ps {
		a.Kick(p.WorkflowID)
		b.Kick(p.WorkflowID)
	}
	total := 0
	for _, p := range ps {
		wf := waitEnded(t, p.WorkflowID, 30*time.Second)
		v, l := checkRun(t, o.ID, wf)
		if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || l.net != int64(p.Credits) || len(l.stepCharges) != len(p.Steps)-1 || len(l.fees) != 1 {
			t.Errorf("%s: status %s credits_used %d estimate %d ledger %+v", p.WorkflowID, v.Status, v.CreditsUsed, p.Credits, l)
		}
		events := load(t, workflow.Stream(p.WorkflowID))
		if n := len(ofType[workflow.Reviewed](t, events, workflow.EventReviewed)); n != 1 {
			t.Errorf("%s: %d reviews", p.WorkflowID, n)
		}
		total += p.Credits
	}
	if b := balance(t, o.ID); b != 2500+20_000-int64(total) {
		t.Fatalf("balance %d, want %d", b, 2500+20_000-total)
	}
}

// jittery delays every call a little, so two workers interleave.
type jittery struct{ llm.Provider }

func (j jittery) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	select {
	case <-time.After(time.Duration(5+time.Now().UnixNano()%20) * time.Millisecond):
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return j.Provider.Complete(ctx, r)
}

// 12. A review that cannot run leaves the score null with a summary
// saying why; the workflow still completes and pays the fee.
func TestReviewFailureLeavesScoreNull(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "quick_research", planOpts{})
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "kind=review", Status: http.StatusInternalServerError})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.QualityScore != nil || v.QualityReview == nil || v.QualityReview.Score != nil {
		t.Fatalf("status %s score %v review %+v", v.Status, v.QualityScore, v.QualityReview)
	}
	if !strings.Contains(v.QualityReview.Summary, "could not run") || !strings.Contains(v.QualityReview.Summary, "every LLM provider failed") || strings.Contains(v.QualityReview.Summary, "500") || strings.Contains(v.QualityReview.Summary, "127.0.0.1") {
		t.Fatalf("summary %q", v.QualityReview.Summary)
	}
	if v.CreditsUsed != p.Credits || len(l.fees) != 1 || v.Deliverable == nil || v.Error != nil {
		t.Fatalf("credits_used %d ledger %+v error %v", v.CreditsUsed, l, v.Error)
	}
	if n := fake.Calls("kind=review"); n != 2 {
		t.Fatalf("%d review calls, want 2", n)
	}
	// the read model keeps the score null (never 0)
	waitFor(t, "the workflows read model", 10*time.Second, func() bool {
		var score *int
		var status string
		err := testDB.Pool.QueryRow(context.Background(), `SELECT status, quality_score FROM workflows WHERE workflow_id = $1`, p.WorkflowID).Scan(&status, &score)
		return err == nil && status == workflow.StatusCompleted && score == nil
	})
}

// A run resumed after its review was recorded (the worker died before the
// terminal event) finishes without reviewing again.
func TestResumeAfterReviewDoesNotReviewAgain(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "quick_research", planOpts{})
	gate := &reviewGate{Provider: offline.New(), entered: make(chan struct{}), release: make(chan struct{})}
	w, _ := startWorker(t, gate, workerOpts{})
	w.Kick(p.WorkflowID)
	select {
	case <-gate.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the review never started")
	}
	// another worker records the review meanwhile (then dies)
	wf := fold(t, p.WorkflowID)
	score := 77
	if _, err := testStore.Append(context.Background(), workflow.Stream(p.WorkflowID), wf.Version(), event.New{Data: workflow.Reviewed{Score: &score, Summary: "Recorded by a worker that died."}, Metadata: event.Metadata{OrgID: o.ID, Actor: "system"}}); err != nil {
		t.Fatal(err)
	}
	close(gate.release)
	wf = waitEnded(t, p.WorkflowID, 20*time.Second)

	v, _ := checkRun(t, o.ID, wf)
	events := load(t, workflow.Stream(p.WorkflowID))
	if n := len(ofType[workflow.Reviewed](t, events, workflow.EventReviewed)); n != 1 {
		t.Fatalf("%d reviews: %v", n, types(events))
	}
	if v.Status != workflow.StatusCompleted || v.QualityScore == nil || *v.QualityScore != 77 || v.CreditsUsed != p.Credits {
		t.Fatalf("status %s score %v credits_used %d", v.Status, v.QualityScore, v.CreditsUsed)
	}
}

// reviewGate holds the first review call until release is closed.
type reviewGate struct {
	llm.Provider
	entered, release chan struct{}
	once             atomic.Bool
}

func (g *reviewGate) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	if r.Kind == llm.KindReview && g.once.CompareAndSwap(false, true) {
		close(g.entered)
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}
	return g.Provider.Complete(ctx, r)
}

func itoa(n int) string { return strconv.Itoa(n) }

// 5b. A step the plan flagged context-less (no connection, no context)
// fails as anticipated: it is recorded absent, the run goes on and ends
// completed_partial without the fee.
func TestContextLessStepAbsent(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "code_review", planOpts{})
	absent := p.Steps[0]
	if !p.ContextLess || !absent.NeedsContext || absent.Kind != workflow.KindContent || len(p.Connections) != 0 {
		t.Fatalf("want a context-less plan starting with a context step: %+v", p)
	}
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + absent.Name, Status: http.StatusInternalServerError})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]

	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompletedPartial || len(v.IncompleteSteps) != 1 || v.IncompleteSteps[0].StepIndex != 0 || v.IncompleteSteps[0].Framework != absent.Name {
		t.Fatalf("status %s incomplete_steps %+v", v.Status, v.IncompleteSteps)
	}
	if !strings.Contains(v.IncompleteSteps[0].Reason, absent.Name) || v.Error == nil || !strings.Contains(*v.Error, absent.Name) {
		t.Fatalf("reason %q error %v", v.IncompleteSteps[0].Reason, v.Error)
	}
	if len(l.fees) != 0 || v.CreditsUsed != p.Credits-absent.Credits-feeOf(t, p) || v.QualityScore == nil || v.Deliverable == nil {
		t.Fatalf("credits_used %d ledger %+v score %v", v.CreditsUsed, l, v.QualityScore)
	}
}

// 10c. A worker whose lease another process took (it stalled past the
// expiry) stops its run when the renewal fails, and does not delete the
// other's lease; the run is carried on from the stream afterwards.
func TestLeaseLostStopsRun(t *testing.T) {
	o := newPayingOrg(t)
	p := queue(t, o, "blog_post", planOpts{})
	second := p.Steps[1]
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "framework=" + second.Name, Delay: 10 * time.Second, Times: 1})
	a, _ := startWorker(t, fakeProvider(t, fake, 0, nil), workerOpts{id: "worker-a", lease: 600 * time.Millisecond})
	a.Kick(p.WorkflowID)
	waitFor(t, "step 2's call", 10*time.Second, func() bool { return fake.Calls("framework="+second.Name) > 0 })
	// another process has the lease now, for a second
	var ghostUntil time.Time
	if err := testDB.Pool.QueryRow(context.Background(), `UPDATE job_leases SET owner = 'ghost', expires_at = now() + interval '1 second'
		WHERE kind = 'workflow' AND job_id = $1 RETURNING expires_at`, p.WorkflowID).Scan(&ghostUntil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	wf := waitEnded(t, p.WorkflowID, 20*time.Second)
	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.CreditsUsed != p.Credits || l.net != int64(p.Credits) {
		t.Fatalf("status %s credits_used %d ledger %+v", v.Status, v.CreditsUsed, l)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	// A dropped its call at the failed renewal (the fake's delay is 10s)
	// and took the run back only after the ghost's lease expired: its
	// release had not deleted a lease it no longer owned
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("the run ended %s after the lease was taken: A kept its call", d)
	}
	var resumedAt time.Time
	var started []workflow.Started
	for _, e := range events {
		var s workflow.Started
		if e.Type == workflow.EventStarted && e.Decode(&s) == nil {
			started = append(started, s)
			if s.Resumed {
				resumedAt = e.RecordedAt
			}
		}
	}
	if len(started) != 2 || !started[1].Resumed || started[1].Worker != "worker-a" {
		t.Fatalf("started %+v", started)
	}
	if resumedAt.Before(ghostUntil) {
		t.Fatalf("resumed at %s, before the other owner's lease expired at %s", resumedAt, ghostUntil)
	}
	if starts := stepStarts(t, events, second.Step); len(starts) != 2 {
		t.Fatalf("step 2 starts %+v", starts)
	}
}
