package projections_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// listFlow is a workflow the listing tests append to the log.
type listFlow struct {
	title, description, taskType string
	// then is what happens after the plan: "" (planned), "queued",
	// "executing", "completed", "failed", "halted", "cancelled", or one of
	// the workflow-control flows of controlEvents.
	then string
}

var listSteps = []workflow.PlannedStep{
	{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Tier: 1, Credits: 200},
	{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530},
}

// appendFlow appends f's events for org and returns the workflow id.
func appendFlow(t *testing.T, org string, f listFlow) string {
	t.Helper()
	id := workflow.NewID()
	m := event.Metadata{OrgID: org, Actor: "test"}
	ev := func(data event.Data) event.New {
		return event.New{Data: data, Metadata: m}
	}
	events := []event.New{ev(workflow.Planned{WorkflowID: id, OrgID: org, WorkspaceID: uuid.NewString(),
		TaskType: f.taskType, ValueClass: "operational", Title: f.title, Description: f.description, RigorLevel: "standard",
		TotalSteps: 2, Credits: 730, Execution: "standard", Steps: listSteps})}
	if f.then != "" {
		mode := workflow.ModeFull
		if slices.Contains([]string{"interactive", "aborted", "timed_out", "step_executing"}, f.then) {
			mode = workflow.ModeInteractive
		}
		events = append(events, ev(workflow.Queued{WorkflowID: id, OrgID: org, Tier: "free", Mode: mode,
			Delivery: workflow.Delivery{Method: "polling"}, Estimated: 730}))
	}
	switch f.then {
	case "executing", "completed", "failed", "halted":
		events = append(events, ev(workflow.Started{Worker: "w"}),
			ev(workflow.StepStarted{Step: 1, Name: "Desk Research", Attempt: 1}))
	case "cancelled":
		events = append(events, ev(workflow.Cancelled{From: "queued"}))
	}
	switch f.then {
	case "completed":
		events = append(events,
			ev(workflow.StepCompleted{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Summary: "s", Credits: 200}),
			ev(workflow.StepStarted{Step: 2, Name: "Synthesis", Attempt: 1}),
			ev(workflow.StepCompleted{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Summary: "s",
				Deliverable: &workflow.Deliverable{Title: f.title, Sections: []workflow.Section{{Heading: "H", Content: "C"}}}}),
			ev(workflow.Completed{Fee: 530, TaskType: f.taskType, Estimated: 730, CreditsUsed: 730,
				Deliverable: &workflow.Deliverable{Title: f.title, Sections: []workflow.Section{{Heading: "H", Content: "C"}}}}))
	case "failed":
		events = append(events, ev(workflow.Failed{Code: "provider_exhausted", Error: "provider_exhausted: boom", Step: 1}))
	case "halted":
		events = append(events, ev(workflow.Halted{Step: 1, Reason: "connection_failure", BlockingIssues: []string{"x"}}))
	}
	events = append(events, controlEvents(f.then, ev)...)
	// one append per event: the live projection sees the stream's tail
	// in later batches than its head
	for i, e := range events {
		if _, err := store.Append(context.Background(), workflow.Stream(id), int64(i)-1, e); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// listIDs runs ListWorkflows for org with f (limit 100 unless set) and
// returns the ids in order, and the page.
func listIDs(t *testing.T, org string, f projections.WorkflowFilter) ([]string, projections.WorkflowPage) {
	t.Helper()
	f.OrgID = org
	if f.Limit == 0 {
		f.Limit = 100
	}
	page, err := projections.ListWorkflows(context.Background(), db.Pool, f)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, w := range page.Workflows {
		ids = append(ids, w.WorkflowID)
	}
	return ids, page
}

// setCreated moves a workflow's created_at in the read model (both tables).
func setCreated(t *testing.T, id string, at time.Time) {
	t.Helper()
	for _, table := range []string{"workflows", "workflow_search"} {
		if _, err := db.Pool.Exec(context.Background(), "UPDATE "+table+" SET created_at = $1 WHERE workflow_id = $2", at, id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchTerms(t *testing.T) {
	for q, want := range map[string][]string{
		"":                                     nil,
		"*** ( ) , ; ! ? % = * ~ | \\ \" ":     nil,
		"  Pricing   BOARD ":                   {"pricing", "board"},
		"pricing,board;q3":                     {"pricing", "board", "q3"},
		"c++ #launch o'brien a&b x/y e.g. @me": {"c++", "#launch", "o'brien", "a&b", "x/y", "e.g.", "@me"},
		"snake_case wild%card tab\there":       {"snake_case", "wild", "card", "tab", "here"},
		"Größe МОСКВА 東京 ٣":                    {"größe", "москва", "東京", "٣"},
		"a A a b B c d e f g h i j":            {"a", "b", "c", "d", "e", "f", "g", "h"},
		"1 2 3 4 5 6 7 8 9 10":                 {"1", "2", "3", "4", "5", "6", "7", "8"},
	} {
		if got := projections.SearchTerms(q); !reflect.DeepEqual(got, want) {
			t.Errorf("SearchTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestWorkflowListFilters(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, []projections.Projection{projections.Workflows{}, projections.Folders{}}, projections.WithBatch(3))
	org, other := uuid.NewString(), uuid.NewString()
	ids := map[string]string{}
	for name, f := range map[string]listFlow{
		"planned":   {"Pricing review for the board", "Compare our SaaS pricing with three competitors", "competitive_analysis", ""},
		"queued":    {"Support triage", "Improve how our support team triages customer tickets", "process_improvement", "queued"},
		"executing": {"Launch plan", "Draft a launch plan for our mobile app in Germany #launch", "strategy", "executing"},
		"completed": {"Migration guide", "Write the migration guide from v1 to v2 of the API (snake_case fields)", "documentation", "completed"},
		"failed":    {"C++ audit", "Audit our c++ codebase for O'Brien & partners", "code_review", "failed"},
		"halted":    {"Repo review", "Review the repository at github.com/acme/app for snakeXcase names", "code_review", "halted"},
		"cancelled": {"Ünïcode Größe", "ПРОВЕРКА of pricing in Moscow", "competitive_analysis", "cancelled"},
	} {
		ids[name] = appendFlow(t, org, f)
	}
	foreign := appendFlow(t, other, listFlow{"Pricing review for the board", "Compare our SaaS pricing", "competitive_analysis", "queued"})
	// folders: completed and failed in one; queued in one deleted since;
	// halted moved out of the first into another, then removed from it
	kept, gone, emptied, theirs := fileFolders(t, org, other, ids, foreign)
	catchUp(t, r)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	order := []string{"planned", "queued", "executing", "completed", "failed", "halted", "cancelled"} // oldest first
	for i, name := range order {
		setCreated(t, ids[name], base.Add(time.Duration(i)*time.Hour))
	}
	want := func(names ...string) []string {
		var out []string
		for i := len(order) - 1; i >= 0; i-- { // newest first
			if slices.Contains(names, order[i]) {
				out = append(out, ids[order[i]])
			}
		}
		if out == nil {
			out = []string{}
		}
		return out
	}
	yes, no := true, false
	after, before := base.Add(90*time.Minute), base.Add(4*time.Hour)
	for _, c := range []struct {
		name string
		f    projections.WorkflowFilter
		want []string
	}{
		{"all", projections.WorkflowFilter{}, want(order...)},
		{"status", projections.WorkflowFilter{Statuses: []string{"completed"}}, want("completed")},
		{"statuses", projections.WorkflowFilter{Statuses: []string{"queued", "halted", "nonexistent"}}, want("queued", "halted")},
		{"task_type", projections.WorkflowFilter{TaskType: "code_review"}, want("failed", "halted")},
		{"status and task_type", projections.WorkflowFilter{TaskType: "code_review", Statuses: []string{"halted"}}, want("halted")},
		{"counts_toward_limit", projections.WorkflowFilter{CountsTowardLimit: &yes}, want("queued", "executing")},
		{"not counts_toward_limit", projections.WorkflowFilter{CountsTowardLimit: &no}, want("planned", "completed", "failed", "halted", "cancelled")},
		{"created_after", projections.WorkflowFilter{CreatedAfter: &after}, want("executing", "completed", "failed", "halted", "cancelled")},
		{"created_before (exclusive)", projections.WorkflowFilter{CreatedBefore: &before}, want("planned", "queued", "executing", "completed")},
		{"created window", projections.WorkflowFilter{CreatedAfter: &after, CreatedBefore: &before}, want("executing", "completed")},
		{"folder unassigned", projections.WorkflowFilter{FolderID: projections.FolderUnassigned}, want("planned", "queued", "executing", "halted", "cancelled")},
		{"folder", projections.WorkflowFilter{FolderID: kept}, want("completed", "failed")},
		{"folder and status", projections.WorkflowFilter{FolderID: kept, Statuses: []string{"failed"}}, want("failed")},
		{"folder and task_type", projections.WorkflowFilter{FolderID: kept, TaskType: "code_review"}, want("failed")},
		{"unassigned and status", projections.WorkflowFilter{FolderID: projections.FolderUnassigned, Statuses: []string{"completed", "halted"}}, want("halted")},
		{"deleted folder", projections.WorkflowFilter{FolderID: gone}, want()},
		{"emptied folder", projections.WorkflowFilter{FolderID: emptied}, want()},
		{"another org's folder", projections.WorkflowFilter{FolderID: theirs}, want()},
		{"unknown folder", projections.WorkflowFilter{FolderID: uuid.NewString()}, want()},
		{"other folder", projections.WorkflowFilter{FolderID: "fld_123"}, want()},
		{"folder urn", projections.WorkflowFilter{FolderID: "urn:uuid:" + kept}, want()},
		{"q and folder", projections.WorkflowFilter{Terms: projections.SearchTerms("snake_case"), FolderID: kept}, want("completed")},
		{"q and unassigned", projections.WorkflowFilter{Terms: projections.SearchTerms("snake"), FolderID: projections.FolderUnassigned}, want("halted")},
		{"q in title, any case", projections.WorkflowFilter{Terms: projections.SearchTerms("BOARD")}, want("planned")},
		{"q in description", projections.WorkflowFilter{Terms: projections.SearchTerms("tickets")}, want("queued")},
		{"q substring", projections.WorkflowFilter{Terms: projections.SearchTerms("pric")}, want("planned", "cancelled")},
		{"q every term, title or description", projections.WorkflowFilter{Terms: projections.SearchTerms("board competitors")}, want("planned")},
		{"q one term missing", projections.WorkflowFilter{Terms: projections.SearchTerms("board tickets")}, want()},
		{"q no stemming", projections.WorkflowFilter{Terms: projections.SearchTerms("migrating")}, want()},
		{"q underscore literal", projections.WorkflowFilter{Terms: projections.SearchTerms("snake_case")}, want("completed")},
		{"q separators", projections.WorkflowFilter{Terms: projections.SearchTerms("(support), [team]!")}, want("queued")},
		{"q only separators", projections.WorkflowFilter{Terms: projections.SearchTerms("*** ???")}, want(order...)},
		{"q kept characters", projections.WorkflowFilter{Terms: projections.SearchTerms("c++ o'brien &")}, want("failed")},
		{"q hash and slash", projections.WorkflowFilter{Terms: projections.SearchTerms("#launch")}, want("executing")},
		{"q path", projections.WorkflowFilter{Terms: projections.SearchTerms("github.com/acme/app")}, want("halted")},
		{"q unicode case", projections.WorkflowFilter{Terms: projections.SearchTerms("größe проверка")}, want("cancelled")},
		{"q ninth term ignored", projections.WorkflowFilter{Terms: projections.SearchTerms("compare our saas pricing with three competitors board absent")}, want("planned")},
		{"q and status", projections.WorkflowFilter{Terms: projections.SearchTerms("pricing"), Statuses: []string{"cancelled"}}, want("cancelled")},
		{"q, task_type and dates", projections.WorkflowFilter{Terms: projections.SearchTerms("a"), TaskType: "code_review", CreatedAfter: &after}, want("failed", "halted")},
		{"q and counts_toward_limit", projections.WorkflowFilter{Terms: projections.SearchTerms("our"), CountsTowardLimit: &yes}, want("queued", "executing")},
		{"q and other folder", projections.WorkflowFilter{Terms: projections.SearchTerms("pricing"), FolderID: "fld_1"}, want()},
	} {
		// q through a scan of the org's rows (small orgs) and through the trigram index
		for _, scanLimit := range []int64{10_000, -1} {
			restore := projections.SetSearchScanLimit(scanLimit)
			got, page := listIDs(t, org, c.f)
			restore()
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s (scan limit %d): got %v, want %v", c.name, scanLimit, got, c.want)
			}
			if page.Total != int64(len(c.want)) || page.Next != nil || page.Active != 2 {
				t.Errorf("%s: total %d (want %d), next %v, active %d (want 2)", c.name, page.Total, len(c.want), page.Next, page.Active)
			}
			if slices.Contains(got, foreign) {
				t.Errorf("%s: another org's workflow listed", c.name)
			}
		}
	}

	// the row's fields
	_, page := listIDs(t, org, projections.WorkflowFilter{Statuses: []string{"halted"}})
	h := page.Workflows[0]
	if h.Status != "halted" || h.TaskType != "code_review" || h.TotalSteps != 2 || h.CurrentStep != 1 || h.Title != "Repo review" ||
		h.CountsTowardLimit || h.HaltReason == nil || *h.HaltReason != "connection_failure" || h.HaltedAtStep == nil || *h.HaltedAtStep != 1 ||
		h.Error == nil || h.StartedAt == nil || h.CompletedAt == nil || !h.CreatedAt.Equal(base.Add(5*time.Hour)) {
		t.Errorf("halted row %+v", h)
	}
	_, page = listIDs(t, org, projections.WorkflowFilter{Statuses: []string{"completed"}})
	if c := page.Workflows[0]; c.CreditsCharged != 730 || c.Error != nil || c.HaltReason != nil || c.ApprovalStatus == nil || *c.ApprovalStatus != "not_required" {
		t.Errorf("completed row %+v", c)
	}
}

func TestWorkflowListExcerpt(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, []projections.Projection{projections.Workflows{}})
	org := uuid.NewString()
	long := ""
	for len([]rune(long)) < 300 {
		long += "Überprüfung der Preise "
	}
	appendFlow(t, org, listFlow{"T", long, "strategy", ""})
	catchUp(t, r)
	_, page := listIDs(t, org, projections.WorkflowFilter{})
	if got := page.Workflows[0].Excerpt; got != string([]rune(long)[:200]) {
		t.Errorf("excerpt %q (%d characters), want the first 200 characters", got, len([]rune(got)))
	}
}

// TestWorkflowListPaging: cursor pages, ties on created_at included, cover
// the listing without gaps or duplicates, the total is that of the filter
// on every page, and workflows created meanwhile do not shift the pages.
func TestWorkflowListPaging(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, []projections.Projection{projections.Workflows{}}, projections.WithBatch(50))
	org := uuid.NewString()
	var all []string
	for i := range 23 {
		then := []string{"", "queued", "completed"}[i%3]
		all = append(all, appendFlow(t, org, listFlow{fmt.Sprintf("Flow %d", i), "Page through the workflows " + then, "strategy", then}))
	}
	catchUp(t, r)
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range all {
		setCreated(t, id, base.Add(time.Duration(i/4)*time.Minute)) // groups of 4 share a created_at
	}
	full, _ := listIDs(t, org, projections.WorkflowFilter{})
	q := []string{"page", "completed"}
	for _, scanLimit := range []int64{10_000, -1} { // q through a scan of the org's rows, then the trigram index
		restore := projections.SetSearchScanLimit(scanLimit)
		for _, f := range []projections.WorkflowFilter{{}, {Statuses: []string{"completed"}}, {Terms: q}, {Terms: q, Statuses: []string{"completed"}}, {Terms: q, TaskType: "strategy"}} {
			want, _ := listIDs(t, org, f)
			for _, limit := range []int{1, 4, 5, 22, 23, 100} {
				f.Limit, f.After = limit, nil
				var got []string
				for pages := 0; ; pages++ {
					if pages > len(want) {
						t.Fatalf("limit %d: more pages than rows", limit)
					}
					ids, page := listIDs(t, org, f)
					if page.Total != int64(len(want)) || len(ids) > limit {
						t.Fatalf("limit %d: page of %d, total %d, want %d", limit, len(ids), page.Total, len(want))
					}
					got = append(got, ids...)
					if page.Next == nil {
						break
					}
					if len(ids) != limit {
						t.Fatalf("limit %d: short page %d with a next cursor", limit, len(ids))
					}
					c, err := projections.DecodeCursor(page.Next.Encode())
					if err != nil || !c.CreatedAt.Equal(page.Next.CreatedAt) || c.WorkflowID != page.Next.WorkflowID {
						t.Fatalf("cursor round trip: %+v %v", c, err)
					}
					f.After = &c
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("filter %+v limit %d: pages gave %v, want %v", f, limit, got, want)
				}
			}
			// a cursor at the last row: no rows, the same total
			_, whole := listIDs(t, org, projections.WorkflowFilter{Statuses: f.Statuses, Terms: f.Terms})
			last := whole.Workflows[len(whole.Workflows)-1]
			f.After = &projections.Cursor{CreatedAt: last.CreatedAt, WorkflowID: last.WorkflowID}
			if ids, page := listIDs(t, org, f); len(ids) != 0 || page.Total != int64(len(want)) || page.Next != nil {
				t.Errorf("filter %+v: past the end %v, total %d", f, ids, page.Total)
			}
		}
		restore()
	}
	// order: newest first, ties by workflow_id descending
	for i := 1; i < len(full); i++ {
		a, b := slices.Index(all, full[i-1]), slices.Index(all, full[i])
		if a/4 < b/4 || (a/4 == b/4 && full[i-1] < full[i]) {
			t.Fatalf("order broken at %d: %v", i, full)
		}
	}

	// stable under inserts: new (newer) workflows do not move the next pages
	_, first := listIDs(t, org, projections.WorkflowFilter{Limit: 5})
	var late []string
	for i := range 3 {
		late = append(late, appendFlow(t, org, listFlow{fmt.Sprintf("Late %d", i), "Created while paging", "strategy", ""}))
	}
	catchUp(t, r)
	for _, id := range late {
		setCreated(t, id, base.Add(time.Hour))
	}
	rest, page := listIDs(t, org, projections.WorkflowFilter{After: first.Next})
	if !reflect.DeepEqual(rest, full[5:]) || page.Total != int64(len(full)+3) {
		t.Errorf("after inserts: %v (total %d), want %v", rest, page.Total, full[5:])
	}

	for _, bad := range []string{"", "!!", "bm90LWEtY3Vyc29y", projections.Cursor{}.Encode()[:3]} {
		if _, err := projections.DecodeCursor(bad); !errors.Is(err, projections.ErrBadCursor) {
			t.Errorf("DecodeCursor(%q): %v", bad, err)
		}
	}
}

// TestWorkflowsRebuildEqualsLive: the workflows read model (rows and search
// table) rebuilt from the log equals the one built live, batch by batch.
// The live model keeps its folds in memory (NewWorkflows) and applies the
// log two events at a time; the rebuild reads every workflow's earlier
// events from the log (the zero value): both agree.
func TestWorkflowsRebuildEqualsLive(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.NewWorkflows()}
	r := newRunner(t, ps, projections.WithBatch(2))
	for o := range 3 {
		org := uuid.NewString()
		flows := append([]string{"", "queued", "executing", "completed", "failed", "halted", "cancelled"}, controlFlows...)
		for i, then := range flows {
			appendFlow(t, org, listFlow{fmt.Sprintf("Flow %d-%d", o, i), "Rebuild me " + then, "strategy", then})
			if i%2 == 0 {
				catchUp(t, r) // the live model applies the log in many small steps
			}
		}
	}
	catchUp(t, r)
	live := dump(t, ps)
	if n := 3 * (7 + len(controlFlows)); len(live["workflows"]) != n || len(live["workflow_search"]) != n {
		t.Fatalf("live model: %d workflows, %d search rows", len(live["workflows"]), len(live["workflow_search"]))
	}
	var sum, zero, off int64
	if err := db.Pool.QueryRow(context.Background(), "SELECT sum(n), count(*) FILTER (WHERE n = 0) FROM workflow_counts").Scan(&sum, &zero); err != nil || sum != int64(3*(7+len(controlFlows))) || zero != 0 {
		t.Fatalf("status counts: sum %d, %d rows at zero, %v", sum, zero, err)
	}
	// every count is that of the rows, per org and status
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM workflow_counts c
		FULL JOIN (SELECT org_id, status, bool_or(counts_toward_limit) AS active, count(*) AS n FROM workflows GROUP BY 1, 2) w USING (org_id, status)
		WHERE c.n IS DISTINCT FROM w.n OR c.counts_toward_limit IS DISTINCT FROM w.active`).Scan(&off); err != nil || off != 0 {
		t.Fatalf("status counts: %d (org, status) pairs differ from the rows, %v", off, err)
	}
	plain := projections.Workflows{}
	if _, err := projections.NewRunner(store, quiet, []projections.Projection{plain}, projections.WithBatch(7)).Rebuild(context.Background(), plain, nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}

// controlFlows are the workflow-control flows of controlEvents.
var controlFlows = []string{"pending_approval", "approved", "rejected", "interactive", "aborted", "timed_out", "resumed", "step_executing"}

// controlEvents are the events after WorkflowQueued of a control flow
// (nil for the other flows); the interactive ones are queued interactive.
func controlEvents(then string, ev func(event.Data) event.New) []event.New {
	step1 := ev(workflow.StepCompleted{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Summary: "s", Credits: 200})
	gate := ev(workflow.ApprovalRequested{Gate: 1, Step: 2,
		Deliverable: &workflow.Deliverable{Title: "T", Sections: []workflow.Section{{Heading: "Desk Research", Content: "s"}}}})
	started := ev(workflow.Started{Worker: "w"})
	switch then {
	case "pending_approval":
		return []event.New{started, step1, gate}
	case "approved":
		return []event.New{started, step1, gate, ev(workflow.Approved{Gate: 1, Notes: "ok", AgentID: "board_chair"})}
	case "rejected":
		return []event.New{started, step1, gate, ev(workflow.Rejected{Gate: 1, Notes: "no", AgentID: "board_chair"})}
	case "interactive", "aborted", "timed_out", "step_executing":
		out := []event.New{ev(workflow.StepSkipped{Step: 1, Name: "Desk Research"})}
		switch then {
		case "aborted":
			out = append(out, ev(workflow.Aborted{StepsCompleted: 0, TotalSteps: 2}))
		case "timed_out":
			out = append(out, ev(workflow.TimedOut{IdleSeconds: 1900}))
		case "step_executing":
			out = append(out, ev(workflow.StepRequested{Step: 2, Name: "Synthesis", Feedback: "f"}))
		}
		return out
	case "resumed":
		return []event.New{started, ev(workflow.Failed{Code: "provider_exhausted", Error: "e", Step: 1}),
			ev(workflow.Resumed{From: "failed", FromStep: 1, RevisionGuidance: "g"})}
	}
	return nil
}
