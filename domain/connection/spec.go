package connection

import (
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Spec is what a connection is created with (spec A's create body).
type Spec struct {
	// DisplayName is the slug; "" takes Label's (Slug). Label "" is the
	// display name.
	DisplayName string
	Label       string
	Scope       Scope
	WorkspaceID string // required at workspace scope, "" at org scope
	ServerURL   string
	Transport   string // "" is streamable-http
	AuthType    AuthType
	// Provider is the registry's provider id, or any provider name; ""
	// derives it from ServerURL (ProviderFor).
	Provider   string
	Mode       PermissionMode // "" is read
	Credential Credential     // checked by Check, from CheckCredential's input
}

// Check normalizes s and applies every rule that needs no I/O; cred is
// the auth_credential as given (nil: omitted).
func (s Spec) Check(cred *Credential) (Spec, error) {
	var err error
	if s.Label, err = checkLabel(s.Label); err != nil {
		return Spec{}, err
	}
	if s.DisplayName == "" {
		if s.Label == "" {
			return Spec{}, missing("display_name")
		}
		if s.DisplayName = Slug(s.Label); s.DisplayName == "" {
			return Spec{}, invalid("label", "holds no letter or digit to make a display_name of")
		}
	}
	if err := CheckDisplayName(s.DisplayName); err != nil {
		return Spec{}, err
	}
	if s.Label == "" {
		s.Label = s.DisplayName
	}
	switch s.Scope {
	case "":
		return Spec{}, missing("scope")
	case ScopeOrg:
		if s.WorkspaceID != "" {
			return Spec{}, invalid("workspace_id", "must be null at org scope")
		}
	case ScopeWorkspace:
		if s.WorkspaceID == "" {
			return Spec{}, missing("workspace_id")
		}
		if uuid.Validate(s.WorkspaceID) != nil || len(s.WorkspaceID) != 36 {
			return Spec{}, invalid("workspace_id", "not a workspace id")
		}
	default:
		return Spec{}, invalid("scope", "org or workspace")
	}
	if s.ServerURL, err = CheckServerURL(s.ServerURL); err != nil {
		return Spec{}, err
	}
	switch {
	case s.Transport == "":
		s.Transport = TransportStreamableHTTP
	case !slices.Contains(Transports, s.Transport):
		return Spec{}, invalid("transport", "streamable-http or sse")
	}
	switch {
	case s.AuthType == "":
		return Spec{}, missing("auth_type")
	case !slices.Contains(AuthTypes, s.AuthType):
		return Spec{}, invalid("auth_type", "bearer_token, api_key, oauth or none")
	}
	if s.Credential, err = CheckCredential(s.AuthType, cred); err != nil {
		return Spec{}, err
	}
	if s.Provider = strings.TrimSpace(s.Provider); s.Provider == "" {
		s.Provider = ProviderFor(s.ServerURL)
	} else if !providerPattern.MatchString(s.Provider) {
		return Spec{}, invalid("provider", "a lowercase letter, then up to 31 of a-z, 0-9, _ and -")
	}
	if s.Mode == "" {
		s.Mode = Read
	}
	return s, nil
}

// Change is a partial update of a connection (spec A's PATCH body); nil
// fields are kept.
type Change struct {
	DisplayName *string
	Label       *string
	Credential  *Credential
	Mode        *PermissionMode
}

// check normalizes c for a connection of auth type t.
func (c Change) check(t AuthType) (Change, error) {
	if c.DisplayName != nil {
		if err := CheckDisplayName(*c.DisplayName); err != nil {
			return Change{}, err
		}
	}
	if c.Label != nil {
		l, err := checkLabel(*c.Label)
		if err != nil {
			return Change{}, err
		}
		if l == "" {
			return Change{}, invalid("label", "may not be empty")
		}
		c.Label = &l
	}
	if c.Mode != nil {
		if _, err := ParsePermissionMode(string(*c.Mode)); err != nil || *c.Mode == "" {
			return Change{}, invalid("permission_mode", "read or read_write")
		}
	}
	if c.Credential != nil && t == AuthNone && *c.Credential == (Credential{}) {
		c.Credential = nil // none: {} is no credential
	}
	if c.Credential != nil {
		if t == AuthNone {
			return Change{}, invalid("auth_credential", "auth_type none takes no credential")
		}
		cred, err := CheckCredential(t, c.Credential)
		if err != nil {
			return Change{}, err
		}
		c.Credential = &cred
	}
	return c, nil
}
