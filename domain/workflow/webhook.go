package workflow

import (
	"crypto/sha256"
	"encoding/hex"
)

// EventWebhookRegistered is the only event of a webhook registration
// stream: an org's webhook URL and its signing secret, sealed.
const EventWebhookRegistered = "WebhookRegistered"

// WebhookRegistered is the data of EventWebhookRegistered. The secret is
// created (and shown) by the first execute that names the URL.
type WebhookRegistered struct {
	OrgID        string `json:"org_id"`
	URL          string `json:"url"`
	SealedSecret string `json:"sealed_secret"`
}

// WebhookStream is the registration stream of an org's webhook URL.
func WebhookStream(orgID, url string) string {
	sum := sha256.Sum256([]byte(url))
	return "webhook-" + orgID + "-" + hex.EncodeToString(sum[:12])
}
