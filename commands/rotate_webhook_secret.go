package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/webhook"
	"svc/domain/hook"
	"svc/eventstore"
	"svc/eventstore/event"
)

// RotateWebhookSecret gives a workspace webhook endpoint a new signing
// secret; the current one keeps signing its deliveries beside the new one
// for Overlap (hook.DefaultOverlap when nil; zero retires it at once).
type RotateWebhookSecret struct {
	OrgID       string
	WorkspaceID string
	EndpointID  string
	Overlap     *time.Duration
}

// WebhookSecretRotated is the outcome of RotateWebhookSecret: the new
// secret, shown this once, and when the previous one stops signing (nil
// when it already has).
type WebhookSecretRotated struct {
	Secret            string
	PreviousExpiresAt *time.Time
	Position          event.Position
}

// RotateWebhookSecretHandler handles RotateWebhookSecret.
type RotateWebhookSecretHandler struct {
	repos     *Repositories
	endpoints *eventstore.Repository[*hook.Endpoint]
	sealer    Sealer
	newSecret func() string
	now       func() time.Time
}

// NewRotateWebhookSecretHandler returns a handler over repos; secrets come
// from newSecret (webhook.NewSecret when nil), sealed by sealer.
func NewRotateWebhookSecretHandler(repos *Repositories, sealer Sealer, newSecret func() string) RotateWebhookSecretHandler {
	if newSecret == nil {
		newSecret = webhook.NewSecret
	}
	return RotateWebhookSecretHandler{repos: must(repos), endpoints: repos.Endpoints, sealer: sealer, newSecret: newSecret, now: time.Now}
}

// Handle appends WebhookEndpointSecretRotated with the new secret sealed.
func (h RotateWebhookSecretHandler) Handle(ctx context.Context, cmd RotateWebhookSecret) (WebhookSecretRotated, error) {
	if h.sealer == nil {
		return WebhookSecretRotated{}, errors.New("rotate webhook secret: no sealer")
	}
	overlap := hook.DefaultOverlap
	if cmd.Overlap != nil {
		overlap = *cmd.Overlap
	}
	secret := h.newSecret()
	sealed := h.sealer.Seal([]byte(secret))
	var rotated hook.SecretRotated
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		e, err := loadEndpoint(tx, h.endpoints, cmd.OrgID, cmd.WorkspaceID, cmd.EndpointID)
		if err != nil {
			return err
		}
		if rotated, err = e.RotateSecret(sealed, h.now(), overlap); err != nil {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		_, err = h.endpoints.Save(tx, e.ID(), e, rotated)
		return err
	})
	if err != nil {
		return WebhookSecretRotated{}, fmt.Errorf("rotate webhook secret: %w", err)
	}
	return WebhookSecretRotated{Secret: secret, PreviousExpiresAt: rotated.PreviousExpiresAt, Position: pos}, nil
}
