package commands

import (
	"context"
	"fmt"

	"svc/domain/connection"
	"svc/eventstore"
	"svc/eventstore/event"
)

// UpdateConnection changes some of a connection's settings (spec A,
// PATCH /api/rigor/connections/{id}).
type UpdateConnection struct {
	OrgID        string
	WorkspaceID  string // the caller's: it sees org-scoped and its own connections
	Actor        string
	ConnectionID string
	Change       connection.Change
}

// ConnectionChanged is the outcome of the connection commands that
// answer with nothing but their position.
type ConnectionChanged struct {
	Position event.Position
}

// UpdateConnectionHandler handles UpdateConnection.
type UpdateConnectionHandler struct {
	repos  *Repositories
	sealer Sealer
}

// NewUpdateConnectionHandler returns a handler over repos; a new
// credential is sealed by sealer.
func NewUpdateConnectionHandler(repos *Repositories, sealer Sealer) UpdateConnectionHandler {
	return UpdateConnectionHandler{repos: must(repos), sealer: sealer}
}

// Handle loads the gateway and, for an oauth connection, the mode of the
// organization's authorization of its provider; the gateway decides
// (connection.ErrNotFound, *connection.FieldError,
// connection.ErrDisplayNameLocked, *connection.DuplicateError,
// *connection.ReauthError: nothing is changed then); it appends
// ContextConnectionUpdated, or nothing when nothing changes, and replaces
// the sealed credential in the same transaction.
func (h UpdateConnectionHandler) Handle(ctx context.Context, cmd UpdateConnection) (ConnectionChanged, error) {
	if h.sealer == nil {
		return ConnectionChanged{}, fmt.Errorf("update connection: %w", ErrNoGateway)
	}
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: cmd.OrgID, Actor: cmd.Actor}}, func(tx *eventstore.Tx) error {
		g, err := h.repos.Gateways.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		s, err := g.Get(cmd.ConnectionID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		var authorized connection.PermissionMode
		if s.AuthType == connection.AuthOAuth {
			a, err := h.repos.Connections.Load(tx, connection.ID(cmd.OrgID, s.Provider))
			if err != nil {
				return err
			}
			authorized = a.Mode()
		}
		updated, err := g.Update(cmd.ConnectionID, cmd.WorkspaceID, cmd.Actor, cmd.Change, authorized)
		if err != nil || updated == nil {
			return err
		}
		if _, err := h.repos.Gateways.Save(tx, cmd.OrgID, g, *updated); err != nil {
			return err
		}
		if !updated.CredentialReplaced {
			return nil
		}
		cred, _ := connection.CheckCredential(s.AuthType, cmd.Change.Credential) // checked by Update
		return storeCredential(tx, h.sealer, cmd.OrgID, s.ID, cred)
	})
	if err != nil {
		return ConnectionChanged{}, fmt.Errorf("update connection: %w", err)
	}
	return ConnectionChanged{Position: pos}, nil
}
