package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/eventstore"
	"svc/eventstore/event"
)

// CreateWorkspaceKey makes an API key of a workspace, within the tier's key
// limit.
type CreateWorkspaceKey struct {
	OrgID       string
	WorkspaceID string
	Label       string
	Role        apikey.Role
	CreatedBy   string // the actor: user:ID or key:ID
}

// WorkspaceKeyCreated is the outcome of CreateWorkspaceKey.
type WorkspaceKeyCreated struct {
	KeyID     string
	Key       apikey.Secret
	Label     string
	CreatedAt time.Time
	Position  event.Position
}

// CreateWorkspaceKeyHandler handles CreateWorkspaceKey.
type CreateWorkspaceKeyHandler struct{ repos *Repositories }

// NewCreateWorkspaceKeyHandler returns a handler over repos.
func NewCreateWorkspaceKeyHandler(repos *Repositories) CreateWorkspaceKeyHandler {
	return CreateWorkspaceKeyHandler{repos: must(repos)}
}

// Handle appends ApiKeyCreated and WorkspaceKeyAttached in one transaction.
func (h CreateWorkspaceKeyHandler) Handle(ctx context.Context, cmd CreateWorkspaceKey) (WorkspaceKeyCreated, error) {
	secret, err := apikey.Generate()
	if err != nil {
		return WorkspaceKeyCreated{}, err
	}
	id := uuid.NewString()
	out := WorkspaceKeyCreated{KeyID: id, Key: secret, Label: cmd.Label, CreatedAt: time.Now().UTC()}
	if out.Label == "" {
		out.Label = "Workspace key"
	}
	out.Position, err = h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		o, err := h.repos.Orgs.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		w, err := h.repos.Workspaces.LoadOwned(tx, cmd.OrgID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		attached, err := w.AttachKey(o.Tier(), id, cmd.Role)
		if err != nil {
			return err
		}
		if _, err := tx.Append(apikey.Stream(id), event.NewStream, apikey.Created{KeyID: id, OrgID: cmd.OrgID,
			WorkspaceID: cmd.WorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix, Label: out.Label, Role: cmd.Role,
			CreatedBy: cmd.CreatedBy}); err != nil {
			return err
		}
		_, err = h.repos.Workspaces.Save(tx, cmd.WorkspaceID, w, attached)
		return err
	})
	if err != nil {
		return WorkspaceKeyCreated{}, fmt.Errorf("create workspace key: %w", err)
	}
	return out, nil
}
