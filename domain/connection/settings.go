package connection

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Scope is where a context-server connection is visible: the whole
// organization, or one workspace.
type Scope string

// Scopes.
const (
	ScopeOrg       Scope = "org"
	ScopeWorkspace Scope = "workspace"
)

// AuthType is how the service authenticates to a context server.
type AuthType string

// Auth types (spec A).
const (
	AuthBearer AuthType = "bearer_token"
	AuthAPIKey AuthType = "api_key"
	AuthOAuth  AuthType = "oauth"
	AuthNone   AuthType = "none"
)

// Transports, statuses and limits of context-server connections.
const (
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"

	StatusPending = "pending"
	StatusActive  = "active"
	StatusError   = "error"
	StatusRevoked = "revoked"

	// MaxPerOrg is spec A's limit of connections per organization, revoked
	// ones not counted.
	MaxPerOrg = 10
	// MaxDisplayName, MaxLabel, MaxURL and MaxSecret bound those fields
	// (characters; bytes for a secret).
	MaxDisplayName = 32
	MaxLabel       = 100
	MaxURL         = 2048
	MaxSecret      = 8192
	// DefaultKeyHeader is the header an api_key credential goes in when
	// it names none.
	DefaultKeyHeader = "X-API-Key"
	// ReasonBlocked is TestFailed's reason when an address of the host is
	// private or reserved (the SSRF rules); ReasonUnreachable when the
	// host or the server did not answer.
	ReasonBlocked     = "ssrf_blocked"
	ReasonUnreachable = "connection_failed"
)

// Value sets, in spec A's order.
var (
	AuthTypes  = []AuthType{AuthBearer, AuthAPIKey, AuthOAuth, AuthNone}
	Transports = []string{TransportStreamableHTTP, TransportSSE}
	Statuses   = []string{StatusPending, StatusActive, StatusError, StatusRevoked}
	Scopes     = []Scope{ScopeOrg, ScopeWorkspace}
)

var (
	displayNamePattern = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)
	providerPattern    = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
)

// FieldError refuses one field: Missing when it is required and absent,
// else Reason says what is wrong with it.
type FieldError struct {
	Field   string
	Missing bool
	Reason  string
}

func (e *FieldError) Error() string {
	if e.Missing {
		return "connection: " + e.Field + " is required"
	}
	return "connection: " + e.Field + ": " + e.Reason
}

func missing(field string) error { return &FieldError{Field: field, Missing: true} }

func invalid(field, reason string) error { return &FieldError{Field: field, Reason: reason} }

// CheckDisplayName refuses a display_name outside spec A's slug rule.
func CheckDisplayName(name string) error {
	if !displayNamePattern.MatchString(name) {
		return invalid("display_name", "1-32 characters of a-z, 0-9, _ and - (it becomes mcp__{display_name}__{tool})")
	}
	return nil
}

// Slug is the display_name a label stands for: lower case, each run of
// other characters a "-", at most 32 characters ("" when nothing is left).
func Slug(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > MaxDisplayName {
		s = strings.TrimRight(s[:MaxDisplayName], "-")
	}
	return s
}

// checkLabel trims a label and bounds it.
func checkLabel(label string) (string, error) {
	label = strings.TrimSpace(label)
	if utf8.RuneCountInString(label) > MaxLabel {
		return "", invalid("label", fmt.Sprintf("at most %d characters", MaxLabel))
	}
	return label, nil
}

// CheckServerURL applies the rules of a server_url that need neither DNS
// nor configuration: an absolute https URL with a host, no user
// information, at most MaxURL bytes. The SSRF rules on its host are the
// outbound adapter's.
func CheckServerURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", missing("server_url")
	}
	if len(raw) > MaxURL {
		return "", invalid("server_url", fmt.Sprintf("at most %d bytes", MaxURL))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Opaque != "":
		return "", invalid("server_url", "not an absolute URL")
	case !strings.EqualFold(u.Scheme, "https"):
		return "", invalid("server_url", "must be an https URL")
	case u.Hostname() == "":
		return "", invalid("server_url", "no host")
	case u.User != nil:
		return "", invalid("server_url", "user information is not allowed; use auth_credential")
	}
	return raw, nil
}

// SameServer is the form in which two server URLs are the same server:
// scheme and host lower-cased, the default port, the fragment and a
// trailing "/" dropped.
func SameServer(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	host := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && p != "443" {
		host += ":" + p
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "https://" + host + strings.TrimRight(u.EscapedPath(), "/") + queryOf(u)
}

func queryOf(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// ServerInfo is what a server says of itself in initialize.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Capabilities are what a server's MCP initialize answered: its protocol
// version, name, which features it offers, and Operations, the MCP methods
// the gateway executes on it (resources/list and resources/read when it
// offers resources; never a tool, prompt or write).
type Capabilities struct {
	ProtocolVersion string     `json:"protocol_version"`
	Server          ServerInfo `json:"server"`
	Resources       bool       `json:"resources"`
	Tools           bool       `json:"tools"`
	Prompts         bool       `json:"prompts"`
	Operations      []string   `json:"operations"`
}

// ReadOperations are the only MCP methods the gateway executes (spec A's
// connection security rules).
var ReadOperations = []string{"resources/list", "resources/read"}

// Errors of the gateway's decisions.
var (
	// ErrNotFound: no such connection visible to the caller, or (for a
	// change or a test) a revoked one.
	ErrNotFound = errors.New("connection not found")
	// ErrLimit: the organization has MaxPerOrg connections.
	ErrLimit = errors.New("connection limit reached")
	// ErrDuplicate: the scope has a connection to the same server
	// (DuplicateError names it).
	ErrDuplicate = errors.New("duplicate connection")
	// ErrDisplayNameTaken: a connection visible beside it has that
	// display_name (DuplicateError names it).
	ErrDisplayNameTaken = errors.New("display_name taken")
	// ErrDisplayNameLocked: the connection's tools were called.
	ErrDisplayNameLocked = errors.New("display_name cannot change after the first tool call")
	// ErrReauthRequired: read_write needs an OAuth authorization of that
	// mode (ReauthError names the provider).
	ErrReauthRequired = errors.New("oauth reauthorization required")
)

// DuplicateError names the existing connection a creation collides with.
type DuplicateError struct {
	ExistingID string
	Err        error // ErrDuplicate or ErrDisplayNameTaken
}

func (e *DuplicateError) Error() string { return e.Err.Error() + ": " + e.ExistingID }

func (e *DuplicateError) Unwrap() error { return e.Err }

// ReauthError asks for an OAuth authorization of Provider in Mode.
type ReauthError struct {
	Provider string
	Mode     PermissionMode
}

func (e *ReauthError) Error() string {
	return fmt.Sprintf("%v: authorize %s for %s", ErrReauthRequired, e.Provider, e.Mode)
}

func (e *ReauthError) Unwrap() error { return ErrReauthRequired }
