package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/adapters/credentials"
	"svc/domain/org"
	"svc/domain/user"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// AddMember adds the user registered with Email to a workspace with Role.
// An email no user has is user.ErrNotFound (the caller invites instead).
type AddMember struct {
	OrgID       string
	WorkspaceID string
	Email       string
	Role        workspace.Role
}

// MemberJoined is the outcome of AddMember.
type MemberJoined struct {
	UserID   string
	Email    string
	Position event.Position
}

// AddMemberHandler handles AddMember.
type AddMemberHandler struct{ repos *Repositories }

// NewAddMemberHandler returns a handler over repos.
func NewAddMemberHandler(repos *Repositories) AddMemberHandler {
	return AddMemberHandler{repos: must(repos)}
}

// Handle appends WorkspaceMemberAdded, within the tier's member limit.
func (h AddMemberHandler) Handle(ctx context.Context, cmd AddMember) (MemberJoined, error) {
	email := org.NormalizeEmail(cmd.Email)
	userID, _, err := credentials.Lookup(ctx, h.repos.Store.Pool(), email)
	if errors.Is(err, credentials.ErrNotFound) {
		return MemberJoined{}, user.ErrNotFound
	}
	if err != nil {
		return MemberJoined{}, err
	}
	out := MemberJoined{UserID: userID, Email: email}
	out.Position, err = h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		return join(tx, h.repos, cmd.OrgID, cmd.WorkspaceID, userID, cmd.Role, "direct", "")
	})
	if err != nil {
		return MemberJoined{}, fmt.Errorf("add member: %w", err)
	}
	return out, nil
}

// join appends userID's joining of workspace wsID with role, in tx.
func join(tx *eventstore.Tx, repos *Repositories, orgID, wsID, userID string, role workspace.Role, via, inviteID string) error {
	o, err := repos.Orgs.Load(tx, orgID)
	if err != nil {
		return err
	}
	u, err := repos.Users.Load(tx, userID)
	if err != nil {
		return err
	}
	w, err := repos.Workspaces.LoadOwned(tx, orgID, wsID)
	if err != nil {
		return err
	}
	added, err := w.AddMember(o.Tier(), userID, u.Email(), u.Name(), role, via, inviteID)
	if err != nil {
		return err
	}
	_, err = repos.Workspaces.Save(tx, wsID, w, added)
	return err
}
