package commands_test

import (
	"context"
	"sync"
	"testing"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
)

// TestDemoOrgCreatedOnce: instances racing to create the demo
// organization (each its own store and repositories over one database)
// create it once, and all answer its ids; it has no credits.
func TestDemoOrgCreatedOnce(t *testing.T) {
	ctx := context.Background()
	before := countOrgEvents(t, commands.DemoOrgID)
	var wg sync.WaitGroup
	got := make([]commands.DemoOrg, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Go(func() {
			got[i], errs[i] = commands.NewDemoOrgs(commands.NewRepositories(eventstore.New(db.Pool))).Ensure(ctx)
		})
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != (commands.DemoOrg{OrgID: commands.DemoOrgID, WorkspaceID: commands.DemoWorkspaceID, KeyID: commands.DemoKeyID}) {
			t.Fatalf("instance %d: %+v %v", i, got[i], errs[i])
		}
	}
	if n := countOrgEvents(t, commands.DemoOrgID) - before; before == 0 && n != 5 {
		t.Fatalf("%d events for the demo organization, want 5 (org, workspace, its key attached, its slug, key)", n)
	}
	o, err := org.Load(mustLoad(t, org.Stream(commands.DemoOrgID)))
	if err != nil || o.Tier() != org.Free || o.WorkspaceID() != commands.DemoWorkspaceID {
		t.Fatalf("org %+v %v", o, err)
	}
	if n := len(mustLoad(t, credit.Stream(commands.DemoOrgID))); n != 0 {
		t.Errorf("the demo organization has %d ledger events", n)
	}
	// again: nothing more
	n := countOrgEvents(t, commands.DemoOrgID)
	if _, err := commands.NewDemoOrgs(commands.NewRepositories(store)).Ensure(ctx); err != nil || countOrgEvents(t, commands.DemoOrgID) != n {
		t.Fatalf("a second creation: %v", err)
	}
}
