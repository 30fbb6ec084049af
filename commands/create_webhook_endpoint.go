package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"svc/adapters/webhook"
	"svc/domain/hook"
	"svc/eventstore"
	"svc/eventstore/event"
)

// WebhookSender makes one signed delivery attempt to a webhook URL
// (webhook.Sender, over the SSRF-guarded outbound client).
type WebhookSender interface {
	Send(ctx context.Context, d webhook.Delivery) webhook.Result
}

// Opener decrypts secrets sealed by a Sealer.
type Opener interface {
	Open(sealed string) ([]byte, error)
}

// ErrWebhookURL wraps a URL the outbound rules refuse (webhook.ValidateURL).
var ErrWebhookURL = errors.New("webhook url refused")

// checkEndpointURL applies the outbound rules to a URL the aggregate
// accepted; an empty or non-HTTPS one is the aggregate's to refuse.
func checkEndpointURL(raw string) error {
	err := webhook.ValidateURL(raw)
	if err == nil || errors.Is(err, webhook.ErrURLRequired) || errors.Is(err, webhook.ErrURLNotHTTPS) {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrWebhookURL, err)
}

// CreateWebhookEndpoint subscribes an HTTPS URL of a workspace to events.
type CreateWebhookEndpoint struct {
	OrgID       string
	WorkspaceID string
	Settings    hook.Settings
}

// WebhookEndpointCreated is the outcome of CreateWebhookEndpoint: the
// signing secret, shown this once.
type WebhookEndpointCreated struct {
	EndpointID string
	Secret     string
	Position   event.Position
}

// CreateWebhookEndpointHandler handles CreateWebhookEndpoint.
type CreateWebhookEndpointHandler struct {
	repos     *Repositories
	endpoints *eventstore.Repository[*hook.Endpoint]
	sealer    Sealer
	newSecret func() string
}

// NewCreateWebhookEndpointHandler returns a handler over repos; secrets
// come from newSecret (webhook.NewSecret when nil), sealed by sealer.
func NewCreateWebhookEndpointHandler(repos *Repositories, sealer Sealer, newSecret func() string) CreateWebhookEndpointHandler {
	if newSecret == nil {
		newSecret = webhook.NewSecret
	}
	return CreateWebhookEndpointHandler{repos: must(repos), endpoints: repos.Endpoints, sealer: sealer, newSecret: newSecret}
}

// Handle appends WebhookEndpointCreated with the sealed secret.
func (h CreateWebhookEndpointHandler) Handle(ctx context.Context, cmd CreateWebhookEndpoint) (WebhookEndpointCreated, error) {
	if h.sealer == nil {
		return WebhookEndpointCreated{}, errors.New("create webhook endpoint: no sealer")
	}
	id := uuid.NewString()
	secret := h.newSecret()
	created, err := hook.Create(id, cmd.OrgID, cmd.WorkspaceID, cmd.Settings, h.sealer.Seal([]byte(secret)))
	if err != nil {
		return WebhookEndpointCreated{}, err
	}
	if err := checkEndpointURL(created.URL); err != nil {
		return WebhookEndpointCreated{}, err
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		_, err := h.endpoints.Save(tx, id, hook.New(), created)
		return err
	})
	if err != nil {
		return WebhookEndpointCreated{}, fmt.Errorf("create webhook endpoint: %w", err)
	}
	return WebhookEndpointCreated{EndpointID: id, Secret: secret, Position: pos}, nil
}

// loadEndpoint loads endpoint id of workspace wsID (of orgID) inside tx;
// another workspace's, a deleted or an unknown one is hook.ErrNotFound.
func loadEndpoint(tx *eventstore.Tx, endpoints *eventstore.Repository[*hook.Endpoint], orgID, wsID, id string) (*hook.Endpoint, error) {
	e, err := endpoints.LoadOwned(tx, orgID, id)
	if err != nil {
		return nil, err
	}
	if e.WorkspaceID() != wsID || !e.Exists() {
		return nil, hook.ErrNotFound
	}
	return e, nil
}
