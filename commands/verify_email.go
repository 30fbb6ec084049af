package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
)

// VerifyEmail confirms an organization's email with the token that was mailed
// to it, and grants the verification credits, once.
type VerifyEmail struct {
	Token string
}

// EmailVerified is the outcome of VerifyEmail.
type EmailVerified struct {
	OrgID           string
	Granted         int64 // 0 when the email was already verified
	AlreadyVerified bool
	Position        event.Position
}

// VerifyEmailHandler handles VerifyEmail.
type VerifyEmailHandler struct{ repos *Repositories }

// NewVerifyEmailHandler returns a handler over repos.
func NewVerifyEmailHandler(repos *Repositories) VerifyEmailHandler {
	return VerifyEmailHandler{repos: must(repos)}
}

// Handle verifies and grants in one transaction; a second use of a valid
// token succeeds with nothing granted.
func (h VerifyEmailHandler) Handle(ctx context.Context, cmd VerifyEmail) (EmailVerified, error) {
	orgID, _, ok := strings.Cut(cmd.Token, ".")
	if !ok || uuid.Validate(orgID) != nil {
		return EmailVerified{}, org.ErrInvalidToken
	}
	out := EmailVerified{OrgID: orgID}
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: orgID}}, func(tx *eventstore.Tx) error {
		out.AlreadyVerified, out.Granted = false, 0
		o, err := h.repos.Orgs.Load(tx, orgID)
		if errors.Is(err, org.ErrNotFound) {
			return org.ErrInvalidToken
		}
		if err != nil {
			return err
		}
		verified, err := o.VerifyEmail(cmd.Token)
		switch {
		case errors.Is(err, org.ErrAlreadyVerified):
			out.AlreadyVerified = true
			return nil
		case errors.Is(err, org.ErrNoEmail):
			return org.ErrInvalidToken
		case err != nil:
			return err
		}
		ledger, err := h.repos.Ledgers.Load(tx, orgID)
		if err != nil {
			return err
		}
		grant, err := ledger.Grant(credit.EmailVerificationGrant, credit.ReasonEmailVerification, "")
		if err != nil {
			return err
		}
		if _, err := h.repos.Orgs.Save(tx, orgID, o, verified); err != nil {
			return err
		}
		_, err = h.repos.Ledgers.Save(tx, orgID, ledger, grant)
		out.Granted = grant.Amount
		return err
	})
	if err != nil {
		return EmailVerified{}, fmt.Errorf("verify email: %w", err)
	}
	out.Position = pos
	return out, nil
}
