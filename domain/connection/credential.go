package connection

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"
)

var (
	headerPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
	// reservedHeaders are headers an api_key credential may not set: the
	// transport's own.
	reservedHeaders = []string{"host", "content-length", "content-type", "accept", "connection", "transfer-encoding",
		"mcp-session-id", "mcp-protocol-version", "last-event-id", "cookie", "upgrade", "te", "trailer"}
)

// Credential is a connection's auth_credential: bearer_token {token},
// api_key {key, header}, oauth {access_token}. It is a secret: it is
// stored sealed and never returned, logged nor put in an event.
type Credential struct {
	Token       string
	Key         string
	Header      string
	AccessToken string
}

// String hides the credential.
func (Credential) String() string { return redacted }

// GoString hides the credential.
func (Credential) GoString() string { return redacted }

// LogValue hides the credential.
func (Credential) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON hides the credential: seal it through a type of your own.
func (Credential) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// CheckCredential checks c (nil: omitted) against auth type t and returns
// it normalized. An oauth credential may be omitted: the connection then
// uses the organization's OAuth authorization of its provider.
func CheckCredential(t AuthType, c *Credential) (Credential, error) {
	const field = "auth_credential"
	if c == nil {
		if t == AuthNone || t == AuthOAuth {
			return Credential{}, nil
		}
		return Credential{}, missing(field)
	}
	only := func(name, v string, others ...string) (string, error) {
		for _, o := range others {
			if o != "" {
				return "", invalid(field, "holds a field "+string(t)+" does not take")
			}
		}
		if len(v) > MaxSecret {
			return "", invalid(field+"."+name, fmt.Sprintf("at most %d bytes", MaxSecret))
		}
		return strings.TrimSpace(v), nil
	}
	var out Credential
	var err error
	switch t {
	case AuthNone:
		if *c != (Credential{}) {
			return Credential{}, invalid(field, "auth_type none takes no credential")
		}
	case AuthBearer:
		if out.Token, err = only("token", c.Token, c.Key, c.Header, c.AccessToken); err == nil && out.Token == "" {
			err = missing(field + ".token")
		}
	case AuthOAuth:
		out.AccessToken, err = only("access_token", c.AccessToken, c.Token, c.Key, c.Header)
	case AuthAPIKey:
		if out.Key, err = only("key", c.Key, c.Token, c.AccessToken); err == nil && out.Key == "" {
			err = missing(field + ".key")
		}
		out.Header = strings.TrimSpace(c.Header)
		if out.Header == "" {
			out.Header = DefaultKeyHeader
		}
		if err == nil && (!headerPattern.MatchString(out.Header) || reserved(out.Header)) {
			err = invalid(field+".header", "not a header name a credential may set")
		}
	}
	return out, err
}

func reserved(header string) bool {
	for _, h := range reservedHeaders {
		if strings.EqualFold(h, header) {
			return true
		}
	}
	return false
}

// Headers are the HTTP headers that carry c to a server of auth type t.
func (c Credential) Headers(t AuthType) map[string]string {
	switch {
	case t == AuthBearer && c.Token != "":
		return map[string]string{"Authorization": "Bearer " + c.Token}
	case t == AuthOAuth && c.AccessToken != "":
		return map[string]string{"Authorization": "Bearer " + c.AccessToken}
	case t == AuthAPIKey && c.Key != "":
		return map[string]string{c.Header: c.Key}
	}
	return map[string]string{}
}

// Access is how the gateway reaches a connection's server: its URL, its
// transport and the headers that carry its credential (secrets: String
// and LogValue hide the headers' values).
type Access struct {
	ServerURL string
	Transport string
	Header    map[string]string
}

// String hides the header values.
func (a Access) String() string {
	names := make([]string, 0, len(a.Header))
	for k := range a.Header {
		names = append(names, k)
	}
	return fmt.Sprintf("%s (%s, headers %v)", a.ServerURL, a.Transport, names)
}

// LogValue hides the header values.
func (a Access) LogValue() slog.Value { return slog.StringValue(a.String()) }
