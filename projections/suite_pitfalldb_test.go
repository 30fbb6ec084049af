package projections_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"svc/domain/pitfalldb"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// TestPitfallsEraseOrg: three organizations report one pitfall (and one
// its own); erasing the second recomputes the shared pitfall from the
// other two's reports, deletes the erased one's own pitfall, names the
// erased organization nowhere, and a rebuild equals the live model.
func TestPitfallsEraseOrg(t *testing.T) {
	db.Reset(t)
	ctx := context.Background()
	ps := []projections.Projection{projections.Pitfalls{}}
	r := newRunner(t, ps)
	orgs := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	report := func(org, taskType string, f pitfalldb.Failure) string {
		t.Helper()
		rep, err := pitfalldb.Report{TaskType: taskType, TaskDescription: "d", Failure: f}.Check()
		if err != nil {
			t.Fatal(err)
		}
		id, _ := pitfalldb.PitfallID(rep)
		p := pitfalldb.New(id)
		evs, err := store.Load(ctx, pitfalldb.Stream(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if err := p.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
		d := p.Report(uuid.NewString(), org, rep)
		if _, err := store.Append(ctx, pitfalldb.Stream(id), p.Version(), event.New{Metadata: event.Metadata{OrgID: org}, Data: d}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	shared := pitfalldb.Failure{ErrorType: "KeyError", ErrorMessage: "missing 'id' in row 3"}
	worked := shared
	worked.FixApplied, worked.FixWorked = "validate rows", true
	id := report(orgs[0], "data_extraction", shared)
	report(orgs[1], "data_extraction", worked)
	report(orgs[1], "data_extraction", worked)
	report(orgs[2], "data_extraction", shared)
	own := report(orgs[1], "sql_generation", pitfalldb.Failure{ErrorType: "Oops", ErrorMessage: "only mine"})
	catchUp(t, r)

	var reports, n int
	var verified bool
	var fix string
	row := func() {
		t.Helper()
		if err := db.Pool.QueryRow(ctx, `SELECT reports, orgs, verified, fix FROM pitfalldb_pitfalls WHERE pitfall_id = $1`, id).Scan(&reports, &n, &verified, &fix); err != nil {
			t.Fatal(err)
		}
	}
	row()
	if reports != 4 || n != 3 || !verified || fix != "validate rows" {
		t.Fatalf("before: %d reports by %d orgs, verified %v, fix %q", reports, n, verified, fix)
	}
	if _, err := eventstore.DeleteOrgEvents(ctx, db.Pool, orgs[1], 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := projections.EraseOrg(ctx, db.Pool, ps, projections.OrgErasure{OrgID: orgs[1]}); err != nil {
		t.Fatal(err)
	}
	row()
	if reports != 2 || n != 2 || !verified || fix != pitfalldb.NoFixYet {
		t.Fatalf("after: %d reports by %d orgs, verified %v, fix %q", reports, n, verified, fix)
	}
	var left int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pitfalldb_pitfalls WHERE pitfall_id = $1) +
		(SELECT count(*) FROM pitfalldb_reports WHERE org_id = $2)`, own, orgs[1]).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rows of the erased organization left: %v", left, err)
	}
	live := dump(t, ps)
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(ctx, ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}
