package secrets

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// SealURL seals plaintext for a value that travels in a URL (an OAuth
// state) and is bound to purpose: base64url without padding of nonce ||
// ciphertext || tag, with purpose as the associated data. A value sealed
// for one purpose never opens for another, nor as a stored secret (Seal),
// and one of Seal never opens here.
func (b *Box) SealURL(purpose string, plaintext []byte) string {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails; it crashes instead
	return base64.RawURLEncoding.EncodeToString(b.aead.Seal(nonce, nonce, plaintext, []byte(purpose)))
}

// OpenURL opens a value of SealURL sealed for purpose. Any other value, or
// one that was changed, gives an error wrapping ErrCorrupt.
func (b *Box) OpenURL(purpose, sealed string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	n := b.aead.NonceSize()
	if len(raw) < n+b.aead.Overhead() {
		return nil, fmt.Errorf("%w: too short", ErrCorrupt)
	}
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(purpose))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return plain, nil
}
