package projections_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/commands"
	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// TestEveryTableIsErasable fails for a read-model table that erasing an
// organization would miss: one without an org_id column whose projection
// does not erase its rows itself (projections.OrgEraser).
func TestEveryTableIsErasable(t *testing.T) {
	orgColumn := regexp.MustCompile(`(?m)^\s*org_id\s`)
	for _, p := range projections.All() {
		if _, ok := p.(projections.OrgEraser); ok {
			continue
		}
		for _, tb := range p.Tables() {
			if !orgColumn.MatchString(tb.DDL) {
				t.Errorf("table %s of projection %s has no org_id column: implement projections.OrgEraser", tb.Name, p.Name())
			}
		}
	}
}

// populateOwn signs up an organization with charges, a refund, a
// reservation, a verified email and folders, like populate, but on
// workflow ids of its own (populate's orgs share wr_0, which one row of
// usage_workflows holds for all of them).
func populateOwn(t *testing.T, i int) string {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	res, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: fmt.Sprintf("e%d-%d@example.com", i, time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	wf := func(n int) string { return fmt.Sprintf("wr_%s_%d", res.OrgID[:8], n) }
	for s := 0; s < 3; s++ {
		if _, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: res.OrgID, Amount: int64(100 + s), Reason: "step", WorkflowID: wf(s % 2)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := commands.NewRefundCreditsHandler(repos).Handle(ctx, commands.RefundCredits{OrgID: res.OrgID, WorkflowID: wf(0), Amount: 50, Reason: "failed"}); err != nil {
		t.Fatal(err)
	}
	ledgerDecides(t, res.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		r, _, err := l.Reserve(wf(2), 200)
		return []event.Data{r}, err
	})
	if _, err := commands.NewVerifyEmailHandler(repos).Handle(ctx, commands.VerifyEmail{Token: res.VerificationToken}); err != nil {
		t.Fatal(err)
	}
	populateFolders(t, res.OrgID, res.WorkspaceID)
	return res.OrgID
}

// TestEraseOrgLeavesARebuildEqual erases one of three organizations (its
// events, then its read-model rows): no row names it any more, and every
// read model rebuilt from the log equals the live one, so the others'
// are untouched; their billing still replays without a difference.
func TestEraseOrgLeavesARebuildEqual(t *testing.T) {
	db.Reset(t)
	ctx := context.Background()
	ps := projections.All()
	r := newRunner(t, ps)
	var orgs []string
	for i := range 3 {
		orgs = append(orgs, populateOwn(t, i))
	}
	catchUp(t, r)
	gone := orgs[0]
	var keys, spaces []string
	for sql, into := range map[string]*[]string{
		`SELECT key_id::text FROM api_keys WHERE org_id = $1`: &keys,
		`SELECT id::text FROM workspaces WHERE org_id = $1`:   &spaces,
	} {
		rows, err := db.Pool.Query(ctx, sql, gone)
		if err != nil {
			t.Fatal(err)
		}
		if *into, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(*into) == 0 {
			t.Fatalf("%s: %v %v", sql, *into, err)
		}
	}
	for {
		n, err := eventstore.DeleteOrgEvents(ctx, db.Pool, gone, 7)
		if err != nil {
			t.Fatal(err)
		}
		if n < 7 {
			break
		}
	}
	n, err := projections.EraseOrg(ctx, db.Pool, ps, projections.OrgErasure{OrgID: gone, Keys: keys, Workspaces: spaces})
	if err != nil || n == 0 {
		t.Fatalf("erased %d rows: %v", n, err)
	}
	live := dump(t, ps)
	if s := fmt.Sprint(live); strings.Contains(s, gone) || strings.Contains(s, keys[0]) || strings.Contains(s, spaces[0]) {
		t.Fatalf("a read model still names the erased organization: %s", s)
	}
	if len(live["organizations"]) != 2 || len(live["balances"]) != 2 {
		t.Fatalf("%d organizations and %d balances left, want 2", len(live["organizations"]), len(live["balances"]))
	}
	for _, p := range ps {
		if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(7)).Rebuild(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
	for _, id := range orgs[1:] {
		rep, err := projections.ReplayBilling(ctx, store, id)
		if err != nil || len(rep.Differences) != 0 {
			t.Fatalf("replay of %s after the erasure: %+v %v", id, rep, err)
		}
	}
}
