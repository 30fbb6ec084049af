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
	e, secrets, err := endpointSecrets(ctx, h.endpoints, h.opener, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID, h.now())
	if err != nil {
		return WebhookEndpointTested{}, fmt.Errorf("test webhook endpoint: %w", err)
	}
	id := uuid.NewString()
	body, err := json.Marshal(testPayload{ID: id, Type: hook.TestEvent, CreatedAt: h.now().UTC(), WebhookID: e.ID(), WorkspaceID: e.WorkspaceID()})
	if err != nil {
		return WebhookEndpointTested{}, err
	}
	d := webhook.Delivery{ID: id, URL: e.Settings().URL, Secret: secrets[0], EventType: hook.TestEvent, Body: body, Attempt: 1}
	if len(secrets) > 1 {
		d.Previous = secrets[1]
	}
	res := h.sender.Send(ctx, d)
	return WebhookEndpointTested{Delivered: res.Delivered, StatusCode: res.StatusCode}, nil
}

// endpointSecrets reads endpoint id of workspace wsID (of orgID) and opens
// the secrets that sign at now: its secret, then the one a rotation
// replaced while its overlap lasts.
func endpointSecrets(ctx context.Context, endpoints *eventstore.Repository[*hook.Endpoint], opener Opener, orgID, wsID, id string,
	now time.Time) (*hook.Endpoint, []string, error) {
	e, err := endpoints.GetOwned(ctx, orgID, id)
	if err != nil {
		return nil, nil, err
	}
	if e.WorkspaceID() != wsID || !e.Exists() {
		return nil, nil, hook.ErrNotFound
	}
	if opener == nil {
		return nil, nil, errors.New("no opener for sealed secrets")
	}
	var secrets []string
	for _, sealed := range e.Secrets(now) {
		secret, err := opener.Open(sealed)
		if err != nil {
			return nil, nil, fmt.Errorf("open secret: %w", err)
		}
		secrets = append(secrets, string(secret))
	}
	return e, secrets, nil
}
