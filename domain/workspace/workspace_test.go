package workspace_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

func fold(t *testing.T, data ...event.Data) *workspace.Workspace {
	t.Helper()
	w := workspace.New()
	for i, d := range data {
		if err := w.Apply(event.Recorded("workspace-w", int64(i), time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestMembershipRules(t *testing.T) {
	created, _ := workspace.Create("w", "o", "Team", "team", false)
	w := fold(t, created)
	owner, err := w.AddMember(org.Free, "ann", "ann@x.co", "Ann", apikey.Owner, "created", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := w.AddMember(org.Free, "bob", "bob@x.co", "Bob", apikey.Member, "direct", "")
	w = fold(t, created, owner, bob)
	if _, err := w.AddMember(org.Free, "bob", "", "", apikey.Viewer, "direct", ""); !errors.Is(err, workspace.ErrAlreadyMember) {
		t.Fatalf("second add: %v", err)
	}
	carol, _ := w.AddMember(org.Free, "carol", "", "", apikey.Viewer, "direct", "")
	w = fold(t, created, owner, bob, carol)
	if _, err := w.AddMember(org.Free, "dave", "", "", apikey.Viewer, "direct", ""); !errors.Is(err, workspace.ErrMemberLimit) {
		t.Fatalf("fourth member on free: %v", err)
	}
	if _, err := w.ChangeRole("ann", "ann", apikey.Admin); !errors.Is(err, workspace.ErrCannotDemoteSelf) {
		t.Fatalf("owner demoting self: %v", err)
	}
	if _, err := w.RemoveMember("ann"); !errors.Is(err, workspace.ErrLastOwner) {
		t.Fatalf("removing the last owner: %v", err)
	}
	if _, err := w.RemoveMember("zed"); !errors.Is(err, workspace.ErrMemberNotFound) {
		t.Fatalf("removing a stranger: %v", err)
	}
	if d, err := w.ChangeRole("ann", "bob", apikey.Member); err != nil || len(d) != 0 {
		t.Fatalf("same role: %v %v", d, err)
	}
	if _, err := workspace.AssignableRole("owner"); err == nil {
		t.Fatal("owner is assignable")
	}
}

func TestArchiveAndLimits(t *testing.T) {
	def, _ := workspace.Create("d", "o", "Default", "default", true)
	if _, err := fold(t, def).Archive(); !errors.Is(err, workspace.ErrDefault) {
		t.Fatalf("archiving the default: %v", err)
	}
	created, _ := workspace.Create("w", "o", "Team", "team", false)
	w := fold(t, created)
	if _, err := w.Restore(); !errors.Is(err, workspace.ErrNotArchived) {
		t.Fatalf("restoring an active one: %v", err)
	}
	arch, _ := w.Archive()
	w = fold(t, created, arch[0])
	if again, err := w.Archive(); err != nil || len(again) != 0 {
		t.Fatalf("archiving twice: %v %v", again, err)
	}
	if err := workspace.CanCreate(org.Pro, 1); !errors.Is(err, workspace.ErrTierRequired) {
		t.Fatalf("pro: %v", err)
	}
	if err := workspace.CanCreate(org.Team, 10); !errors.Is(err, workspace.ErrWorkspaceLimit) {
		t.Fatalf("team at 10: %v", err)
	}
	if _, err := workspace.ValidName("  "); !errors.Is(err, workspace.ErrNameRequired) {
		t.Fatalf("blank name: %v", err)
	}
	if got := workspace.Candidates("R&D Team!", 3); got[0] != "r-d-team" || got[2] != "r-d-team-3" {
		t.Fatalf("candidates %v", got)
	}
}
