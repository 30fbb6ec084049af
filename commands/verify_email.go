package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
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
	Position        eventstore.Position
}

// VerifyEmailHandler handles VerifyEmail.
type VerifyEmailHandler struct {
	store *eventstore.Store
}

// NewVerifyEmailHandler returns a handler appending to store.
func NewVerifyEmailHandler(store *eventstore.Store) VerifyEmailHandler {
	if store == nil {
		panic("nil event store")
	}
	return VerifyEmailHandler{store: store}
}

// Handle verifies; a second use of a valid token succeeds with nothing granted.
func (h VerifyEmailHandler) Handle(ctx context.Context, cmd VerifyEmail) (EmailVerified, error) {
	orgID, _, ok := strings.Cut(cmd.Token, ".")
	if !ok || uuid.Validate(orgID) != nil {
		return EmailVerified{}, org.ErrInvalidToken
	}
	var out EmailVerified
	err := eventstore.Retry(ctx, attempts, func() error {
		events, err := h.store.Load(ctx, org.Stream(orgID))
		if err != nil {
			return err
		}
		o, err := org.Load(events)
		if errors.Is(err, org.ErrNotFound) {
			return org.ErrInvalidToken
		}
		if err != nil {
			return err
		}
		verified, err := o.VerifyEmail(cmd.Token)
		if errors.Is(err, org.ErrAlreadyVerified) {
			out = EmailVerified{OrgID: orgID, AlreadyVerified: true}
			return nil
		}
		if errors.Is(err, org.ErrNoEmail) {
			return org.ErrInvalidToken
		}
		if err != nil {
			return err
		}
		grant, err := credit.New(orgID).Grant(credit.EmailVerificationGrant, credit.ReasonEmailVerification, "")
		if err != nil {
			return err
		}
		m := meta(ctx, orgID)
		return h.store.Transact(ctx, func(tx pgx.Tx) error {
			if _, err := h.store.AppendTx(ctx, tx, org.Stream(orgID), o.Version(), eventstore.NewEvent{Type: org.EventEmailVerified, Data: verified, Metadata: m}); err != nil {
				return err
			}
			pos, err := h.store.AppendTx(ctx, tx, credit.Stream(orgID), eventstore.AnyVersion, eventstore.NewEvent{Type: credit.EventGranted, Data: grant, Metadata: m})
			out = EmailVerified{OrgID: orgID, Granted: grant.Amount, Position: pos}
			return err
		})
	})
	if err != nil {
		return EmailVerified{}, fmt.Errorf("verify email: %w", err)
	}
	return out, nil
}
