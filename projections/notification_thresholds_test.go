package projections_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/hook"
	"svc/domain/notification"
	"svc/domain/workspace"
	"svc/eventstore/event"
	"svc/projections"
)

// Thresholds become notifications from the ledger's and the budgets'
// events: a workspace at 80 % and 100 % of its monthly budget, once each
// a month (again against a new budget), an organization's credits falling
// below the low balance once a crossing, a webhook disabled. One charge
// crossing two thresholds gives two notices, each with its own place in
// the paging order. A rebuild equals the live model.
func TestNotificationThresholds(t *testing.T) {
	ctx := context.Background()
	ps := []projections.Projection{projections.Notifications{}}
	r := newRunner(t, ps)
	org, ws := uuid.NewString(), uuid.NewString()
	ledger := func(d ...event.Data) {
		t.Helper()
		if _, err := store.Append(ctx, credit.Stream(org), event.AnyVersion, event.Of(d...)...); err != nil {
			t.Fatal(err)
		}
	}
	budget := int64(1000)
	if _, err := store.Append(ctx, workspace.Stream(ws), event.AnyVersion,
		event.New{Data: workspace.BudgetSet{WorkspaceID: ws, OrgID: org, MonthlyCreditBudget: &budget}}); err != nil {
		t.Fatal(err)
	}
	charge := func(n int64, month string) credit.Charged {
		return credit.Charged{OrgID: org, Amount: n, Reason: "workflow_step", WorkspaceID: ws, Month: month}
	}
	ledger(credit.Granted{OrgID: org, Amount: 2500, Reason: "signup"})
	ledger(charge(700, "2026-11"))                                                                          // 70 %, 1,800 left
	ledger(charge(150, "2026-11"))                                                                          // 85 %: warning
	ledger(charge(100, "2026-11"))                                                                          // 95 %
	ledger(charge(100, "2026-11"))                                                                          // 105 %: exceeded; 650 left: low balance
	ledger(credit.Refunded{OrgID: org, Amount: 100, WorkflowID: "wr_x", WorkspaceID: ws, Month: "2026-11"}) // nothing new
	ledger(charge(900, "2026-12"))                                                                          // a new month at 90 %: warning
	if _, err := store.Append(ctx, hook.Stream(uuid.NewString()), event.NewStream, event.New{Data: hook.Disabled{
		EndpointID: "e", OrgID: org, WorkspaceID: ws, URL: "https://example.com/h", Failures: 20, Reason: hook.ReasonFailing}}); err != nil {
		t.Fatal(err)
	}
	catchUp(t, r)

	q := projections.NewQueries(store, commands.NewRepositories(store).Workflows, nil, quiet)
	page, err := q.Notifications(ctx, projections.NotificationFilter{OrgID: org, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for {
		for _, n := range page.Rows {
			types = append(types, n.Type)
		}
		if page.Next == nil {
			break
		}
		if page, err = q.Notifications(ctx, projections.NotificationFilter{OrgID: org, Limit: 2, After: page.Next}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{notification.TypeWebhookDisabled, notification.TypeLowBalance, notification.TypeBudgetWarning,
		notification.TypeBudgetExceeded, notification.TypeBudgetWarning}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("notifications, newest first, paged by two: %v, want %v", types, want)
	}

	live := dump(t, ps)
	for _, p := range ps {
		if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live["notifications"], rebuilt["notifications"])
	}
}
