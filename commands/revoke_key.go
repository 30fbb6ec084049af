package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/domain/apikey"
	"svc/eventstore/event"
)

// RevokeKey makes an API key invalid.
type RevokeKey struct {
	OrgID string // the caller's org: a key of another org is not found
	KeyID string
}

// KeyRevoked is the outcome of RevokeKey.
type KeyRevoked struct {
	Position event.Position
}

// RevokeKeyHandler handles RevokeKey.
type RevokeKeyHandler struct{ repos *Repositories }

// NewRevokeKeyHandler returns a handler over repos.
func NewRevokeKeyHandler(repos *Repositories) RevokeKeyHandler {
	return RevokeKeyHandler{repos: must(repos)}
}

// Handle revokes a key of the caller's org.
func (h RevokeKeyHandler) Handle(ctx context.Context, cmd RevokeKey) (KeyRevoked, error) {
	_, pos, err := h.repos.Keys.Update(ctx, cmd.OrgID, cmd.KeyID, func(k *apikey.Key) ([]event.Data, error) {
		r, err := k.Revoke()
		return []event.Data{r}, err
	})
	if err != nil && !errors.Is(err, apikey.ErrNotFound) && !errors.Is(err, apikey.ErrAlreadyRevoked) {
		return KeyRevoked{}, fmt.Errorf("revoke key: %w", err)
	}
	return KeyRevoked{Position: pos}, err
}
