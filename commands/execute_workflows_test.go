package commands_test

import (
	"context"
	"errors"
	"testing"

	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

func multiExecutor() commands.ExecuteWorkflowsHandler {
	return commands.NewExecuteWorkflowsHandler(commands.NewRepositories(store), executor())
}

// statusOf folds workflow id from its stream.
func statusOf(t *testing.T, id string) string {
	t.Helper()
	wf, err := workflow.Load(mustLoad(t, workflow.Stream(id)))
	if err != nil {
		t.Fatal(err)
	}
	return wf.Status()
}

// TestExecuteWorkflowsMultiIntent plans a description of two intents and
// executes both workflows in one command: each is queued as an execute of
// its workflow_id would queue it (the org's first run free, the second
// not), with the command's delivery, context, language and agent, in the
// order given.
func TestExecuteWorkflowsMultiIntent(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	planned, err := commands.NewPlanWorkflowHandler(commands.NewRepositories(store), planning.NewPlanner(catalog.Default())).Handle(ctx,
		commands.PlanWorkflow{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, KeyID: a.KeyID, Request: planning.Request{
			Description: "audit our authentication code for security vulnerabilities and draft a launch plan for the new mobile app"}})
	if err != nil {
		t.Fatal(err)
	}
	plans := planned.Result.Plans
	if len(plans) != 2 {
		t.Fatalf("%d plans, want a multi-intent plan of 2", len(plans))
	}
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx,
		commands.GrantCredits{OrgID: a.OrgID, Amount: 10_000, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	ids := []string{plans[1].WorkflowID, plans[0].WorkflowID} // any order the caller likes
	extra := "Our app ships on iOS first."
	res, err := multiExecutor().Handle(ctx, commands.ExecuteWorkflows{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "pro", WorkflowIDs: ids,
		Context: &extra, AgentID: "planner-bot", Language: "de", Delivery: workflow.Delivery{Method: "webhook", WebhookURL: "https://hooks.example.com/svc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queued) != 2 || len(res.Refused) != 0 || res.Position == (event.Position{}) {
		t.Fatalf("%d queued, refused %v, position %+v", len(res.Queued), res.Refused, res.Position)
	}
	group := ""
	for i, q := range res.Queued {
		if q.Planned.WorkflowID != ids[i] {
			t.Fatalf("queued #%d is %s, want %s (the command's order)", i, q.Planned.WorkflowID, ids[i])
		}
		if q.Planned.IntentGroup == "" || (group != "" && q.Planned.IntentGroup != group) {
			t.Errorf("intent group %q, want one shared group", q.Planned.IntentGroup)
		}
		group = q.Planned.IntentGroup
		stored := queuedOf(t, ids[i])
		if stored.Mode != "full" || stored.Delivery.Method != "webhook" || stored.Language != "de" || stored.AgentID != "planner-bot" ||
			stored.Context != extra || stored.KeyID != a.KeyID || stored.Tier != "pro" {
			t.Errorf("workflow %s queued %+v", ids[i], stored)
		}
		if statusOf(t, ids[i]) != workflow.StatusQueued {
			t.Errorf("workflow %s is %s", ids[i], statusOf(t, ids[i]))
		}
	}
	if !res.Queued[0].Queued.Free || res.Queued[1].Queued.Free {
		t.Errorf("free: %v, %v; want the org's first run only", res.Queued[0].Queued.Free, res.Queued[1].Queued.Free)
	}
	if res.Queued[0].WebhookSecret == "" || res.Queued[1].WebhookSecret != "" {
		t.Errorf("webhook secrets %q, %q: want it once, with the execute that registered the URL", res.Queued[0].WebhookSecret, res.Queued[1].WebhookSecret)
	}
}

// TestExecuteWorkflowsRefusedWhole: a command with no id, too many, one
// twice, an SSE or interactive delivery or a bad webhook URL, or an id that
// is not a queueable plan of the org, queues nothing; an id's refusal
// names it and is what an execute of it alone answers.
func TestExecuteWorkflowsRefusedWhole(t *testing.T) {
	ctx := context.Background()
	a, b := signup(t, ""), signup(t, "")
	h := multiExecutor()
	good := storePlan(t, planned(a.OrgID, "the plan that would be fine"))
	polling := workflow.Delivery{Method: "polling"}
	exec := func(ids []string, d workflow.Delivery) error {
		_, err := h.Handle(ctx, commands.ExecuteWorkflows{OrgID: a.OrgID, Tier: "team", WorkflowIDs: ids, Delivery: d})
		return err
	}

	many := make([]string, commands.BulkLimit+1)
	for i := range many {
		many[i] = workflow.NewID()
	}
	if err := exec(nil, polling); !errors.Is(err, commands.ErrNoWorkflowIDs) {
		t.Errorf("no ids: %v", err)
	}
	if err := exec(many, polling); !errors.Is(err, commands.ErrBulkLimit) {
		t.Errorf("%d ids: %v", len(many), err)
	}
	if err := exec(many[:commands.BulkLimit], polling); !errors.Is(err, workflow.ErrNotFound) {
		t.Errorf("%d unknown ids: %v, want them looked up (not_found)", commands.BulkLimit, err)
	}
	var one *commands.WorkflowRefusedError
	if err := exec([]string{good, many[0], good}, polling); !errors.Is(err, commands.ErrRepeatedWorkflowID) || !errors.As(err, &one) || one.WorkflowID != good {
		t.Errorf("an id twice: %v", err)
	}
	for _, d := range []workflow.Delivery{{Method: "sse"}, {Method: workflow.ModeInteractive}, {}} {
		if err := exec([]string{good}, d); !errors.Is(err, commands.ErrSeveralDelivery) {
			t.Errorf("delivery %q: %v", d.Method, err)
		}
	}
	var delivery *commands.DeliveryError
	if err := exec([]string{good}, workflow.Delivery{Method: "webhook", WebhookURL: "http://hooks.example.com"}); !errors.As(err, &delivery) || delivery.Code != "webhook_url_https" {
		t.Errorf("http webhook: %v", err)
	}

	noPlan := planned(a.OrgID, "a plan without steps")
	noPlan.Steps, noPlan.TotalSteps = nil, 0
	queued := storePlan(t, planned(a.OrgID, "queued already"))
	if _, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "team", WorkflowID: queued, Delivery: polling}); err != nil {
		t.Fatal(err)
	}
	progress := planned(a.OrgID, "a plan with a step result")
	if _, err := store.Append(ctx, workflow.Stream(progress.WorkflowID), event.NewStream, event.New{Data: progress},
		event.New{Data: workflow.StepCompleted{Step: 1, Name: "SWOT Analysis", Kind: workflow.KindContent, Summary: "done"}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		id   string
		want error
	}{
		{"unknown id", workflow.NewID(), workflow.ErrNotFound},
		{"malformed id", "wr_nope", workflow.ErrNotFound},
		{"another org's plan", storePlan(t, planned(b.OrgID, "theirs")), commands.ErrForeignWorkflow},
		{"no plan", storePlan(t, noPlan), workflow.ErrNoPlan},
		{"queued already", queued, workflow.ErrNotQueueable},
		{"step results", progress.WorkflowID, workflow.ErrHasProgress},
	}
	before := countOrgEvents(t, a.OrgID)
	for _, c := range cases {
		err := exec([]string{good, c.id}, polling)
		if !errors.Is(err, c.want) || !errors.As(err, &one) || one.WorkflowID != c.id {
			t.Errorf("%s: %v, want %v naming %s", c.name, err, c.want, c.id)
		}
	}
	if after := countOrgEvents(t, a.OrgID); after != before {
		t.Errorf("refused commands appended %d events", after-before)
	}
	if s := statusOf(t, good); s != workflow.StatusPlanned {
		t.Errorf("the good plan is %s after refused commands", s)
	}
}

// TestExecuteWorkflowsLimitsRefuseSome: the limits (concurrent limit,
// duplicate task, balance) refuse a workflow without undoing the others;
// when they refuse all, the command answers the first refusal.
func TestExecuteWorkflowsLimitsRefuseSome(t *testing.T) {
	ctx := context.Background()
	h := multiExecutor()
	polling := workflow.Delivery{Method: "polling"}

	// the free tier runs one workflow at a time
	a := signup(t, "")
	first, second := storePlan(t, planned(a.OrgID, "first intent")), storePlan(t, planned(a.OrgID, "second intent"))
	res, err := h.Handle(ctx, commands.ExecuteWorkflows{OrgID: a.OrgID, Tier: "free", WorkflowIDs: []string{first, second}, Delivery: polling})
	var limit *commands.ConcurrentLimitError
	if err != nil || len(res.Queued) != 1 || res.Queued[0].Planned.WorkflowID != first || len(res.Refused) != 1 ||
		res.Refused[0].WorkflowID != second || !errors.As(res.Refused[0], &limit) || limit.Limit != 1 {
		t.Fatalf("free tier: %d queued, refused %v, %v", len(res.Queued), res.Refused, err)
	}
	if statusOf(t, first) != workflow.StatusQueued || statusOf(t, second) != workflow.StatusPlanned {
		t.Fatalf("statuses %s, %s", statusOf(t, first), statusOf(t, second))
	}
	third := storePlan(t, planned(a.OrgID, "third intent"))
	_, err = h.Handle(ctx, commands.ExecuteWorkflows{OrgID: a.OrgID, Tier: "free", WorkflowIDs: []string{second, third}, Delivery: polling})
	var one *commands.WorkflowRefusedError
	if !errors.As(err, &one) || one.WorkflowID != second || !errors.As(err, &limit) {
		t.Fatalf("all refused: %v, want the first refusal (%s)", err, second)
	}
	if statusOf(t, second) != workflow.StatusPlanned || statusOf(t, third) != workflow.StatusPlanned {
		t.Fatal("a refused workflow was queued")
	}

	// a duplicate task and a plan the balance does not cover, between two
	// that pass
	b := signup(t, "")
	if _, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: b.OrgID, Tier: "team", WorkflowID: storePlan(t, planned(b.OrgID, "the org's first run")),
		Delivery: polling}); err != nil {
		t.Fatal(err)
	}
	dupOf := storePlan(t, planned(b.OrgID, "summarise the quarter"))
	dup := storePlan(t, planned(b.OrgID, "Summarise the quarter!"))
	costly := planned(b.OrgID, "a very expensive plan")
	costly.Credits = int(balance(t, b.OrgID)) + 1
	last := storePlan(t, planned(b.OrgID, "the last intent"))
	ids := []string{dupOf, dup, storePlan(t, costly), last}
	res, err = h.Handle(ctx, commands.ExecuteWorkflows{OrgID: b.OrgID, Tier: "team", WorkflowIDs: ids, Delivery: polling})
	if err != nil {
		t.Fatal(err)
	}
	var (
		duplicate *commands.DuplicateTaskError
		credits   *commands.InsufficientCreditsError
	)
	if len(res.Queued) != 2 || len(res.Refused) != 2 {
		t.Fatalf("%d queued, refused %v", len(res.Queued), res.Refused)
	}
	if res.Queued[0].Planned.WorkflowID != dupOf || res.Queued[1].Planned.WorkflowID != last ||
		res.Refused[0].WorkflowID != dup || !errors.As(res.Refused[0], &duplicate) || duplicate.ExistingID != dupOf ||
		res.Refused[1].WorkflowID != costly.WorkflowID || !errors.As(res.Refused[1], &credits) || credits.Required != int64(costly.Credits) {
		t.Fatalf("queued %s, %s; refused %v", res.Queued[0].Planned.WorkflowID, res.Queued[1].Planned.WorkflowID, res.Refused)
	}
	for i, want := range []string{workflow.StatusQueued, workflow.StatusPlanned, workflow.StatusPlanned, workflow.StatusQueued} {
		if s := statusOf(t, ids[i]); s != want {
			t.Errorf("workflow %d is %s, want %s", i, s, want)
		}
	}
}
