package projections_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// TestChain: one query reads a chain back through prior_workflow_id, up to
// its limit, and only within the org.
func TestChain(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, []projections.Projection{projections.Workflows{}})
	org := uuid.NewString()
	var ids []string
	for i := range 3 {
		id := workflow.NewID()
		prior := ""
		if i > 0 {
			prior = ids[i-1]
		}
		m := event.Metadata{OrgID: org, Actor: "test"}
		_, err := store.Append(context.Background(), workflow.Stream(id), event.NewStream,
			event.New{Metadata: m, Data: workflow.Planned{WorkflowID: id, OrgID: org, WorkspaceID: uuid.NewString(),
				TaskType: "strategy", ValueClass: "strategic", Title: "T", Description: "D", RigorLevel: "quick", TotalSteps: 2 + i, Execution: "standard", Steps: listSteps}},
			event.New{Metadata: m, Data: workflow.Queued{WorkflowID: id, OrgID: org, Mode: workflow.ModeFull,
				PriorWorkflowID: prior, Delivery: workflow.Delivery{Method: "polling"}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	catchUp(t, r)
	ctx := context.Background()
	all, err := projections.Chain(ctx, db.Pool, org, ids[2], 11)
	if err != nil || len(all) != 3 || all[ids[2]].PriorWorkflowID != ids[1] || all[ids[1]].PriorWorkflowID != ids[0] ||
		all[ids[0]].PriorWorkflowID != "" || all[ids[0]].TotalSteps != 2 || all[ids[2]].Status != workflow.StatusQueued || all[ids[0]].CreatedAt.IsZero() {
		t.Fatalf("chain %+v %v", all, err)
	}
	if two, err := projections.Chain(ctx, db.Pool, org, ids[2], 2); err != nil || len(two) != 2 {
		t.Errorf("limit 2: %d links %v", len(two), err)
	}
	if foreign, err := projections.Chain(ctx, db.Pool, uuid.NewString(), ids[2], 11); err != nil || len(foreign) != 0 {
		t.Errorf("another org reads %d links %v", len(foreign), err)
	}
}
