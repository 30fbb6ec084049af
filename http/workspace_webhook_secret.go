package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/hook"
)

// rotateSecretBody is the body of POST .../webhooks/{webhook_id}/rotate-secret
// (optional).
type rotateSecretBody struct {
	// OverlapHours is how long the current secret keeps signing beside the
	// new one: 0 to 168, default 24.
	OverlapHours *int `json:"overlap_hours"`
}

// webhookSecretResponse is the answer of POST .../webhooks/{webhook_id}/rotate-secret:
// the new secret, shown this once, and when the previous one stops
// signing deliveries (null: it already has).
type webhookSecretResponse struct {
	OK                      bool       `json:"ok"`
	ID                      string     `json:"id"`
	Secret                  string     `json:"secret"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
}

// rotateWebhookSecret is POST /api/workspaces/{id}/webhooks/{webhook_id}/rotate-secret:
// a new signing secret; deliveries carry a signature by each secret until
// the overlap ends.
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body rotateSecretBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	cmd := commands.RotateWebhookSecret{EndpointID: mux.Vars(r)["webhook_id"]}
	if body.OverlapHours != nil {
		h := *body.OverlapHours
		if h < 0 || time.Duration(h)*time.Hour > hook.MaxOverlap {
			return platformField("overlap_hours", "an integer from 0 to 168").withDetail("min", 0).withDetail("max", int(hook.MaxOverlap/time.Hour))
		}
		overlap := time.Duration(h) * time.Hour
		cmd.Overlap = &overlap
	}
	a := workspaceOf(ctx)
	cmd.OrgID, cmd.WorkspaceID = a.ws.OrgID, a.ws.ID
	res, err := s.commands.RotateWebhookSecret.Handle(ctx, cmd)
	if errors.Is(err, hook.ErrOverlap) {
		return platformField("overlap_hours", "an integer from 0 to 168")
	}
	if err != nil {
		return webhookError(err)
	}
	var until *time.Time
	if res.PreviousExpiresAt != nil {
		t := res.PreviousExpiresAt.UTC()
		until = &t
	}
	writeJSON(w, http.StatusOK, webhookSecretResponse{OK: true, ID: cmd.EndpointID, Secret: res.Secret, PreviousSecretExpiresAt: until})
	return nil
}
