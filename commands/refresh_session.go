package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/credentials"
	"svc/domain/user"
	"svc/eventstore"
)

// RefreshSession rotates a session's tokens with its refresh token.
type RefreshSession struct {
	Refresh string
}

// RefreshSessionHandler handles RefreshSession.
type RefreshSessionHandler struct {
	repos *Repositories
	now   func() time.Time
}

// NewRefreshSessionHandler returns a handler over repos.
func NewRefreshSessionHandler(repos *Repositories) RefreshSessionHandler {
	return RefreshSessionHandler{repos: must(repos), now: time.Now}
}

// Handle rotates both tokens. A refresh token a rotation already replaced
// revokes the whole session (it leaked) and, like an unknown one, answers
// user.ErrInvalidCredentials.
func (h RefreshSessionHandler) Handle(ctx context.Context, cmd RefreshSession) (LoggedIn, error) {
	var out LoggedIn
	reused := false
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		reused = false
		s, err := credentials.RotateSession(tx.Context(), tx.DB(), cmd.Refresh, h.now())
		if errors.Is(err, credentials.ErrRefreshReused) {
			reused = true
			return endSession(tx, h.repos, s.ID, s.UserID, "refresh_reuse")
		}
		if err != nil {
			return err
		}
		u, err := h.repos.Users.Load(tx, s.UserID)
		if err != nil {
			return err
		}
		out = LoggedIn{UserID: s.UserID, Email: u.Email(), Session: s}
		return nil
	})
	switch {
	case errors.Is(err, credentials.ErrNotFound) || err == nil && reused:
		return LoggedIn{}, user.ErrInvalidCredentials
	case err != nil:
		return LoggedIn{}, fmt.Errorf("refresh session: %w", err)
	}
	out.Position = pos
	return out, nil
}
