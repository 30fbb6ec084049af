package projections_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/notification"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
	"svc/projections"
)

// The notifications read model: workflow outcomes and platform events
// become an organization's notifications (a workflow's under its planned
// organization and title; a member who signed up or created a workspace is
// no news); NotificationsRead marks listed ids, ignoring another
// organization's, or all derived so far. Paging is newest first. A rebuild
// equals the live model, ids included.
func TestNotificationsReadModel(t *testing.T) {
	ctx := context.Background()
	ps := []projections.Projection{projections.Notifications{}}
	r := newRunner(t, ps)
	orgA, orgB := uuid.NewString(), uuid.NewString()
	appendTo := func(stream string, d ...event.Data) {
		t.Helper()
		if _, err := store.Append(ctx, stream, event.AnyVersion, event.Of(d...)...); err != nil {
			t.Fatal(err)
		}
	}
	wfA, wfB := workflow.NewID(), workflow.NewID()
	appendTo(workflow.Stream(wfA), workflow.Planned{WorkflowID: wfA, OrgID: orgA, Title: "Market scan"})
	appendTo(workflow.Stream(wfB), workflow.Planned{WorkflowID: wfB, OrgID: orgB, Title: "Other"})
	appendTo(workflow.Stream(wfA), workflow.ApprovalRequested{Gate: 0, Step: 1}, workflow.Completed{CreditsUsed: 30})
	appendTo(workflow.Stream(wfB), workflow.Failed{Code: "provider_exhausted", Error: "no provider answered"})
	appendTo("ledger-"+orgA, credit.AutoReloadFailed{OrgID: orgA, ReloadID: "r1", Reason: "card_declined"})
	appendTo("workspace-x", workspace.MemberAdded{OrgID: orgA, WorkspaceID: "ws", UserID: "u1", Email: "a@example.com", Via: "signup"},
		workspace.MemberAdded{OrgID: orgA, WorkspaceID: "ws", UserID: "u2", Name: "Ann", Role: workspace.Role("member"), Via: "invite"})
	catchUp(t, r)

	q := projections.NewQueries(store, commands.NewRepositories(store).Workflows, nil, quiet)
	page, err := q.Notifications(ctx, projections.NotificationFilter{OrgID: orgA, Limit: 3})
	if err != nil || len(page.Rows) != 3 || !page.HasMore || page.Next == nil || page.Unread != 4 {
		t.Fatalf("first page %+v %v", page, err)
	}
	if page.Rows[0].Type != notification.TypeMemberJoined || page.Rows[1].Type != notification.TypeAutoReloadFailed ||
		page.Rows[2].Type != notification.TypeWorkflowCompleted || *page.Rows[2].WorkflowID != wfA {
		t.Fatalf("order: %+v", page.Rows)
	}
	completed := page.Rows[2].ID
	rest, err := q.Notifications(ctx, projections.NotificationFilter{OrgID: orgA, Limit: 3, After: page.Next})
	if err != nil || len(rest.Rows) != 1 || rest.HasMore || rest.Rows[0].Type != notification.TypeApprovalRequested {
		t.Fatalf("second page %+v %v", rest, err)
	}
	other, _ := q.Notifications(ctx, projections.NotificationFilter{OrgID: orgB, Limit: 20})
	if len(other.Rows) != 1 || other.Rows[0].Type != notification.TypeWorkflowFailed {
		t.Fatalf("org B: %+v", other.Rows)
	}
	if ids, err := q.UnreadNotificationIDs(ctx, orgA, []string{completed, other.Rows[0].ID, "nope"}); err != nil || len(ids) != 1 || ids[0] != completed {
		t.Fatalf("org A's unread ids: %v %v", ids, err)
	}
	// a mark naming another organization's id does not reach it
	appendTo(notification.Stream(orgA), notification.Read{OrgID: orgA, IDs: []string{completed, other.Rows[0].ID}})
	catchUp(t, r)
	if n, _ := q.UnreadNotifications(ctx, orgA); n != 3 {
		t.Fatalf("after marking one: %d unread", n)
	}
	if n, _ := q.UnreadNotifications(ctx, orgB); n != 1 {
		t.Fatalf("org B after org A's mark: %d unread", n)
	}
	appendTo(notification.Stream(orgA), notification.Read{OrgID: orgA, All: true})
	appendTo("ledger-"+orgA, credit.AutoReloadSucceeded{OrgID: orgA, ReloadID: "r2", Amount: 5000})
	catchUp(t, r)
	unread, err := q.Notifications(ctx, projections.NotificationFilter{OrgID: orgA, Limit: 20, UnreadOnly: true})
	if err != nil || len(unread.Rows) != 1 || unread.Rows[0].Type != notification.TypeAutoReloadSucceeded || unread.Unread != 1 {
		t.Fatalf("after all, a later one: %+v %v", unread, err)
	}

	live := dump(t, ps)
	for _, p := range ps {
		if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(3)).Rebuild(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live["notifications"], rebuilt["notifications"])
	}
}
