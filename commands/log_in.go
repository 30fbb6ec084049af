package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/credentials"
	"svc/domain/org"
	"svc/domain/user"
	"svc/eventstore"
	"svc/eventstore/event"
)

// LogIn starts a session with an email and a password.
type LogIn struct {
	Email    string
	Password string
	ClientIP string
}

// LoggedIn is the outcome of LogIn, RefreshSession and UseAuthCode.
type LoggedIn struct {
	UserID   string
	Email    string
	Session  credentials.Session
	Position event.Position
}

// LogInHandler handles LogIn.
type LogInHandler struct {
	repos *Repositories
	now   func() time.Time
}

// NewLogInHandler returns a handler over repos.
func NewLogInHandler(repos *Repositories) LogInHandler {
	return LogInHandler{repos: must(repos), now: time.Now}
}

// Handle checks the password (an unknown email costs the same time as a
// wrong password, and both are user.ErrInvalidCredentials), then records
// the sign-in and stores the session in one transaction.
func (h LogInHandler) Handle(ctx context.Context, cmd LogIn) (LoggedIn, error) {
	email := org.NormalizeEmail(cmd.Email)
	userID, hash, err := credentials.Lookup(ctx, h.repos.Store.Pool(), email)
	switch {
	case errors.Is(err, credentials.ErrNotFound):
		user.CheckUnknown(cmd.Password)
		return LoggedIn{}, user.ErrInvalidCredentials
	case err != nil:
		return LoggedIn{}, err
	}
	ok, err := user.CheckPassword(cmd.Password, hash)
	if err != nil {
		return LoggedIn{}, err
	}
	if !ok {
		return LoggedIn{}, user.ErrInvalidCredentials
	}
	return startSession(ctx, h.repos, userID, "password", cmd.ClientIP, h.now())
}

// startSession records userID's sign-in by method and stores the session,
// in one transaction.
func startSession(ctx context.Context, repos *Repositories, userID, method, clientIP string, now time.Time) (LoggedIn, error) {
	session, err := credentials.NewSession(userID, now)
	if err != nil {
		return LoggedIn{}, err
	}
	out := LoggedIn{UserID: userID, Session: session}
	out.Position, err = repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		return signIn(tx, repos, userID, method, clientIP, session, &out)
	})
	if err != nil {
		return LoggedIn{}, fmt.Errorf("sign in: %w", err)
	}
	return out, nil
}

// signIn appends userID's UserSignedIn for session and stores it, in tx.
func signIn(tx *eventstore.Tx, repos *Repositories, userID, method, clientIP string, session credentials.Session, out *LoggedIn) error {
	u, err := repos.Users.Load(tx, userID)
	if err != nil {
		return err
	}
	out.Email = u.Email()
	m := event.Metadata{OrgID: u.OrgID(), Actor: "user:" + userID}
	if _, err := repos.Users.SaveWith(tx, userID, u, m, u.SignIn(session.ID, method, clientIP)); err != nil {
		return err
	}
	return credentials.SaveSession(tx.Context(), tx.DB(), session)
}
