package commands

import (
	"context"
	"fmt"

	"svc/eventstore"
	"svc/eventstore/event"
)

// DeleteConnection revokes a connection (spec A, DELETE
// /api/rigor/connections/{id}): a soft delete, the record kept.
type DeleteConnection struct {
	OrgID        string
	WorkspaceID  string
	Actor        string
	ConnectionID string
}

// DeleteConnectionHandler handles DeleteConnection.
type DeleteConnectionHandler struct{ repos *Repositories }

// NewDeleteConnectionHandler returns a handler over repos.
func NewDeleteConnectionHandler(repos *Repositories) DeleteConnectionHandler {
	return DeleteConnectionHandler{repos: must(repos)}
}

// Handle appends ContextConnectionRevoked and deletes the sealed
// credential in one transaction (connection.ErrNotFound for a connection
// the caller does not see); a revoked connection is answered again
// without a new event.
func (h DeleteConnectionHandler) Handle(ctx context.Context, cmd DeleteConnection) (ConnectionChanged, error) {
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: cmd.OrgID, Actor: cmd.Actor}}, func(tx *eventstore.Tx) error {
		g, err := h.repos.Gateways.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		revoked, err := g.Revoke(cmd.ConnectionID, cmd.WorkspaceID, cmd.Actor)
		if err != nil || revoked == nil {
			return err
		}
		if _, err := h.repos.Gateways.Save(tx, cmd.OrgID, g, *revoked); err != nil {
			return err
		}
		return clearCredential(tx, revoked.ConnectionID)
	})
	if err != nil {
		return ConnectionChanged{}, fmt.Errorf("delete connection: %w", err)
	}
	return ConnectionChanged{Position: pos}, nil
}
