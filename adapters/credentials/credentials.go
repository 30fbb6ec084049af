// Package credentials keeps what proves who a user is outside the event
// log (migration 0009): password hashes, sessions and one-time codes.
// Every function takes the database handle of the caller's transaction, so
// a row is written with the event that records it, or not at all. Tokens
// and codes are stored as user.HashToken of the raw value.
package credentials

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"svc/domain/user"
	"svc/eventstore"
)

// Errors.
var (
	ErrNotFound = errors.New("credentials: not found")
	// ErrRefreshReused: a refresh token that a rotation replaced came back;
	// RotateSession has revoked its session.
	ErrRefreshReused = errors.New("credentials: refresh token reused")
	// ErrEmailTaken: another user has the email.
	ErrEmailTaken = errors.New("credentials: email taken")
)

// Lifetimes of tokens and codes (docs/decisions.md).
const (
	AccessTTL  = time.Hour
	RefreshTTL = 30 * 24 * time.Hour
	CodeTTL    = 24 * time.Hour
)

// Code purposes.
const (
	PurposeVerify = "verify_email"
	PurposeSignIn = "sign_in"
)

// SaveUser stores userID's email (normalized by the caller) and password
// hash.
func SaveUser(ctx context.Context, db eventstore.DB, userID, email, hash string) error {
	_, err := db.Exec(ctx, `INSERT INTO user_credentials (user_id, email, password_hash) VALUES ($1, $2, $3)`, userID, email, hash)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return ErrEmailTaken
	}
	if err != nil {
		return fmt.Errorf("save credentials: %w", err)
	}
	return nil
}

// Lookup returns the user id and password hash of email (normalized).
func Lookup(ctx context.Context, db eventstore.DB, email string) (userID, hash string, err error) {
	err = db.QueryRow(ctx, `SELECT user_id::text, password_hash FROM user_credentials WHERE email = $1`, email).Scan(&userID, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("look up credentials: %w", err)
	}
	return userID, hash, nil
}

// Session is a session's tokens; Access and Refresh are the raw values,
// known only when the session is made or rotated.
type Session struct {
	ID             string
	UserID         string
	Access         string
	Refresh        string
	AccessExpires  time.Time
	RefreshExpires time.Time
}

// NewSession makes the tokens of a new session of userID.
func NewSession(userID string, now time.Time) (Session, error) {
	s := Session{ID: uuid.NewString(), UserID: userID}
	return s, s.renew(now)
}

func (s *Session) renew(now time.Time) error {
	var err error
	if s.Access, err = user.NewToken(); err != nil {
		return err
	}
	if s.Refresh, err = user.NewToken(); err != nil {
		return err
	}
	s.AccessExpires, s.RefreshExpires = now.Add(AccessTTL), now.Add(RefreshTTL)
	return nil
}

// SaveSession stores a new session.
func SaveSession(ctx context.Context, db eventstore.DB, s Session) error {
	_, err := db.Exec(ctx, `INSERT INTO user_sessions (session_id, user_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		s.ID, s.UserID, user.HashToken(s.Access), s.AccessExpires, user.HashToken(s.Refresh), s.RefreshExpires)
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// SessionOf returns the session id and user of a valid (unexpired,
// unrevoked) access token.
func SessionOf(ctx context.Context, db eventstore.DB, access string) (sessionID, userID string, err error) {
	err = db.QueryRow(ctx, `SELECT session_id::text, user_id::text FROM user_sessions
		WHERE access_hash = $1 AND revoked_at IS NULL AND access_expires_at > now()`, user.HashToken(access)).Scan(&sessionID, &userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("look up session: %w", err)
	}
	return sessionID, userID, nil
}

// RotateSession replaces the tokens of the session whose refresh token is
// refresh, locking its row. A refresh token the last rotation replaced
// revokes the session and answers ErrRefreshReused with its ids (the
// caller records the revocation); an unknown, expired or revoked one is
// ErrNotFound.
func RotateSession(ctx context.Context, db eventstore.DB, refresh string, now time.Time) (Session, error) {
	h := user.HashToken(refresh)
	var s Session
	var current bool
	err := db.QueryRow(ctx, `SELECT session_id::text, user_id::text, refresh_hash = $1 FROM user_sessions
		WHERE (refresh_hash = $1 OR refresh_previous = $1) AND revoked_at IS NULL AND refresh_expires_at > now()
		FOR UPDATE`, h).Scan(&s.ID, &s.UserID, &current)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	if err != nil {
		return Session{}, fmt.Errorf("rotate session: %w", err)
	}
	if !current {
		if err := RevokeSession(ctx, db, s.ID); err != nil {
			return Session{}, err
		}
		return s, ErrRefreshReused
	}
	if err := s.renew(now); err != nil {
		return Session{}, err
	}
	_, err = db.Exec(ctx, `UPDATE user_sessions SET access_hash = $2, access_expires_at = $3, refresh_previous = refresh_hash,
		refresh_hash = $4, refresh_expires_at = $5 WHERE session_id = $1`,
		s.ID, user.HashToken(s.Access), s.AccessExpires, user.HashToken(s.Refresh), s.RefreshExpires)
	if err != nil {
		return Session{}, fmt.Errorf("rotate session: %w", err)
	}
	return s, nil
}

// RevokeSession ends a session; its tokens stop working at once.
func RevokeSession(ctx context.Context, db eventstore.DB, sessionID string) error {
	if _, err := db.Exec(ctx, `UPDATE user_sessions SET revoked_at = now() WHERE session_id = $1 AND revoked_at IS NULL`, sessionID); err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// SaveCode stores a one-time code of userID for purpose.
func SaveCode(ctx context.Context, db eventstore.DB, userID, purpose, code string, expires time.Time) error {
	if _, err := db.Exec(ctx, `INSERT INTO auth_codes (code_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, $4)`,
		user.HashToken(code), userID, purpose, expires); err != nil {
		return fmt.Errorf("save code: %w", err)
	}
	return nil
}

// UseCode marks an unexpired, unused code used and returns its user and
// purpose; an unknown, expired or used code is ErrNotFound. Two uses racing
// for one code: one wins.
func UseCode(ctx context.Context, db eventstore.DB, code string) (userID, purpose string, err error) {
	err = db.QueryRow(ctx, `UPDATE auth_codes SET used_at = now()
		WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id::text, purpose`,
		user.HashToken(code)).Scan(&userID, &purpose)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("use code: %w", err)
	}
	return userID, purpose, nil
}
