package commands

import (
	"context"
	"fmt"
	"time"

	"svc/adapters/webhook"
	"svc/domain/hook"
	"svc/eventstore"
)

// VerifyWebhookSignature checks an X-Svc-Signature value against a raw
// body with an endpoint's secret, as a receiver would (webhook.Verify:
// the timestamp within webhook.DefaultTolerance); during a rotation's
// overlap the secret it replaced verifies too.
type VerifyWebhookSignature struct {
	OrgID       string
	WorkspaceID string
	EndpointID  string
	Payload     string
	Signature   string
}

// WebhookSignatureVerified is the outcome of VerifyWebhookSignature.
type WebhookSignatureVerified struct {
	Valid bool
}

// VerifyWebhookSignatureHandler handles VerifyWebhookSignature.
type VerifyWebhookSignatureHandler struct {
	endpoints *eventstore.Repository[*hook.Endpoint]
	opener    Opener
	now       func() time.Time
}

// NewVerifyWebhookSignatureHandler returns a handler over repos opening
// secrets with opener.
func NewVerifyWebhookSignatureHandler(repos *Repositories, opener Opener) VerifyWebhookSignatureHandler {
	return VerifyWebhookSignatureHandler{endpoints: must(repos).Endpoints, opener: opener, now: time.Now}
}

// Handle answers whether the signature is valid; a malformed, mismatched
// or expired one is not.
func (h VerifyWebhookSignatureHandler) Handle(ctx context.Context, cmd VerifyWebhookSignature) (WebhookSignatureVerified, error) {
	now := h.now()
	_, secrets, err := endpointSecrets(ctx, h.endpoints, h.opener, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID, now)
	if err != nil {
		return WebhookSignatureVerified{}, fmt.Errorf("verify webhook signature: %w", err)
	}
	for _, secret := range secrets {
		if webhook.Verify(secret, cmd.Signature, []byte(cmd.Payload), webhook.DefaultTolerance, now) == nil {
			return WebhookSignatureVerified{Valid: true}, nil
		}
	}
	return WebhookSignatureVerified{Valid: false}, nil
}
