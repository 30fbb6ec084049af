package webhook

import (
	"crypto/rand"
	"encoding/hex"
)

// SecretBytes is the number of random bytes in a webhook secret.
const SecretBytes = 32

// NewSecret returns a new webhook secret: SecretBytes random bytes as 64
// lowercase hex characters. The string itself is the HMAC key (see the
// package documentation).
func NewSecret() string {
	b := make([]byte, SecretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails; it crashes instead
	return hex.EncodeToString(b)
}
