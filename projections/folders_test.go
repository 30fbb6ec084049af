package projections_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/folder"
	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// appendData appends data to stream, at its current version.
func appendData(t *testing.T, org, stream string, data ...event.Data) {
	t.Helper()
	ctx := context.Background()
	v, err := store.Version(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range data {
		if _, err := store.Append(ctx, stream, v, event.New{Data: d, Metadata: event.Metadata{OrgID: org}}); err != nil {
			t.Fatal(err)
		}
		v++
	}
}

// fileFolders puts the listing test's workflows into folders: completed
// and failed into kept; queued into gone, deleted since; halted into kept,
// then into emptied and out of it. theirs is the other org's folder,
// holding its workflow foreign.
func fileFolders(t *testing.T, org, other string, ids map[string]string, foreign string) (kept, gone, emptied, theirs string) {
	t.Helper()
	ws := uuid.NewString()
	create := func(org, name string) string {
		id := uuid.NewString()
		appendData(t, org, folder.Stream(id), folder.Created{FolderID: id, OrgID: org, WorkspaceID: ws, Name: name})
		return id
	}
	add := func(org, wf, f, from string) {
		appendData(t, org, folder.AssignmentStream(wf), folder.WorkflowAdded{WorkflowID: wf, OrgID: org, WorkspaceID: ws, FolderID: f, From: from})
	}
	kept, gone, emptied, theirs = create(org, "Kept"), create(org, "Gone"), create(org, "Emptied"), create(other, "Theirs")
	add(org, ids["completed"], kept, "")
	add(org, ids["failed"], kept, "")
	add(org, ids["queued"], gone, "")
	add(org, ids["halted"], kept, "")
	add(org, ids["halted"], emptied, kept)
	appendData(t, org, folder.AssignmentStream(ids["halted"]), folder.WorkflowRemoved{WorkflowID: ids["halted"], OrgID: org, WorkspaceID: ws, FolderID: emptied})
	appendData(t, org, folder.Stream(gone), folder.Deleted{FolderID: gone, OrgID: org, WorkspaceID: ws, Name: "Gone"})
	add(other, foreign, theirs, "")
	return kept, gone, emptied, theirs
}

// populateFolders gives workspace wsID of org folders through the
// commands: one renamed, one deleted, a workflow moved in and out, and a
// workflow moved into a folder deleted afterwards.
func populateFolders(t *testing.T, org, wsID string) {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	create := func(name string) string {
		res, err := commands.NewCreateFolderHandler(repos).Handle(ctx, commands.CreateFolder{OrgID: org, WorkspaceID: wsID, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return res.FolderID
	}
	a, b, c := create("Alpha"), create("Beta"), create("Gamma")
	if _, err := commands.NewRenameFolderHandler(repos).Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: wsID, FolderID: a, Name: "Alpha 2"}); err != nil {
		t.Fatal(err)
	}
	w1, w2 := planned(t, org, wsID), planned(t, org, wsID)
	move := func(f string, ids ...string) {
		if _, err := commands.NewMoveWorkflowsHandler(repos).Handle(ctx, commands.MoveWorkflows{OrgID: org, WorkspaceID: wsID, FolderID: f, WorkflowIDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	move(a, w1, w2)
	move(b, w2)
	if _, err := commands.NewRemoveFromFolderHandler(repos).Handle(ctx, commands.RemoveFromFolder{OrgID: org, WorkspaceID: wsID, FolderID: a, WorkflowID: w1}); err != nil {
		t.Fatal(err)
	}
	move(c, w1)
	if _, err := commands.NewDeleteFolderHandler(repos).Handle(ctx, commands.DeleteFolder{OrgID: org, WorkspaceID: wsID, FolderID: c}); err != nil {
		t.Fatal(err)
	}
}

// planned appends a planned workflow of workspace wsID and returns its id.
func planned(t *testing.T, org, wsID string) string {
	t.Helper()
	id := workflow.NewID()
	appendData(t, org, workflow.Stream(id), workflow.Planned{WorkflowID: id, OrgID: org, WorkspaceID: wsID, TaskType: "strategy",
		ValueClass: "operational", Title: "T", Description: "D", RigorLevel: "standard", TotalSteps: 2, Credits: 730,
		Execution: "standard", Steps: listSteps})
	return id
}

func TestFolders(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Folders{}}
	r := newRunner(t, ps)
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	signup, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "f-" + workflow.NewID() + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	org, ws := signup.OrgID, signup.WorkspaceID
	populateFolders(t, org, ws)
	catchUp(t, r)
	q := projections.NewQueries(store, repos.Workflows, nil, quiet)
	list, err := q.Folders(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range list {
		names = append(names, f.Name)
		if got, err := q.Folder(ctx, ws, f.ID); err != nil || got != f {
			t.Errorf("Folder(%s) = %+v %v, want %+v", f.ID, got, err, f)
		}
		if time.Since(f.CreatedAt) > time.Minute {
			t.Errorf("created_at %v", f.CreatedAt)
		}
	}
	if !reflect.DeepEqual(names, []string{"Alpha 2", "Beta"}) {
		t.Fatalf("folders %v, want Alpha 2 and Beta by name (Gamma deleted)", names)
	}
	if _, err := q.Folder(ctx, uuid.NewString(), list[0].ID); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("a folder through another workspace: %v", err)
	}
	if _, err := q.Folder(ctx, ws, "nope"); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("a malformed id: %v", err)
	}
	var members int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM folder_workflows").Scan(&members); err != nil || members != 1 {
		t.Fatalf("%d workflows in folders (%v), want 1: one in Beta, the other's folder deleted", members, err)
	}

	live := dump(t, ps)
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(ctx, ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt folders differ:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}

// TestFolderCommands: the rules the commands enforce with the store.
func TestFolderCommands(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	signup, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "fc-" + workflow.NewID() + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	org, ws := signup.OrgID, signup.WorkspaceID
	create := commands.NewCreateFolderHandler(repos)
	a, err := create.Handle(ctx, commands.CreateFolder{OrgID: org, WorkspaceID: ws, Name: "Reports"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create.Handle(ctx, commands.CreateFolder{OrgID: org, WorkspaceID: ws, Name: "  REPORTS "}); !errors.Is(err, folder.ErrNameTaken) {
		t.Fatalf("same name, other case: %v", err)
	}
	if _, err := create.Handle(ctx, commands.CreateFolder{OrgID: uuid.NewString(), WorkspaceID: ws, Name: "Other"}); err == nil {
		t.Fatal("a folder in another org's workspace")
	}
	b, _ := create.Handle(ctx, commands.CreateFolder{OrgID: org, WorkspaceID: ws, Name: "Drafts"})
	rename := commands.NewRenameFolderHandler(repos)
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: ws, FolderID: b.FolderID, Name: "reports"}); !errors.Is(err, folder.ErrNameTaken) {
		t.Fatalf("rename onto a taken name: %v", err)
	}
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, Name: "REPORTS"}); err != nil {
		t.Fatalf("case change: %v", err)
	}
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, Name: "Archive"}); err != nil {
		t.Fatal(err)
	}
	// the old name is free again
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: ws, FolderID: b.FolderID, Name: "Reports"}); err != nil {
		t.Fatalf("rename onto a released name: %v", err)
	}
	if _, err := commands.NewDeleteFolderHandler(repos).Handle(ctx, commands.DeleteFolder{OrgID: org, WorkspaceID: ws, FolderID: b.FolderID}); err != nil {
		t.Fatal(err)
	}
	if _, err := create.Handle(ctx, commands.CreateFolder{OrgID: org, WorkspaceID: ws, Name: "reports"}); err != nil {
		t.Fatalf("a deleted folder's name: %v", err)
	}
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: ws, FolderID: b.FolderID, Name: "x"}); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("rename a deleted folder: %v", err)
	}
	if _, err := rename.Handle(ctx, commands.RenameFolder{OrgID: org, WorkspaceID: uuid.NewString(), FolderID: a.FolderID, Name: "x"}); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("rename through another workspace: %v", err)
	}

	move := commands.NewMoveWorkflowsHandler(repos)
	mine, elsewhere := planned(t, org, ws), planned(t, org, uuid.NewString())
	theirs := planned(t, uuid.NewString(), ws)
	for _, ids := range [][]string{{mine, elsewhere}, {theirs}, {workflow.NewID()}, {"wr_nope"}} {
		var we folder.WorkflowError
		_, err := move.Handle(ctx, commands.MoveWorkflows{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, WorkflowIDs: ids})
		if !errors.As(err, &we) || we.WorkflowID != ids[len(ids)-1] {
			t.Errorf("move %v: %v, want the last one not found", ids, err)
		}
	}
	a2, _ := repos.FolderAssignments.Get(ctx, mine)
	if a2.FolderID() != "" {
		t.Fatalf("a refused move moved %s into %q", mine, a2.FolderID())
	}
	if _, err := move.Handle(ctx, commands.MoveWorkflows{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID}); !errors.Is(err, commands.ErrMoveCount) {
		t.Fatalf("no ids: %v", err)
	}
	res, err := move.Handle(ctx, commands.MoveWorkflows{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, WorkflowIDs: []string{mine, mine}})
	if err != nil || !reflect.DeepEqual(res.WorkflowIDs, []string{mine}) {
		t.Fatalf("move: %+v %v", res, err)
	}
	remove := commands.NewRemoveFromFolderHandler(repos)
	if _, err := remove.Handle(ctx, commands.RemoveFromFolder{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, WorkflowID: elsewhere}); !errors.Is(err, folder.ErrNotInFolder) {
		t.Fatalf("remove a workflow not in the folder: %v", err)
	}
	if _, err := remove.Handle(ctx, commands.RemoveFromFolder{OrgID: org, WorkspaceID: ws, FolderID: a.FolderID, WorkflowID: mine}); err != nil {
		t.Fatal(err)
	}
}
