// Package oauth is the OAuth 2.1 side of MCP connections (spec B, POST
// /api/auth/mcp/initiate and GET /api/auth/mcp/callback): the providers
// configured by the environment (FromEnv), the authorization URL with PKCE
// (S256) and a sealed state that carries the whole flow (state.go), and the
// code exchange at the provider's token endpoint through the outbound
// client. It implements commands.McpOAuth.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"svc/domain/connection"
)

// CallbackPath is where providers send the browser back, under the
// service's base URL.
const CallbackPath = "/api/auth/mcp/callback"

// Client starts and finishes authorizations with the configured providers.
// It is safe for concurrent use.
type Client struct {
	providers map[string]Provider
	names     []string
	sealer    Sealer
	http      *http.Client
	redirect  string
	now       func() time.Time
}

// New returns a client over providers; states are sealed with sealer, token
// requests go through httpClient (the outbound client), and the redirect
// URI is baseURL + CallbackPath.
func New(providers []Provider, sealer Sealer, httpClient *http.Client, baseURL string) *Client {
	if sealer == nil || httpClient == nil {
		panic("oauth: nil sealer or HTTP client")
	}
	c := &Client{providers: map[string]Provider{}, sealer: sealer, http: httpClient,
		redirect: strings.TrimRight(baseURL, "/") + CallbackPath, now: time.Now}
	for _, p := range providers {
		c.providers[p.Name] = p
		c.names = append(c.names, p.Name)
	}
	slices.Sort(c.names)
	return c
}

// Providers lists the configured providers' names, sorted.
func (c *Client) Providers() []string { return slices.Clone(c.names) }

// RedirectURL is the redirect URI sent to providers (register it with them).
func (c *Client) RedirectURL() string { return c.redirect }

// config is the provider's oauth2 configuration for mode; ok is false when
// the provider does not offer mode.
func (c *Client) config(p Provider, mode connection.PermissionMode) (*oauth2.Config, bool) {
	scopes := p.ScopesRead
	if mode == connection.ReadWrite {
		if len(p.ScopesReadWrite) == 0 {
			return nil, false
		}
		scopes = p.ScopesReadWrite
	}
	// A confidential client authenticates with HTTP Basic
	// (client_secret_basic, which OAuth 2.1 servers must support); a
	// public one sends its client_id in the body, PKCE being its proof.
	style := oauth2.AuthStyleInHeader
	if p.ClientSecret == "" {
		style = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: c.redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL, AuthStyle: style}}, true
}

// provider returns the provider named name (case-insensitive).
func (c *Client) provider(name string) (Provider, error) {
	p, ok := c.providers[strings.ToLower(name)]
	if !ok {
		return p, connection.ErrUnknownProvider
	}
	return p, nil
}

// AuthorizationURL starts an authorization of g: a fresh PKCE verifier and
// nonce, sealed with g into the state, expiring after
// connection.StateLifetime. connection.ErrUnknownProvider for a provider
// not configured, connection.ErrModeUnavailable for a mode it does not
// offer.
func (c *Client) AuthorizationURL(g connection.Grant) (string, error) {
	p, err := c.provider(g.Provider)
	if err != nil {
		return "", err
	}
	conf, ok := c.config(p, g.Mode)
	if !ok {
		return "", connection.ErrModeUnavailable
	}
	g.Provider = p.Name
	f := connection.Flow{Grant: g, Nonce: newNonce(), ExpiresAt: c.now().Add(connection.StateLifetime), Verifier: oauth2.GenerateVerifier()}
	return conf.AuthCodeURL(sealState(c.sealer, f), oauth2.S256ChallengeOption(f.Verifier)), nil
}

// OpenState opens a state of AuthorizationURL: connection.ErrInvalidState
// when it is not one (forged, altered, another key), connection.
// ErrStateExpired when it is too old. Whether it was used already is the
// caller's to check (its nonce).
func (c *Client) OpenState(state string) (connection.Flow, error) {
	return openState(c.sealer, state, c.now())
}

// Exchange trades code for the provider's token, proving the flow with
// its PKCE verifier. The token's scopes are those the provider granted, or
// the requested ones when its answer names none. Errors never quote the
// provider's answer beyond its status and error code.
func (c *Client) Exchange(ctx context.Context, f connection.Flow, code string) (connection.Token, error) {
	p, err := c.provider(f.Provider)
	if err != nil {
		return connection.Token{}, err // configuration changed since initiate
	}
	conf, ok := c.config(p, f.Mode)
	if !ok {
		return connection.Token{}, connection.ErrModeUnavailable
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, c.http), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return connection.Token{}, exchangeError(p.Name, err)
	}
	out := connection.Token{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.Type(), Expiry: tok.Expiry,
		Scopes: conf.Scopes}
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		out.Scopes = strings.Fields(s)
	}
	out.Scopes = slices.Clone(out.Scopes)
	return out, nil
}

// exchangeError describes a failed exchange without the provider's body
// (it could echo what was sent).
func exchangeError(provider string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		code := re.ErrorCode
		if code == "" {
			code = "no error code"
		}
		return fmt.Errorf("oauth: %s token endpoint answered %d (%s)", provider, status, code)
	}
	return fmt.Errorf("oauth: %s token exchange: %w", provider, err)
}
