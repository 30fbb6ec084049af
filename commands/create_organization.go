package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"svc/adapters/mail"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// DefaultOrgName names an organization created with neither name nor email.
const DefaultOrgName = org.DefaultName

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
	Position          event.Position
}

// CreateOrganizationHandler handles CreateOrganization.
type CreateOrganizationHandler struct {
	repos *Repositories
	mail  *verificationMail // nil: no mail is sent
}

// SignupOption configures a CreateOrganizationHandler.
type SignupOption func(*CreateOrganizationHandler)

// verificationMailTimeout bounds the sending of one verification mail.
const verificationMailTimeout = 30 * time.Second

// verificationMail is how a signup with an email mails its link.
type verificationMail struct {
	sender  mail.Sender
	baseURL string
	pending *Background
	log     *slog.Logger
}

// WithVerificationMail mails the verification link of a signup with an
// email through sender, once the signup has committed. The link is under
// baseURL; the sending runs in pending (the process waits for it at
// shutdown), bounded by 30 seconds, and a failure is logged to log.
func WithVerificationMail(sender mail.Sender, baseURL string, pending *Background, log *slog.Logger) SignupOption {
	if sender == nil || pending == nil || log == nil {
		panic("commands: nil verification mail dependency")
	}
	return func(h *CreateOrganizationHandler) {
		h.mail = &verificationMail{sender: sender, baseURL: baseURL, pending: pending, log: log}
	}
}

// NewCreateOrganizationHandler returns a handler over repos (sending no
// mail unless WithVerificationMail says how).
func NewCreateOrganizationHandler(repos *Repositories, opts ...SignupOption) CreateOrganizationHandler {
	h := CreateOrganizationHandler{repos: must(repos)}
	for _, o := range opts {
		o(&h)
	}
	return h
}

// Handle appends the organization, its email reservation, workspace, key and
// signup grant in one transaction: all of them or none. After the commit
// the verification link goes out in the background (WithVerificationMail).
func (h CreateOrganizationHandler) Handle(ctx context.Context, cmd CreateOrganization) (OrganizationCreated, error) {
	orgID, wsID, keyID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	var token string
	if strings.TrimSpace(cmd.Email) != "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return OrganizationCreated{}, fmt.Errorf("verification token: %w", err)
		}
		token = orgID + "." + hex.EncodeToString(b)
	}
	created, err := org.Create(orgID, cmd.Name, cmd.Email, wsID, token, cmd.ClientIP)
	if err != nil {
		return OrganizationCreated{}, err
	}
	secret, err := apikey.Generate()
	if err != nil {
		return OrganizationCreated{}, err
	}
	m := event.Metadata{OrgID: orgID}
	if event.MetadataFrom(ctx).Actor == "" {
		m.Actor = "key:" + keyID
	}
	grant, err := credit.New(orgID).Grant(credit.SignupGrant, credit.ReasonSignup, "")
	if err != nil {
		return OrganizationCreated{}, err
	}
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: m}, func(tx *eventstore.Tx) error {
		if created.Email != "" {
			_, err := tx.Append(org.EmailStream(created.Email), event.NewStream, org.EmailReserved{OrgID: orgID})
			if errors.Is(err, event.ErrConcurrency) {
				return org.ErrDuplicateEmail
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.Append(org.Stream(orgID), event.NewStream, created); err != nil {
			return err
		}
		if err := appendDefaultWorkspace(tx, orgID, wsID, func(ws *workspace.Workspace) ([]event.Data, error) {
			attached, err := ws.AttachKey(org.Free, keyID, apikey.Owner)
			return []event.Data{attached}, err
		}); err != nil {
			return err
		}
		for _, a := range []struct {
			stream string
			data   event.Data
		}{
			{apikey.Stream(keyID), apikey.Created{KeyID: keyID, OrgID: orgID, WorkspaceID: wsID, Hash: secret.Hash, Prefix: secret.Prefix,
				Label: "Signup key", Role: apikey.Owner, CreatedBy: "signup"}},
			{credit.Stream(orgID), grant},
		} {
			if _, err := tx.Append(a.stream, event.NewStream, a.data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OrganizationCreated{}, fmt.Errorf("create organization: %w", err)
	}
	if token != "" && h.mail != nil {
		h.mail.send(created.Email, token)
	}
	return OrganizationCreated{OrgID: orgID, WorkspaceID: wsID, KeyID: keyID, Key: secret, Email: created.Email, VerificationToken: token,
		Credits: grant.Amount, Position: pos}, nil
}

// send mails the verification link with token to the address to, in the
// background.
func (m *verificationMail) send(to, token string) {
	link := m.baseURL + "/api/keys/verify-email?token=" + url.QueryEscape(token)
	msg := mail.Message{
		To:      to,
		Subject: "Verify your email to get 2,500 more credits",
		Body: "Welcome!\n\nOpen this link to verify your email address and receive 2,500 more credits:\n\n" +
			link + "\n\nIf you did not create an API key, ignore this message.\n",
	}
	m.deliver(msg)
}

// deliver sends msg in the background, bounded by 30 seconds; a failure is
// logged.
func (m *verificationMail) deliver(msg mail.Message) {
	m.pending.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), verificationMailTimeout)
		defer cancel()
		if err := m.sender.Send(ctx, msg); err != nil {
			m.log.Error("mail not sent", "to", msg.To, "subject", msg.Subject, "error", err)
		}
	})
}
