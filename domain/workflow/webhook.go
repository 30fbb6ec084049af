package workflow

import (
	"crypto/sha256"
	"encoding/hex"
)

// WebhookStream is the registration stream of an org's webhook URL.
func WebhookStream(orgID, url string) string {
	sum := sha256.Sum256([]byte(url))
	return "webhook-" + orgID + "-" + hex.EncodeToString(sum[:12])
}
