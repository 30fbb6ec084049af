package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
)

// DefaultOrgName names an organization created with neither name nor email.
const DefaultOrgName = "My organization"

// CreateOrganization signs up: a new organization with its default
// workspace, an owner API key and the signup credit grant.
type CreateOrganization struct {
	Name     string
	Email    string // optional; when given it must be unique and is verified by mail
	ClientIP string
}

// OrganizationCreated is the outcome of CreateOrganization.
type OrganizationCreated struct {
	OrgID             string
	WorkspaceID       string
	KeyID             string
	Key               apikey.Secret
	Email             string
	VerificationToken string // "" without an email
	Credits           int64
	Position          eventstore.Position
}

// CreateOrganizationHandler handles CreateOrganization.
type CreateOrganizationHandler struct {
	store *eventstore.Store
}

// NewCreateOrganizationHandler returns a handler appending to store.
func NewCreateOrganizationHandler(store *eventstore.Store) CreateOrganizationHandler {
	if store == nil {
		panic("nil event store")
	}
	return CreateOrganizationHandler{store: store}
}

// Handle appends the organization, its email reservation, workspace, key and
// signup grant in one transaction: all of them or none.
func (h CreateOrganizationHandler) Handle(ctx context.Context, cmd CreateOrganization) (OrganizationCreated, error) {
	email := strings.TrimSpace(cmd.Email)
	if email != "" {
		if err := org.ValidateEmail(email); err != nil {
			return OrganizationCreated{}, err
		}
	}
	name := strings.TrimSpace(cmd.Name)
	if utf8.RuneCountInString(name) > 200 {
		return OrganizationCreated{}, org.ErrNameTooLong
	}
	if name == "" {
		name = email
	}
	if name == "" {
		name = DefaultOrgName
	}

	orgID, wsID, keyID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	secret, err := apikey.Generate()
	if err != nil {
		return OrganizationCreated{}, err
	}
	var token, tokenHash string
	if email != "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return OrganizationCreated{}, fmt.Errorf("verification token: %w", err)
		}
		token = orgID + "." + hex.EncodeToString(b)
		tokenHash = org.HashToken(token)
	}
	m := meta(ctx, orgID)
	if m.Actor == "" {
		m.Actor = "key:" + keyID
	}
	out := OrganizationCreated{OrgID: orgID, WorkspaceID: wsID, KeyID: keyID, Key: secret, Email: email, VerificationToken: token, Credits: credit.SignupGrant}

	err = h.store.Transact(ctx, func(tx pgx.Tx) error {
		appends := []struct {
			stream string
			event  eventstore.NewEvent
		}{
			{org.Stream(orgID), eventstore.NewEvent{Type: org.EventCreated, Metadata: m, Data: org.Created{
				OrgID: orgID, Name: name, Email: email, Tier: org.Free, WorkspaceID: wsID, VerificationHash: tokenHash, ClientIP: cmd.ClientIP}}},
			{workspace.Stream(wsID), eventstore.NewEvent{Type: workspace.EventCreated, Metadata: m, Data: workspace.Created{
				WorkspaceID: wsID, OrgID: orgID, Name: "Default", Slug: "default", IsDefault: true}}},
			{apikey.Stream(keyID), eventstore.NewEvent{Type: apikey.EventCreated, Metadata: m, Data: apikey.Created{
				KeyID: keyID, OrgID: orgID, WorkspaceID: wsID, Hash: secret.Hash, Prefix: secret.Prefix,
				Label: "Signup key", Role: apikey.Owner, CreatedBy: "signup"}}},
			{credit.Stream(orgID), eventstore.NewEvent{Type: credit.EventGranted, Metadata: m, Data: credit.Granted{
				OrgID: orgID, Amount: credit.SignupGrant, Reason: credit.ReasonSignup}}},
		}
		if email != "" {
			_, err := h.store.AppendTx(ctx, tx, org.EmailStream(email), eventstore.NewStream, eventstore.NewEvent{
				Type: org.EventEmailReserved, Metadata: m, Data: org.EmailReserved{OrgID: orgID}})
			if errors.Is(err, eventstore.ErrConcurrency) {
				return org.ErrDuplicateEmail
			}
			if err != nil {
				return err
			}
		}
		for _, a := range appends {
			pos, err := h.store.AppendTx(ctx, tx, a.stream, eventstore.NewStream, a.event)
			if err != nil {
				return err
			}
			out.Position = pos
		}
		return nil
	})
	if err != nil {
		return OrganizationCreated{}, fmt.Errorf("create organization: %w", err)
	}
	return out, nil
}
