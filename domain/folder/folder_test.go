package folder_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"svc/domain/folder"
	"svc/eventstore/event"
)

func fold[A event.Aggregate](t *testing.T, a A, data ...event.Data) A {
	t.Helper()
	for i, d := range data {
		if err := a.Apply(event.Recorded("s", int64(i), time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func TestNames(t *testing.T) {
	for name, want := range map[string]error{
		"":                            folder.ErrNameRequired,
		"   ":                         folder.ErrNameRequired,
		strings.Repeat("é", 100):      nil,
		strings.Repeat("é", 101):      folder.ErrNameTooLong,
		" Reports ":                   nil,
		strings.Repeat("x", 99) + " ": nil,
	} {
		if _, err := folder.ValidName(name); !errors.Is(err, want) {
			t.Errorf("ValidName(%q): %v, want %v", name, err, want)
		}
	}
	if folder.Normalize("  Q3   Reports ") != "q3 reports" {
		t.Errorf("Normalize: %q", folder.Normalize("  Q3   Reports "))
	}
	if folder.NameKey("w", "Q3 reports") != folder.NameKey("w", " q3  REPORTS") || folder.NameKey("w", "a") == folder.NameKey("v", "a") {
		t.Error("name keys: one per workspace and normalized name")
	}
}

func TestCreateRenameDelete(t *testing.T) {
	created, err := folder.Create("f", "o", "w", "  Reports ")
	if err != nil || created.Name != "Reports" {
		t.Fatalf("create: %+v %v", created, err)
	}
	if _, err := folder.Create("f", "o", "w", " "); !errors.Is(err, folder.ErrNameRequired) {
		t.Fatalf("blank name: %v", err)
	}
	f := fold(t, folder.New(), created)
	if !f.Exists() || f.Name() != "Reports" || f.WorkspaceID() != "w" || f.OrgID() != "o" {
		t.Fatalf("folded %+v", f)
	}
	if d, _, err := f.Rename("Reports "); err != nil || len(d) != 0 {
		t.Fatalf("same name: %v %v", d, err)
	}
	d, reserve, err := f.Rename("reports")
	if err != nil || len(d) != 1 || reserve {
		t.Fatalf("case change: %v %v %v (no new reservation)", d, reserve, err)
	}
	d, reserve, err = f.Rename("Archive")
	if err != nil || !reserve || d[0].(folder.Renamed).From != "Reports" {
		t.Fatalf("rename: %v %v %v", d, reserve, err)
	}
	if _, _, err := f.Rename(strings.Repeat("x", 101)); !errors.Is(err, folder.ErrNameTooLong) {
		t.Fatalf("long name: %v", err)
	}
	del, err := f.Delete()
	if err != nil || del.FolderID != "f" {
		t.Fatal(err)
	}
	f = fold(t, folder.New(), created, del)
	if f.Exists() {
		t.Fatal("a deleted folder exists")
	}
	if _, err := f.Delete(); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if _, _, err := f.Rename("x"); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("rename deleted: %v", err)
	}
}

func TestNameReservation(t *testing.T) {
	n := folder.NewName()
	d, err := n.Reserve("f1", "w")
	if err != nil || len(d) != 1 {
		t.Fatalf("free name: %v %v", d, err)
	}
	n = fold(t, folder.NewName(), d...)
	if n.Holder() != "f1" {
		t.Fatalf("holder %q", n.Holder())
	}
	if again, err := n.Reserve("f1", "w"); err != nil || len(again) != 0 {
		t.Fatalf("the holder again: %v %v", again, err)
	}
	if _, err := n.Reserve("f2", "w"); !errors.Is(err, folder.ErrNameTaken) {
		t.Fatalf("another folder: %v", err)
	}
	if r := n.Release("f2", "w"); len(r) != 0 {
		t.Fatalf("released by a non-holder: %v", r)
	}
	released := n.Release("f1", "w")
	n = fold(t, folder.NewName(), append(d, released...)...)
	if n.Holder() != "" {
		t.Fatal("released name still held")
	}
	if d, err := n.Reserve("f2", "w"); err != nil || len(d) != 1 {
		t.Fatalf("released name: %v %v", d, err)
	}
}

func TestAssignment(t *testing.T) {
	c1, _ := folder.Create("f1", "o", "w", "One")
	c2, _ := folder.Create("f2", "o", "w", "Two")
	f1, f2 := fold(t, folder.New(), c1), fold(t, folder.New(), c2)
	a := folder.NewAssignment()
	if _, err := a.Add(f1, "wr_1", "o", "other"); !errors.Is(err, folder.ErrWorkflowNotFound) {
		t.Fatalf("a workflow of another workspace: %v", err)
	}
	var we folder.WorkflowError
	if _, err := a.Add(f1, "wr_1", "x", "w"); !errors.As(err, &we) || we.WorkflowID != "wr_1" {
		t.Fatalf("a workflow of another org: %v", err)
	}
	if _, err := a.Remove(f1, "wr_1"); !errors.Is(err, folder.ErrNotInFolder) {
		t.Fatalf("remove from a folder it is not in: %v", err)
	}
	added, err := a.Add(f1, "wr_1", "o", "w")
	if err != nil || len(added) != 1 {
		t.Fatal(err)
	}
	a = fold(t, folder.NewAssignment(), added...)
	if a.FolderID() != "f1" {
		t.Fatalf("in %q", a.FolderID())
	}
	if d, err := a.Add(f1, "wr_1", "o", "w"); err != nil || len(d) != 0 {
		t.Fatalf("same folder: %v %v", d, err)
	}
	moved, err := a.Add(f2, "wr_1", "o", "w")
	if err != nil || moved[0].(folder.WorkflowAdded).From != "f1" {
		t.Fatalf("move: %v %v", moved, err)
	}
	a = fold(t, folder.NewAssignment(), append(added, moved...)...)
	if _, err := a.Remove(f1, "wr_1"); !errors.Is(err, folder.ErrNotInFolder) {
		t.Fatalf("remove from the old folder: %v", err)
	}
	removed, err := a.Remove(f2, "wr_1")
	if err != nil || removed.FolderID != "f2" {
		t.Fatal(err)
	}
	a = fold(t, folder.NewAssignment(), append(append(added, moved...), removed)...)
	if a.FolderID() != "" {
		t.Fatalf("removed, in %q", a.FolderID())
	}
	del, _ := f2.Delete()
	gone := fold(t, folder.New(), c2, del)
	if _, err := a.Add(gone, "wr_1", "o", "w"); !errors.Is(err, folder.ErrNotFound) {
		t.Fatalf("add to a deleted folder: %v", err)
	}
}
