package httpapi

import (
	"time"

	"svc/domain/connection"
	"svc/projections"
)

// connectionCreateBody is the body of POST /api/rigor/connections.
type connectionCreateBody struct {
	DisplayName    *string         `json:"display_name"`
	Label          *string         `json:"label"`
	Scope          *string         `json:"scope"`
	WorkspaceID    *string         `json:"workspace_id"`
	ServerURL      *string         `json:"server_url"`
	AuthType       *string         `json:"auth_type"`
	Transport      *string         `json:"transport"`
	AuthCredential *credentialBody `json:"auth_credential"`
	// Provider names the provider when the server's host does not (a
	// registry id, or the name of an OAuth provider of this server).
	Provider *string `json:"provider"`
}

// connectionPatchBody is the body of PATCH /api/rigor/connections/{id}.
type connectionPatchBody struct {
	DisplayName    *string         `json:"display_name"`
	Label          *string         `json:"label"`
	AuthCredential *credentialBody `json:"auth_credential"`
	PermissionMode *string         `json:"permission_mode"`
}

// credentialBody is an auth_credential: bearer_token {token}, api_key
// {key, header}, oauth {access_token}, none {} or nothing.
type credentialBody struct {
	Token       *string `json:"token"`
	Key         *string `json:"key"`
	Header      *string `json:"header"`
	AccessToken *string `json:"access_token"`
}

// credential is b as the domain's credential; nil when b is.
func (b *credentialBody) credential() *connection.Credential {
	if b == nil {
		return nil
	}
	return &connection.Credential{Token: deref(b.Token), Key: deref(b.Key), Header: deref(b.Header), AccessToken: deref(b.AccessToken)}
}

// emptyObject encodes {} (a connection's config).
type emptyObject struct{}

// providerMetadata is a connection's provider as the registry has it.
type providerMetadata struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Icon              string   `json:"icon"`
	Tier              int      `json:"tier"`
	Category          string   `json:"category"`
	AuthType          string   `json:"auth_type"`
	CapabilitiesRead  []string `json:"capabilities_read"`
	CapabilitiesWrite []string `json:"capabilities_write"`
}

// connectionBody is the Connection resource (spec A), beside
// permission_mode; never a credential.
type connectionBody struct {
	ID               string                   `json:"id"`
	Label            string                   `json:"label"`
	DisplayName      string                   `json:"display_name"`
	Provider         string                   `json:"provider"`
	Scope            string                   `json:"scope"`
	WorkspaceID      *string                  `json:"workspace_id"`
	ServerURL        string                   `json:"server_url"`
	Transport        string                   `json:"transport"`
	AuthType         string                   `json:"auth_type"`
	PermissionMode   string                   `json:"permission_mode"`
	Status           string                   `json:"status"`
	Capabilities     *connection.Capabilities `json:"capabilities"`
	Config           emptyObject              `json:"config"`
	TokenValid       bool                     `json:"token_valid"`
	LastTestedAt     *time.Time               `json:"last_tested_at"`
	CreatedAt        time.Time                `json:"created_at"`
	UpdatedAt        time.Time                `json:"updated_at"`
	ProviderMetadata *providerMetadata        `json:"provider_metadata"`
}

func connectionOut(c projections.ConnectionRow) connectionBody {
	out := connectionBody{ID: c.ID, Label: c.Label, DisplayName: c.DisplayName, Provider: c.Provider, Scope: c.Scope,
		WorkspaceID: optional(c.WorkspaceID), ServerURL: c.ServerURL, Transport: c.Transport, AuthType: c.AuthType,
		PermissionMode: c.PermissionMode, Status: c.Status, Capabilities: c.Capabilities, TokenValid: c.TokenValid,
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
	if c.LastTestedAt != nil {
		at := c.LastTestedAt.UTC()
		out.LastTestedAt = &at
	}
	if p, ok := connection.ProviderByID(c.Provider); ok {
		out.ProviderMetadata = &providerMetadata{Name: p.Name, Description: p.Description, Icon: p.Icon, Tier: p.Tier, Category: p.Category,
			AuthType: string(p.AuthType), CapabilitiesRead: p.CapabilitiesRead, CapabilitiesWrite: p.CapabilitiesWrite}
	}
	return out
}

// availableProvider is a registry provider the caller may connect.
type availableProvider struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Icon        string `json:"icon"`
	Tier        int    `json:"tier"`
	AuthType    string `json:"auth_type"`
	Category    string `json:"category"`
}

// comingSoonProvider is a registry provider not offered yet.
type comingSoonProvider struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Icon        string `json:"icon"`
	Tier        int    `json:"tier"`
	Category    string `json:"category"`
}

// connectionsResponse is GET /api/rigor/connections: exactly three keys.
type connectionsResponse struct {
	Connections         []connectionBody     `json:"connections"`
	AvailableProviders  []availableProvider  `json:"available_providers"`
	ComingSoonProviders []comingSoonProvider `json:"coming_soon_providers"`
}

// connectionsFailure is GET /api/rigor/connections when the read failed
// (500): no connection, the error and the static lists.
type connectionsFailure struct {
	Connections         []connectionBody     `json:"connections"`
	AvailableProviders  []availableProvider  `json:"available_providers"`
	ComingSoonProviders []comingSoonProvider `json:"coming_soon_providers"`
	Error               errorEnvelope        `json:"error"`
}

// createdConnection is the connection as the creation shows it.
type createdConnection struct {
	ID          string    `json:"id"`
	DisplayName string    `json:"display_name"`
	Label       string    `json:"label"`
	Scope       string    `json:"scope"`
	WorkspaceID *string   `json:"workspace_id"`
	ServerURL   string    `json:"server_url"`
	Transport   string    `json:"transport"`
	AuthType    string    `json:"auth_type"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
}

// connectionCreatedResponse is the 201 of POST /api/rigor/connections.
type connectionCreatedResponse struct {
	Connection createdConnection `json:"connection"`
}

// reauthResponse is PATCH's answer when read_write needs a new OAuth
// authorization.
type reauthResponse struct {
	RequiresReauth bool   `json:"requires_reauth"`
	ReauthProvider string `json:"reauth_provider"`
	Message        string `json:"message"`
}

// connectionTestResponse is the 200 of a test: the connection is active.
type connectionTestResponse struct {
	Status       string   `json:"status"`
	ConnectionID string   `json:"connection_id"`
	ResolvedIPs  []string `json:"resolved_ips"`
	Message      string   `json:"message"`
}

// connectionTestFailure is the 400 of a failed test (spec A's
// {error: <string>}): the message, its code (ssrf_blocked or
// connection_failed), the connection's new status and the request id.
type connectionTestFailure struct {
	Error        string   `json:"error"`
	Code         string   `json:"code"`
	Status       string   `json:"status"`
	ConnectionID string   `json:"connection_id"`
	ResolvedIPs  []string `json:"resolved_ips"`
	RequestID    string   `json:"request_id"`
}

// revokedConnection is the connection as the deletion shows it.
type revokedConnection struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// connectionDeletedResponse is the 200 of DELETE.
type connectionDeletedResponse struct {
	Connection revokedConnection `json:"connection"`
	Message    string            `json:"message"`
}
