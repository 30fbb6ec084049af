// Package secrets encrypts stored secrets (webhook secrets, connection
// credentials) with AES-256-GCM under the service key of SVC_SECRET_KEY
// or, when that is unset, of a key file in the user's config directory
// (see Load).
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of the key in bytes.
const KeySize = 32

// prefix marks the format of a sealed value: "v1:" + base64 (standard,
// padded) of nonce || ciphertext || tag.
const prefix = "v1:"

// Sentinel errors of NewBox and Open.
var (
	// ErrKeySize is returned by NewBox for a key that is not KeySize bytes.
	ErrKeySize = errors.New("secrets: key must be 32 bytes")
	// ErrCorrupt is returned by Open for a value that was not sealed by a
	// Box with the same key, or was altered since.
	ErrCorrupt = errors.New("secrets: sealed value is corrupt or the key is wrong")
)

// Box seals and opens secrets with one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// NewBox returns a Box for a KeySize-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w, got %d", ErrKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext with a fresh random nonce and returns
// "v1:" + base64(nonce || ciphertext), safe to store as text. Sealing the
// same plaintext twice gives different values.
func (b *Box) Seal(plaintext []byte) string {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails; it crashes instead
	sealed := b.aead.Seal(nonce, nonce, plaintext, nil)
	return prefix + base64.StdEncoding.EncodeToString(sealed)
}

// Open decrypts a value of Seal. Any value this Box did not seal, or that
// was changed, gives an error wrapping ErrCorrupt.
func (b *Box) Open(sealed string) ([]byte, error) {
	rest, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return nil, fmt.Errorf("%w: unknown format", ErrCorrupt)
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	n := b.aead.NonceSize()
	if len(raw) < n+b.aead.Overhead() {
		return nil, fmt.Errorf("%w: too short", ErrCorrupt)
	}
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return plain, nil
}
