package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/adapters/credentials"
	"svc/eventstore"
	"svc/eventstore/event"
)

// LogOut ends the session of an access token.
type LogOut struct {
	Access string
}

// LoggedOut is the outcome of LogOut; Ended is false when the token named
// no live session (logging out twice succeeds).
type LoggedOut struct {
	Ended    bool
	Position event.Position
}

// LogOutHandler handles LogOut.
type LogOutHandler struct{ repos *Repositories }

// NewLogOutHandler returns a handler over repos.
func NewLogOutHandler(repos *Repositories) LogOutHandler { return LogOutHandler{repos: must(repos)} }

// Handle revokes the session and records UserSignedOut in one transaction.
func (h LogOutHandler) Handle(ctx context.Context, cmd LogOut) (LoggedOut, error) {
	var out LoggedOut
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		sessionID, userID, err := credentials.SessionOf(tx.Context(), tx.DB(), cmd.Access)
		if errors.Is(err, credentials.ErrNotFound) {
			out.Ended = false
			return nil
		}
		if err != nil {
			return err
		}
		out.Ended = true
		return endSession(tx, h.repos, sessionID, userID, "logout")
	})
	if err != nil {
		return LoggedOut{}, fmt.Errorf("log out: %w", err)
	}
	out.Position = pos
	return out, nil
}

// endSession revokes session sessionID of userID and records why, in tx.
func endSession(tx *eventstore.Tx, repos *Repositories, sessionID, userID, reason string) error {
	u, err := repos.Users.Load(tx, userID)
	if err != nil {
		return err
	}
	m := event.Metadata{OrgID: u.OrgID(), Actor: "user:" + userID}
	if _, err := repos.Users.SaveWith(tx, userID, u, m, u.SignOut(sessionID, reason)); err != nil {
		return err
	}
	return credentials.RevokeSession(tx.Context(), tx.DB(), sessionID)
}
