// Package uniquename holds the rule of names that must be unique in a
// scope (a workspace's folders, an organization's policies): the form two
// names are compared in, and the key of the stream that reserves a name.
package uniquename

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Normalize is the form in which two names are the same: trimmed, inner
// runs of white space made one space, lowercased.
func Normalize(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// Key is the reservation key of name in scope: the scope and a hash of
// the normalized name, so that any name fits a stream id.
func Key(scope, name string) string {
	sum := sha256.Sum256([]byte(Normalize(name)))
	return scope + "-" + hex.EncodeToString(sum[:16])
}
