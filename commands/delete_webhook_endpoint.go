package commands

import (
	"context"
	"fmt"

	"svc/domain/hook"
	"svc/eventstore"
)

// DeleteWebhookEndpoint deletes an endpoint.
type DeleteWebhookEndpoint struct {
	OrgID       string
	WorkspaceID string
	EndpointID  string
}

// DeleteWebhookEndpointHandler handles DeleteWebhookEndpoint.
type DeleteWebhookEndpointHandler struct {
	repos     *Repositories
	endpoints *eventstore.Repository[*hook.Endpoint]
}

// NewDeleteWebhookEndpointHandler returns a handler over repos.
func NewDeleteWebhookEndpointHandler(repos *Repositories) DeleteWebhookEndpointHandler {
	return DeleteWebhookEndpointHandler{repos: must(repos), endpoints: repos.Endpoints}
}

// Handle appends WebhookEndpointDeleted.
func (h DeleteWebhookEndpointHandler) Handle(ctx context.Context, cmd DeleteWebhookEndpoint) (WebhookEndpointChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		e, err := loadEndpoint(tx, h.endpoints, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID)
		if err != nil {
			return err
		}
		deleted, err := e.Delete()
		if err != nil {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		_, err = h.endpoints.Save(tx, e.ID(), e, deleted)
		return err
	})
	if err != nil {
		return WebhookEndpointChanged{}, fmt.Errorf("delete webhook endpoint: %w", err)
	}
	return WebhookEndpointChanged{Position: pos}, nil
}
