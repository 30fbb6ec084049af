package invite

import (
	"crypto/subtle"
	"time"

	"svc/domain/user"
)

// Standing is what a reader of the invites read model knows of an invite:
// enough to tell whether a token would be accepted, without folding its
// stream (the invite preview, which writes nothing).
type Standing struct {
	TokenHash string
	Revoked   bool
	ExpiresAt time.Time
	MaxUses   *int // nil: unlimited
	Uses      int
}

// Check tells whether Accept would take token at now, in Accept's order
// and with its errors, leaving out what depends on who accepts (a second
// use by one user, an email invite's address): a wrong token, a revoked or
// used-up invite is ErrNotFound; past its expiry, ErrExpired.
func (s Standing) Check(token string, now time.Time) error {
	switch {
	case s.TokenHash == "" || subtle.ConstantTimeCompare([]byte(user.HashToken(token)), []byte(s.TokenHash)) != 1:
		return ErrNotFound
	case s.Revoked:
		return ErrNotFound
	case !now.Before(s.ExpiresAt):
		return ErrExpired
	case s.MaxUses != nil && s.Uses >= *s.MaxUses:
		return ErrNotFound
	}
	return nil
}
