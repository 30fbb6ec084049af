package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/hook"
	"svc/domain/workspace"
	"svc/projections"
)

// webhookBody is a workspace webhook as spec B shows it; Secret only in
// the creation's answer.
type webhookBody struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Events      []string  `json:"events"`
	Active      bool      `json:"active"`
	CreatedAt   time.Time `json:"created_at"`
	Secret      string    `json:"secret,omitempty"`
}

func webhookOut(e projections.WebhookEndpointRow) webhookBody {
	events := e.Events
	if events == nil {
		events = []string{}
	}
	return webhookBody{ID: e.ID, URL: e.URL, Description: e.Description, Events: events, Active: e.Active, CreatedAt: e.CreatedAt.UTC()}
}

// webhookSettingsBody is the body of create and patch.
type webhookSettingsBody struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Description *string   `json:"description"`
	Active      *bool     `json:"active"`
}

// webhookTier refuses a workspace of a tier below Pro. Routes with a body
// read it first, so malformed text is 400 on every tier.
func webhookTier(ctx context.Context) error {
	if !workspaceOf(ctx).ws.Tier.IsPaid() {
		return errTierRequired("Workspace webhooks need the Pro plan or above.")
	}
	return nil
}

// webhookError maps the endpoint rules' refusals.
func webhookError(err error) error {
	switch {
	case errors.Is(err, hook.ErrURLRequired):
		return platformField("url", "required")
	case errors.Is(err, hook.ErrURLNotHTTPS):
		return platformField("url", "must be an https URL")
	case errors.Is(err, commands.ErrWebhookURL):
		return platformField("url", "not a valid URL")
	case errors.Is(err, hook.ErrEventsRequired):
		return platformField("events", "at least one event").withDetail("allowed", hook.Events)
	case errors.Is(err, hook.ErrUnknownEvent):
		return platformField("events", "unknown event").withDetail("allowed", hook.Events)
	case errors.Is(err, hook.ErrDescriptionTooLong):
		return platformField("description", "at most 500 characters").withDetail("max", hook.MaxDescription)
	case errors.Is(err, hook.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such webhook in this workspace.")
	case errors.Is(err, workspace.ErrArchived):
		return newError(http.StatusBadRequest, "invalid_body", "The workspace is archived; restore it first.")
	}
	return err
}

// listWebhooks is GET /api/workspaces/{id}/webhooks.
func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := webhookTier(ctx); err != nil {
		return err
	}
	rows, err := s.queries.WebhookEndpoints(ctx, workspaceOf(ctx).ws.ID)
	if err != nil {
		return err
	}
	out := make([]webhookBody, 0, len(rows))
	for _, e := range rows {
		out = append(out, webhookOut(e))
	}
	writeJSON(w, http.StatusOK, webhooksResponse{Webhooks: out})
	return nil
}

// createWebhook is POST /api/workspaces/{id}/webhooks: 201, the webhook
// and its secret, shown this once.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body webhookSettingsBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	switch {
	case body.URL == nil:
		return platformField("url", "required")
	case body.Events == nil:
		return platformField("events", "required").withDetail("allowed", hook.Events)
	}
	set := hook.Settings{URL: *body.URL, Events: *body.Events, Active: true}
	if body.Description != nil {
		set.Description = *body.Description
	}
	if body.Active != nil {
		set.Active = *body.Active
	}
	a := workspaceOf(ctx)
	res, err := s.commands.CreateWebhookEndpoint.Handle(ctx, commands.CreateWebhookEndpoint{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Settings: set})
	if err != nil {
		return webhookError(err)
	}
	e, err := s.queries.WebhookEndpoint(ctx, a.ws.ID, res.EndpointID)
	if err != nil {
		return err
	}
	out := webhookOut(e)
	out.Secret = res.Secret
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// patchWebhook is PATCH /api/workspaces/{id}/webhooks/{webhook_id}: the
// updated webhook, without its secret.
func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body webhookSettingsBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	c := hook.Change{URL: body.URL, Description: body.Description, Active: body.Active}
	if body.Events != nil {
		c.Events = *body.Events
		if c.Events == nil {
			c.Events = []string{}
		}
	}
	a := workspaceOf(ctx)
	id := mux.Vars(r)["webhook_id"]
	if _, err := s.commands.UpdateWebhookEndpoint.Handle(ctx, commands.UpdateWebhookEndpoint{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		EndpointID: id, Change: c}); err != nil {
		return webhookError(err)
	}
	e, err := s.queries.WebhookEndpoint(ctx, a.ws.ID, id)
	if err != nil {
		return webhookError(err)
	}
	writeJSON(w, http.StatusOK, webhookOut(e))
	return nil
}

// deleteWebhook is DELETE /api/workspaces/{id}/webhooks/{webhook_id}.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := noBody(w, r); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	a := workspaceOf(ctx)
	if _, err := s.commands.DeleteWebhookEndpoint.Handle(ctx, commands.DeleteWebhookEndpoint{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		EndpointID: mux.Vars(r)["webhook_id"]}); err != nil {
		return webhookError(err)
	}
	writeJSON(w, http.StatusOK, okResponse{OK: true})
	return nil
}

// testWebhook is POST /api/workspaces/{id}/webhooks/{webhook_id}/test:
// one signed delivery of a test event.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := noBody(w, r); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	a := workspaceOf(ctx)
	res, err := s.commands.TestWebhookEndpoint.Handle(ctx, commands.TestWebhookEndpoint{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		EndpointID: mux.Vars(r)["webhook_id"]})
	if err != nil {
		return webhookError(err)
	}
	writeJSON(w, http.StatusOK, webhookTestResponse{OK: true, Delivered: res.Delivered, StatusCode: res.StatusCode})
	return nil
}

// verifyBody is the body of verify.
type verifyBody struct {
	Payload   *string `json:"payload"`
	Signature *string `json:"signature"`
}

// verifyWebhook is POST /api/workspaces/{id}/webhooks/{webhook_id}/verify.
func (s *Server) verifyWebhook(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body verifyBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if err := webhookTier(ctx); err != nil {
		return err
	}
	switch {
	case body.Payload == nil:
		return platformField("payload", "required")
	case body.Signature == nil:
		return platformField("signature", "required")
	}
	a := workspaceOf(ctx)
	res, err := s.commands.VerifyWebhookSignature.Handle(ctx, commands.VerifyWebhookSignature{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		EndpointID: mux.Vars(r)["webhook_id"], Payload: *body.Payload, Signature: *body.Signature})
	if err != nil {
		return webhookError(err)
	}
	writeJSON(w, http.StatusOK, webhookVerifyResponse{OK: true, Valid: res.Valid})
	return nil
}
