package projections_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// usageOrg is an org with two keys (the signup key in the default
// workspace, a second one in another workspace) and two planned workflows.
type usageOrg struct {
	org, ws, ws2, key, key2, flowA, flowB string
}

func newUsageOrg(t *testing.T) usageOrg {
	t.Helper()
	ctx := context.Background()
	res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(ctx, commands.CreateOrganization{})
	if err != nil {
		t.Fatal(err)
	}
	u := usageOrg{org: res.OrgID, ws: res.WorkspaceID, ws2: uuid.NewString(), key: res.KeyID, key2: uuid.NewString(),
		flowA: workflow.NewID(), flowB: workflow.NewID()}
	secret, _ := apikey.Generate()
	if _, err := store.Append(ctx, apikey.Stream(u.key2), event.NewStream, event.New{Data: apikey.Created{KeyID: u.key2, OrgID: u.org, WorkspaceID: u.ws2, Hash: secret.Hash, Prefix: secret.Prefix, Label: "ci", Role: apikey.Member, CreatedBy: "test"}}); err != nil {
		t.Fatal(err)
	}
	for id, tt := range map[string]string{u.flowA: "competitive_analysis", u.flowB: "process_improvement"} {
		if _, err := store.Append(ctx, workflow.Stream(id), event.NewStream, event.New{Data: workflow.Planned{WorkflowID: id, OrgID: u.org, WorkspaceID: u.ws, KeyID: u.key, TaskType: tt}}); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

func (u usageOrg) charge(t *testing.T, c credit.Charged) {
	t.Helper()
	c.OrgID = u.org
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.ChargeCredits{Charge: c}); err != nil {
		t.Fatal(err)
	}
}

func (u usageOrg) refund(t *testing.T, flow string, amount int64) {
	t.Helper()
	if _, err := commands.NewRefundCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(),
		commands.RefundCredits{OrgID: u.org, WorkflowID: flow, Amount: amount, Reason: "workflow_failed"}); err != nil {
		t.Fatal(err)
	}
}

// decide appends what decide decides on u's ledger.
func (u usageOrg) decide(t *testing.T, decide func(l *credit.Ledger) ([]event.Data, error)) {
	t.Helper()
	if _, _, err := commands.NewRepositories(store).Ledgers.Update(context.Background(), u.org, u.org, decide); err != nil {
		t.Fatal(err)
	}
}

// populateUsage charges flow A three steps and its fee by key (two agent
// ids) from a reservation of 1,000 credits that settles after the fee,
// charges flow B two steps by key2 and refunds them all, charges enhance
// by key2 and a browser-session call with no key. The reservation is no
// spend: usage counts only the charges.
func populateUsage(t *testing.T, u usageOrg) {
	u.decide(t, func(l *credit.Ledger) ([]event.Data, error) {
		r, _, err := l.Reserve(u.flowA, 1000)
		return []event.Data{r}, err
	})
	u.charge(t, credit.Charged{Amount: 100, Reason: "workflow_step", WorkflowID: u.flowA, Step: 1, KeyID: u.key, AgentID: "agent-1"})
	u.charge(t, credit.Charged{Amount: 200, Reason: "workflow_step", WorkflowID: u.flowA, Step: 2, KeyID: u.key, AgentID: "agent-2"})
	u.charge(t, credit.Charged{Amount: 40, Reason: "workflow_step", WorkflowID: u.flowB, Step: 1, KeyID: u.key2})
	u.charge(t, credit.Charged{Amount: 60, Reason: "workflow_step", WorkflowID: u.flowB, Step: 2, KeyID: u.key2})
	u.refund(t, u.flowB, 100)
	u.charge(t, credit.Charged{Amount: 530, Reason: "orchestration_fee", WorkflowID: u.flowA, KeyID: u.key, AgentID: "agent-1"})
	u.decide(t, func(l *credit.Ledger) ([]event.Data, error) {
		res, err := l.Settle(credit.Settlement{WorkflowID: u.flowA, Reason: "WorkflowCompleted"})
		if err == nil && res.Released != 1000-830 {
			err = fmt.Errorf("flow A released %d", res.Released)
		}
		return res.Events, err
	})
	u.charge(t, credit.Charged{Amount: 270, Reason: "enhance_llm", KeyID: u.key2})
	u.charge(t, credit.Charged{Amount: 5, Reason: "enhance_llm"})
	// the suite's operations (spec C): their reason names the product
	u.charge(t, credit.Charged{Amount: 1, Reason: "guardrail.check", KeyID: u.key2})
	u.charge(t, credit.Charged{Amount: 2, Reason: "pitfalldb.query", KeyID: u.key2})
}

type usageSum struct{ credits, calls, steps, workflows int64 }

func sumBy(cells []projections.UsageCell, key func(projections.UsageCell) string) map[string]usageSum {
	out := map[string]usageSum{}
	for _, c := range cells {
		s := out[key(c)]
		s.credits += c.Credits
		s.calls += c.Calls
		s.steps += c.Steps
		s.workflows += c.Workflows
		out[key(c)] = s
	}
	return out
}

func TestUsageModel(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, projections.All(), projections.WithBatch(3))
	u := newUsageOrg(t)
	populateUsage(t, u)
	catchUp(t, r)
	ctx := context.Background()
	now := time.Now()
	cells, err := projections.UsageCells(ctx, db.Pool, u.org, now.Add(-time.Hour), now.Add(time.Hour), "day")
	if err != nil {
		t.Fatal(err)
	}
	total := sumBy(cells, func(projections.UsageCell) string { return "" })[""]
	if total != (usageSum{credits: 830 + 270 + 5 + 3, calls: 9, steps: 3, workflows: 1}) {
		t.Errorf("totals %+v: want the refund netted (flow B neither costs nor counts)", total)
	}
	byKey := sumBy(cells, func(c projections.UsageCell) string { return c.KeyID })
	want := map[string]usageSum{
		u.key:  {credits: 830, calls: 3, steps: 3, workflows: 1}, // two agent ids, one key
		u.key2: {credits: 273, calls: 5},                         // flow B charged and refunded, then enhance, then the suite
		"":     {credits: 5, calls: 1},                           // the browser session
	}
	if !reflect.DeepEqual(byKey, want) {
		t.Errorf("by key %+v, want %+v", byKey, want)
	}
	bySurface := sumBy(cells, func(c projections.UsageCell) string { return c.Surface })
	if bySurface["workflow"].credits != 830 || bySurface["gateway"].credits != 278 || len(bySurface) != 2 {
		t.Errorf("by surface %+v", bySurface)
	}
	byProduct := sumBy(cells, func(c projections.UsageCell) string { return c.Product })
	if byProduct["rigor"].credits != 830+275 || byProduct["guardrail"] != (usageSum{credits: 1, calls: 1}) ||
		byProduct["pitfalldb"] != (usageSum{credits: 2, calls: 1}) || len(byProduct) != 3 {
		t.Errorf("by product %+v: workflows and enhance are rigor's, the suite's charges their product's", byProduct)
	}
	byWorkspace := sumBy(cells, func(c projections.UsageCell) string { return c.WorkspaceID })
	if byWorkspace[u.ws].credits != 830 || byWorkspace[u.ws2].credits != 273 || byWorkspace[""].credits != 5 {
		t.Errorf("by workspace %+v: the enhance charge belongs to key2's workspace", byWorkspace)
	}
	byType := sumBy(cells, func(c projections.UsageCell) string { return c.TaskType })
	if byType["competitive_analysis"].credits != 830 || byType["process_improvement"] != (usageSum{calls: 2}) || byType[""].credits != 278 {
		t.Errorf("by task type %+v", byType)
	}
	for _, c := range cells {
		if c.Bucket.Location() != time.UTC || !c.Bucket.Equal(c.Bucket.Truncate(24*time.Hour)) {
			t.Errorf("bucket %v is not a UTC day start", c.Bucket)
		}
	}
	if none, err := projections.UsageCells(ctx, db.Pool, u.org, now.Add(time.Hour), now.Add(2*time.Hour), "hour"); err != nil || len(none) != 0 {
		t.Errorf("range after the charges: %v %v", none, err)
	}
	if _, err := projections.UsageCells(ctx, db.Pool, u.org, now, now, "year"); err == nil {
		t.Error("unknown unit accepted")
	}
	keys, workspaces, err := projections.UsageNames(ctx, db.Pool, u.org)
	if err != nil || keys[u.key] != "Signup key" || keys[u.key2] != "ci" || workspaces[u.ws] == "" {
		t.Errorf("names %v %v %v", keys, workspaces, err)
	}
}

// TestUsageRebuildEqualsLive: the live model, fed in batches of 3 while the
// events were appended, equals a rebuild in batches of 2.
func TestUsageRebuildEqualsLive(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Usage{}}
	r := newRunner(t, ps, projections.WithBatch(3))
	for i := 0; i < 3; i++ {
		u := newUsageOrg(t)
		catchUp(t, r)
		populateUsage(t, u)
	}
	catchUp(t, r)
	live := dump(t, ps)
	if len(live["usage_charges"]) != 3*10 || len(live["usage_workflows"]) != 3*2 || len(live["usage_keys"]) != 3*2 {
		t.Fatalf("live sizes: %d charges, %d workflows, %d keys", len(live["usage_charges"]), len(live["usage_workflows"]), len(live["usage_keys"]))
	}
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(context.Background(), ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt usage differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}
