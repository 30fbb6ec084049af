package commands

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"svc/adapters/credentials"
	"svc/adapters/mail"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/user"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// SignUp registers a user with a password: a new user, their organization,
// its default workspace with the user as owner, the signup credit grant
// and a first session. The email is verified through a mailed link.
type SignUp struct {
	Email    string
	Password string
	Name     string
	ClientIP string
}

// SignedUp is the outcome of SignUp.
type SignedUp struct {
	UserID      string
	Email       string
	OrgID       string
	WorkspaceID string
	Session     credentials.Session
	// VerificationCode is the one-time code the mailed link carries.
	VerificationCode string
	Position         event.Position
}

// SignUpHandler handles SignUp.
type SignUpHandler struct {
	repos *Repositories
	mail  *verificationMail // nil: no mail
	now   func() time.Time
}

// NewSignUpHandler returns a handler over repos that mails the
// verification link through m (nil: no mail).
func NewSignUpHandler(repos *Repositories, m *verificationMail) SignUpHandler {
	return SignUpHandler{repos: must(repos), mail: m, now: time.Now}
}

// Handle hashes the password (outside the transaction: it is the slow
// part), then appends every event and writes the credentials, session and
// code rows in one transaction.
func (h SignUpHandler) Handle(ctx context.Context, cmd SignUp) (SignedUp, error) {
	if err := user.ValidatePassword(cmd.Password); err != nil {
		return SignedUp{}, err
	}
	userID, orgID, wsID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	registered, err := user.Register(userID, cmd.Email, cmd.Name, orgID, wsID, cmd.ClientIP)
	if err != nil {
		return SignedUp{}, err
	}
	created, err := org.Create(orgID, registered.Name, registered.Email, wsID, "", cmd.ClientIP)
	if err != nil {
		return SignedUp{}, err
	}
	hash, err := user.HashPassword(cmd.Password)
	if err != nil {
		return SignedUp{}, err
	}
	grant, err := credit.New(orgID).Grant(credit.SignupGrant, credit.ReasonSignup, "")
	if err != nil {
		return SignedUp{}, err
	}
	now := h.now()
	session, err := credentials.NewSession(userID, now)
	if err != nil {
		return SignedUp{}, err
	}
	code, err := user.NewToken()
	if err != nil {
		return SignedUp{}, err
	}
	u, err := foldNew(user.New(), user.Stream(userID), registered)
	if err != nil {
		return SignedUp{}, err
	}
	signedIn := u.SignIn(session.ID, "signup", cmd.ClientIP)
	out := SignedUp{UserID: userID, Email: registered.Email, OrgID: orgID, WorkspaceID: wsID, Session: session, VerificationCode: code}
	m := event.Metadata{OrgID: orgID, Actor: "user:" + userID}
	out.Position, err = h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: m}, func(tx *eventstore.Tx) error {
		for _, claim := range []struct {
			stream string
			data   event.Data
		}{
			{user.EmailStream(registered.Email), user.EmailClaimed{UserID: userID}},
			{org.EmailStream(registered.Email), org.EmailReserved{OrgID: orgID}},
		} {
			_, err := tx.Append(claim.stream, event.NewStream, claim.data)
			if errors.Is(err, event.ErrConcurrency) {
				return user.ErrEmailTaken
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.Append(org.Stream(orgID), event.NewStream, created); err != nil {
			return err
		}
		if err := appendDefaultWorkspace(tx, orgID, wsID, func(ws *workspace.Workspace) ([]event.Data, error) {
			owner, err := ws.AddMember(org.Free, userID, registered.Email, registered.Name, apikey.Owner, "signup", "")
			return []event.Data{owner}, err
		}); err != nil {
			return err
		}
		for _, a := range []struct {
			stream string
			data   []event.Data
		}{
			{user.Stream(userID), []event.Data{registered, signedIn}},
			{credit.Stream(orgID), []event.Data{grant}},
		} {
			if _, err := tx.Append(a.stream, event.NewStream, a.data...); err != nil {
				return err
			}
		}
		db := tx.DB()
		if err := credentials.SaveUser(ctx, db, userID, registered.Email, hash); err != nil {
			if errors.Is(err, credentials.ErrEmailTaken) {
				return user.ErrEmailTaken
			}
			return err
		}
		if err := credentials.SaveSession(ctx, db, session); err != nil {
			return err
		}
		return credentials.SaveCode(ctx, db, userID, credentials.PurposeVerify, code, now.Add(credentials.CodeTTL))
	})
	if err != nil {
		return SignedUp{}, fmt.Errorf("sign up: %w", err)
	}
	if h.mail != nil {
		h.mail.deliver(mail.Message{
			To:      registered.Email,
			Subject: "Confirm your email address",
			Body: "Welcome!\n\nOpen this link to confirm your email address and receive 2,500 more credits:\n\n" +
				h.mail.baseURL + "/api/auth/callback?code=" + url.QueryEscape(code) + "&next=" + url.QueryEscape("/dashboard") +
				"\n\nThe link works once, for 24 hours. If you did not sign up, ignore this message.\n",
		})
	}
	return out, nil
}

// foldNew folds data into a as the first events of stream, to decide what
// follows them in the same transaction.
func foldNew[A event.Aggregate](a A, stream string, data ...event.Data) (A, error) {
	for i, d := range data {
		if err := a.Apply(event.Recorded(stream, int64(i), time.Now(), d)); err != nil {
			return a, err
		}
	}
	return a, nil
}
