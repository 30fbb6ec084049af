package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Environment variables of the providers (README, "MCP OAuth providers").
// Each provider NAME listed in EnvProviders has SVC_OAUTH_<NAME>_CLIENT_ID,
// _CLIENT_SECRET (optional: a public client), _AUTH_URL, _TOKEN_URL,
// _SCOPES_READ and _SCOPES_READ_WRITE (optional: without it the provider
// offers read only), where <NAME> is the name upper-cased with '-' as '_'.
const (
	EnvProviders = "SVC_OAUTH_PROVIDERS"
	envPrefix    = "SVC_OAUTH_"
)

// ErrConfig wraps every configuration error of FromEnv.
var ErrConfig = errors.New("oauth provider configuration")

// namePattern is a provider's name: what initiate's body names and the
// callback's redirect carries.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// Provider is one OAuth 2.1 provider of MCP connections.
type Provider struct {
	Name         string
	ClientID     string
	ClientSecret string // empty for a public client (PKCE only)
	AuthURL      string
	TokenURL     string
	// ScopesRead and ScopesReadWrite are requested for each permission
	// mode; a nil ScopesReadWrite means read_write is not offered.
	ScopesRead      []string
	ScopesReadWrite []string
}

// EnvName is the infix of the provider's variables: SVC_OAUTH_<EnvName>_...
func EnvName(provider string) string {
	return strings.ToUpper(strings.ReplaceAll(provider, "-", "_"))
}

// FromEnv reads the providers of EnvProviders (comma-separated names,
// case-insensitive) with getenv; none when it is unset or empty. Endpoint
// URLs must be absolute https URLs, or http when allowHTTP (local testing,
// SVC_ALLOW_PRIVATE_URLS). The first problem found is an error naming the
// variable; secrets are never quoted in it.
func FromEnv(getenv func(string) string, allowHTTP bool) ([]Provider, error) {
	var out []Provider
	seen := map[string]string{}
	for _, raw := range strings.Split(getenv(EnvProviders), ",") {
		name := strings.ToLower(strings.TrimSpace(raw))
		if name == "" {
			continue
		}
		if !namePattern.MatchString(name) {
			return nil, fmt.Errorf("%w: %s: %q is not a provider name (a lowercase letter, then up to 31 letters, digits, '_' or '-')", ErrConfig, EnvProviders, raw)
		}
		env := EnvName(name)
		if prev, dup := seen[env]; dup {
			return nil, fmt.Errorf("%w: %s: %q and %q share the variables %s%s_*", ErrConfig, EnvProviders, prev, name, envPrefix, env)
		}
		seen[env] = name
		p, err := providerFromEnv(getenv, name, allowHTTP)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func providerFromEnv(getenv func(string) string, name string, allowHTTP bool) (Provider, error) {
	v := func(suffix string) (string, string) {
		key := envPrefix + EnvName(name) + "_" + suffix
		return key, strings.TrimSpace(getenv(key))
	}
	p := Provider{Name: name}
	required := func(suffix string, to *string) error {
		key, val := v(suffix)
		if val == "" {
			return fmt.Errorf("%w: %s is required for provider %q (listed in %s)", ErrConfig, key, name, EnvProviders)
		}
		*to = val
		return nil
	}
	if err := required("CLIENT_ID", &p.ClientID); err != nil {
		return p, err
	}
	_, p.ClientSecret = v("CLIENT_SECRET")
	for _, u := range []struct {
		suffix string
		to     *string
	}{{"AUTH_URL", &p.AuthURL}, {"TOKEN_URL", &p.TokenURL}} {
		if err := required(u.suffix, u.to); err != nil {
			return p, err
		}
		key, _ := v(u.suffix)
		if err := checkEndpoint(*u.to, allowHTTP); err != nil {
			return p, fmt.Errorf("%w: %s: %v", ErrConfig, key, err)
		}
	}
	key, read := v("SCOPES_READ")
	if p.ScopesRead = strings.Fields(read); len(p.ScopesRead) == 0 {
		return p, fmt.Errorf("%w: %s is required for provider %q: the space-separated scopes of read access", ErrConfig, key, name)
	}
	if _, rw := v("SCOPES_READ_WRITE"); rw != "" {
		p.ScopesReadWrite = strings.Fields(rw)
	}
	return p, nil
}

// checkEndpoint requires an absolute https URL (http when allowHTTP)
// without user information or fragment.
func checkEndpoint(raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("not a URL")
	case u.Scheme != "https" && !(allowHTTP && u.Scheme == "http"):
		if u.Scheme == "http" {
			return fmt.Errorf("want an https URL (http only with SVC_ALLOW_PRIVATE_URLS=true, for local testing)")
		}
		return fmt.Errorf("want an absolute https URL")
	case u.Host == "":
		return fmt.Errorf("want an absolute URL with a host")
	case u.User != nil:
		return fmt.Errorf("credentials in the URL are not accepted; use _CLIENT_ID and _CLIENT_SECRET")
	case u.Fragment != "":
		return fmt.Errorf("a URL with a fragment is not accepted")
	}
	return nil
}
