package commands

import (
	"context"
	"fmt"

	"svc/domain/hook"
	"svc/eventstore"
	"svc/eventstore/event"
)

// UpdateWebhookEndpoint changes some of an endpoint's settings.
type UpdateWebhookEndpoint struct {
	OrgID       string
	WorkspaceID string
	EndpointID  string
	Change      hook.Change
}

// WebhookEndpointChanged is the outcome of the endpoint commands that
// answer with nothing but their position.
type WebhookEndpointChanged struct {
	Position event.Position
}

// UpdateWebhookEndpointHandler handles UpdateWebhookEndpoint.
type UpdateWebhookEndpointHandler struct {
	repos     *Repositories
	endpoints *eventstore.Repository[*hook.Endpoint]
}

// NewUpdateWebhookEndpointHandler returns a handler over repos.
func NewUpdateWebhookEndpointHandler(repos *Repositories) UpdateWebhookEndpointHandler {
	return UpdateWebhookEndpointHandler{repos: must(repos), endpoints: repos.Endpoints}
}

// Handle appends WebhookEndpointUpdated, or nothing when nothing changes.
func (h UpdateWebhookEndpointHandler) Handle(ctx context.Context, cmd UpdateWebhookEndpoint) (WebhookEndpointChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		e, err := loadEndpoint(tx, h.endpoints, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID)
		if err != nil {
			return err
		}
		data, err := e.Update(cmd.Change)
		if err != nil || len(data) == 0 {
			return err
		}
		if cmd.Change.URL != nil {
			if err := checkEndpointURL(e.Settings().URL); err != nil {
				return err
			}
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		_, err = h.endpoints.Save(tx, e.ID(), e, data...)
		return err
	})
	if err != nil {
		return WebhookEndpointChanged{}, fmt.Errorf("update webhook endpoint: %w", err)
	}
	return WebhookEndpointChanged{Position: pos}, nil
}
