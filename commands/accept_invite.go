package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/domain/invite"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// AcceptInvite uses an invite's token: the signed-in user joins its
// workspace with its role.
type AcceptInvite struct {
	Token  string
	UserID string
}

// InviteAccepted is the outcome of AcceptInvite.
type InviteAccepted struct {
	WorkspaceID   string
	WorkspaceName string
	Role          workspace.Role
	Position      event.Position
}

// AcceptInviteHandler handles AcceptInvite.
type AcceptInviteHandler struct {
	repos *Repositories
	now   func() time.Time
}

// NewAcceptInviteHandler returns a handler over repos.
func NewAcceptInviteHandler(repos *Repositories) AcceptInviteHandler {
	return AcceptInviteHandler{repos: must(repos), now: time.Now}
}

// lockInviteSQL serializes the uses of one invite, so that max_uses holds
// and racing accepts queue instead of retrying on version conflicts.
const lockInviteSQL = `SELECT pg_advisory_xact_lock($1, hashtext($2))`

// inviteLockClass is the first key of the invite locks.
const inviteLockClass = 7_240_003

// Handle appends InviteAccepted and WorkspaceMemberAdded in one
// transaction, holding the invite's lock.
func (h AcceptInviteHandler) Handle(ctx context.Context, cmd AcceptInvite) (InviteAccepted, error) {
	id, err := invite.ParseToken(cmd.Token)
	if err != nil {
		return InviteAccepted{}, err
	}
	var out InviteAccepted
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		inv, err := h.repos.Invites.LoadAfter(tx, id, lockInviteSQL, inviteLockClass, id)
		if err != nil {
			return err
		}
		u, err := h.repos.Users.Load(tx, cmd.UserID)
		if err != nil {
			return err
		}
		accepted, err := inv.Accept(cmd.Token, cmd.UserID, u.Email(), h.now())
		if err != nil {
			return err
		}
		m := event.Metadata{OrgID: inv.OrgID(), Actor: "user:" + cmd.UserID}
		if _, err := h.repos.Invites.SaveWith(tx, id, inv, m, accepted); err != nil {
			return err
		}
		err = join(tx, h.repos, inv.OrgID(), inv.WorkspaceID(), cmd.UserID, inv.Role(), "invite", id)
		if errors.Is(err, workspace.ErrAlreadyMember) {
			return invite.ErrAlreadyMember
		}
		if err != nil {
			return err
		}
		w, err := h.repos.Workspaces.Load(tx, inv.WorkspaceID())
		if err != nil {
			return err
		}
		out = InviteAccepted{WorkspaceID: inv.WorkspaceID(), WorkspaceName: w.Name(), Role: inv.Role()}
		return nil
	})
	if err != nil {
		return InviteAccepted{}, fmt.Errorf("accept invite: %w", err)
	}
	out.Position = pos
	return out, nil
}
