package connection

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Provider statuses in the registry.
const (
	ProviderAvailable  = "available"
	ProviderComingSoon = "coming_soon"
	// SelfHosted is the provider of a server no registry entry names.
	SelfHosted = "mcp-server"
)

// Provider is an entry of the provider registry (data/providers.json):
// what GET /api/rigor/connections offers and what a connection's
// provider_metadata shows. Tier ranks the support: 1 a vendor's hosted
// server the service is built against, 2 a vendor's server, 3 a server of
// your own. ServerURL is the vendor's hosted endpoint ("" for mcp-server
// and providers coming soon): a connection to its host is of this
// provider.
type Provider struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Icon              string   `json:"icon"`
	Tier              int      `json:"tier"`
	AuthType          AuthType `json:"auth_type"`
	Category          string   `json:"category"`
	Status            string   `json:"status"`
	ServerURL         string   `json:"server_url"`
	Transport         string   `json:"transport"`
	CapabilitiesRead  []string `json:"capabilities_read"`
	CapabilitiesWrite []string `json:"capabilities_write"`
}

//go:embed data/providers.json
var providersJSON []byte

var providers = mustProviders(providersJSON)

func mustProviders(raw []byte) []Provider {
	var out []Provider
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(fmt.Sprintf("connection: data/providers.json: %v", err))
	}
	return out
}

// Providers is the registry, in its file's order.
func Providers() []Provider {
	out := make([]Provider, len(providers))
	copy(out, providers)
	return out
}

// ProviderByID is the registry's provider id.
func ProviderByID(id string) (Provider, bool) {
	for _, p := range providers {
		if p.ID == id {
			return p, true
		}
	}
	return Provider{}, false
}

// ProviderFor is the provider of a server at serverURL: the available
// provider whose hosted server is on the same host, else SelfHosted.
func ProviderFor(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return SelfHosted
	}
	for _, p := range providers {
		if p.Status != ProviderAvailable || p.ServerURL == "" {
			continue
		}
		if pu, err := url.Parse(p.ServerURL); err == nil && strings.EqualFold(pu.Host, u.Host) {
			return p.ID
		}
	}
	return SelfHosted
}
