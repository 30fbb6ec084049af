package commands

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"svc/domain/connection"
	"svc/eventstore"
	"svc/eventstore/event"
)

// CreateConnection registers a context server of the organization (spec
// A, POST /api/rigor/connections).
type CreateConnection struct {
	OrgID string
	Actor string // "key:<id>"
	Spec  connection.Spec
	// Credential is the auth_credential as given (nil: omitted).
	Credential *connection.Credential
}

// ConnectionCreated is the outcome of CreateConnection.
type ConnectionCreated struct {
	ConnectionID string
	Position     event.Position
}

// CreateConnectionHandler handles CreateConnection.
type CreateConnectionHandler struct {
	repos   *Repositories
	sealer  Sealer
	servers ContextServers
}

// NewCreateConnectionHandler returns a handler over repos; credentials
// are sealed by sealer, server URLs checked by servers.
func NewCreateConnectionHandler(repos *Repositories, sealer Sealer, servers ContextServers) CreateConnectionHandler {
	return CreateConnectionHandler{repos: must(repos), sealer: sealer, servers: servers}
}

// Handle checks the spec (*connection.FieldError, ErrConnectionURL), then
// in one transaction loads the workspace of a workspace-scoped connection
// (open, of the organization), the OAuth authorization an oauth
// connection without a token uses (ErrNotAuthorized), and the
// organization's gateway, which decides (connection.ErrLimit,
// *connection.DuplicateError); it appends ContextConnectionCreated at the
// gateway's version and stores the credential sealed. Of concurrent
// creations the later ones' appends conflict, run again, and see the
// earlier ones.
func (h CreateConnectionHandler) Handle(ctx context.Context, cmd CreateConnection) (ConnectionCreated, error) {
	spec, err := cmd.Spec.Check(cmd.Credential)
	if err != nil {
		return ConnectionCreated{}, err
	}
	if h.servers == nil || h.sealer == nil {
		return ConnectionCreated{}, fmt.Errorf("create connection: %w", ErrNoGateway)
	}
	if err := h.servers.CheckURL(spec.ServerURL); err != nil {
		return ConnectionCreated{}, fmt.Errorf("%w: %w", ErrConnectionURL, err)
	}
	id := uuid.NewString()
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: cmd.OrgID, Actor: cmd.Actor}}, func(tx *eventstore.Tx) error {
		if spec.Scope == connection.ScopeWorkspace {
			if err := openWorkspace(tx, h.repos, cmd.OrgID, spec.WorkspaceID); err != nil {
				return err
			}
		}
		if spec.AuthType == connection.AuthOAuth && spec.Credential.AccessToken == "" {
			a, err := h.repos.Connections.Load(tx, connection.ID(cmd.OrgID, spec.Provider))
			if err != nil {
				return err
			}
			if a.Authorizations() == 0 {
				return ErrNotAuthorized
			}
		}
		g, err := h.repos.Gateways.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		created, err := g.Create(id, cmd.Actor, spec)
		if err != nil {
			return err
		}
		if _, err := h.repos.Gateways.Save(tx, cmd.OrgID, g, created); err != nil {
			return err
		}
		return storeCredential(tx, h.sealer, cmd.OrgID, id, spec.Credential)
	})
	if err != nil {
		return ConnectionCreated{}, fmt.Errorf("create connection: %w", err)
	}
	return ConnectionCreated{ConnectionID: id, Position: pos}, nil
}
