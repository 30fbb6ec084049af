package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/adapters/webhook"
	"svc/domain/hook"
	"svc/eventstore"
)

// TestWebhookEndpoint sends one signed delivery of a test event to an
// endpoint, active or not. Nothing is recorded.
type TestWebhookEndpoint struct {
	OrgID       string
	WorkspaceID string
	EndpointID  string
}

// WebhookEndpointTested is the outcome of TestWebhookEndpoint: whether
// the receiver answered 2xx, and its status (0 when none arrived: a
// refused address, a network error).
type WebhookEndpointTested struct {
	Delivered  bool
	StatusCode int
}

// TestWebhookEndpointHandler handles TestWebhookEndpoint.
type TestWebhookEndpointHandler struct {
	endpoints *eventstore.Repository[*hook.Endpoint]
	opener    Opener
	sender    WebhookSender
	now       func() time.Time
}

// NewTestWebhookEndpointHandler returns a handler over repos sending
// through sender (webhook.NewSender(nil) when nil: private addresses
// refused) with secrets opened by opener.
func NewTestWebhookEndpointHandler(repos *Repositories, opener Opener, sender WebhookSender) TestWebhookEndpointHandler {
	if sender == nil {
		sender = webhook.NewSender(nil)
	}
	return TestWebhookEndpointHandler{endpoints: must(repos).Endpoints, opener: opener, sender: sender, now: time.Now}
}

// testPayload is the body of a test delivery.
type testPayload struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	WebhookID   string    `json:"webhook_id"`
	WorkspaceID string    `json:"workspace_id"`
}

// Handle sends the delivery outside any transaction.
func (h TestWebhookEndpointHandler) Handle(ctx context.Context, cmd TestWebhookEndpoint) (WebhookEndpointTested, error) {
	e, secret, err := endpointSecret(ctx, h.endpoints, h.opener, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID)
	if err != nil {
		return WebhookEndpointTested{}, fmt.Errorf("test webhook endpoint: %w", err)
	}
	id := uuid.NewString()
	body, err := json.Marshal(testPayload{ID: id, Type: hook.TestEvent, CreatedAt: h.now().UTC(), WebhookID: e.ID(), WorkspaceID: e.WorkspaceID()})
	if err != nil {
		return WebhookEndpointTested{}, err
	}
	res := h.sender.Send(ctx, webhook.Delivery{ID: id, URL: e.Settings().URL, Secret: secret, EventType: hook.TestEvent, Body: body, Attempt: 1})
	return WebhookEndpointTested{Delivered: res.Delivered, StatusCode: res.StatusCode}, nil
}

// endpointSecret reads endpoint id of workspace wsID (of orgID) and opens
// its secret.
func endpointSecret(ctx context.Context, endpoints *eventstore.Repository[*hook.Endpoint], opener Opener, orgID, wsID, id string) (*hook.Endpoint, string, error) {
	e, err := endpoints.GetOwned(ctx, orgID, id)
	if err != nil {
		return nil, "", err
	}
	if e.WorkspaceID() != wsID || !e.Exists() {
		return nil, "", hook.ErrNotFound
	}
	if opener == nil {
		return nil, "", errors.New("no opener for sealed secrets")
	}
	secret, err := opener.Open(e.SealedSecret())
	if err != nil {
		return nil, "", fmt.Errorf("open secret: %w", err)
	}
	return e, string(secret), nil
}
