package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/credentials"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/user"
	"svc/eventstore"
	"svc/eventstore/event"
)

// UseAuthCode spends a one-time code a mail carried (GET
// /api/auth/callback): an email verification code verifies the user's
// email (and, the first time, grants the verification credits to their
// organization); any valid code then starts a session.
type UseAuthCode struct {
	Code     string
	ClientIP string
}

// UseAuthCodeHandler handles UseAuthCode.
type UseAuthCodeHandler struct {
	repos *Repositories
	now   func() time.Time
}

// NewUseAuthCodeHandler returns a handler over repos.
func NewUseAuthCodeHandler(repos *Repositories) UseAuthCodeHandler {
	return UseAuthCodeHandler{repos: must(repos), now: time.Now}
}

// Handle uses the code, verifies, grants and signs in, in one transaction:
// a code that is unknown, expired or used is user.ErrInvalidCode.
func (h UseAuthCodeHandler) Handle(ctx context.Context, cmd UseAuthCode) (LoggedIn, error) {
	var out LoggedIn
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		out = LoggedIn{}
		userID, purpose, err := credentials.UseCode(tx.Context(), tx.DB(), cmd.Code)
		if errors.Is(err, credentials.ErrNotFound) {
			return user.ErrInvalidCode
		}
		if err != nil {
			return err
		}
		if purpose == credentials.PurposeVerify {
			if err := h.verify(tx, userID); err != nil {
				return err
			}
		}
		session, err := credentials.NewSession(userID, h.now())
		if err != nil {
			return err
		}
		out.UserID, out.Session = userID, session
		return signIn(tx, h.repos, userID, "link", cmd.ClientIP, session, &out)
	})
	if err != nil {
		return LoggedIn{}, fmt.Errorf("use code: %w", err)
	}
	out.Position = pos
	return out, nil
}

// verify records userID's email verification, the organization's, and
// the verification grant, unless the email was verified already.
func (h UseAuthCodeHandler) verify(tx *eventstore.Tx, userID string) error {
	u, err := h.repos.Users.Load(tx, userID)
	if err != nil {
		return err
	}
	verified, err := u.VerifyEmail()
	if errors.Is(err, user.ErrAlreadyVerified) {
		return nil
	}
	if err != nil {
		return err
	}
	m := event.Metadata{OrgID: u.OrgID(), Actor: "user:" + userID}
	if _, err := h.repos.Users.SaveWith(tx, userID, u, m, verified); err != nil {
		return err
	}
	o, err := h.repos.Orgs.Load(tx, u.OrgID())
	if err != nil {
		return err
	}
	confirmed, err := o.ConfirmEmail()
	if errors.Is(err, org.ErrAlreadyVerified) || errors.Is(err, org.ErrNoEmail) {
		return nil
	}
	if err != nil {
		return err
	}
	ledger, err := h.repos.Ledgers.Load(tx, u.OrgID())
	if err != nil {
		return err
	}
	grant, err := ledger.Grant(credit.EmailVerificationGrant, credit.ReasonEmailVerification, "")
	if err != nil {
		return err
	}
	if _, err := h.repos.Orgs.SaveWith(tx, u.OrgID(), o, m, confirmed); err != nil {
		return err
	}
	_, err = h.repos.Ledgers.SaveWith(tx, u.OrgID(), ledger, m, grant)
	return err
}
