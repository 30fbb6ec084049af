package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/domain/apikey"
	"svc/eventstore"
)

// RevokeKey makes an API key invalid.
type RevokeKey struct {
	OrgID string // the caller's org: a key of another org is not found
	KeyID string
}

// KeyRevoked is the outcome of RevokeKey.
type KeyRevoked struct {
	Position eventstore.Position
}

// RevokeKeyHandler handles RevokeKey.
type RevokeKeyHandler struct {
	store *eventstore.Store
}

// NewRevokeKeyHandler returns a handler appending to store.
func NewRevokeKeyHandler(store *eventstore.Store) RevokeKeyHandler {
	if store == nil {
		panic("nil event store")
	}
	return RevokeKeyHandler{store: store}
}

// Handle revokes a key of the caller's org.
func (h RevokeKeyHandler) Handle(ctx context.Context, cmd RevokeKey) (KeyRevoked, error) {
	var out KeyRevoked
	err := eventstore.Retry(ctx, attempts, func() error {
		events, err := h.store.Load(ctx, apikey.Stream(cmd.KeyID))
		if err != nil {
			return err
		}
		k, err := apikey.Load(events)
		if err != nil {
			return err
		}
		if k.OrgID() != cmd.OrgID {
			return apikey.ErrNotFound
		}
		r, err := k.Revoke()
		if err != nil {
			return err
		}
		out.Position, err = h.store.Append(ctx, apikey.Stream(cmd.KeyID), k.Version(),
			eventstore.NewEvent{Type: apikey.EventRevoked, Data: r, Metadata: meta(ctx, cmd.OrgID)})
		return err
	})
	if err != nil && !errors.Is(err, apikey.ErrNotFound) && !errors.Is(err, apikey.ErrAlreadyRevoked) {
		return KeyRevoked{}, fmt.Errorf("revoke key: %w", err)
	}
	return out, err
}
