package blackbox

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/adapters/secrets"
	"svc/domain/apikey"
	"svc/eventstore"
	"svc/eventstore/event"
)

// fakeOAuthProvider is an OAuth 2.1 token endpoint: a code the test
// registered (with the code_challenge of the authorization URL) is
// exchanged once, for a token, when the request proves the challenge with
// its code_verifier and authenticates the client.
type fakeOAuthProvider struct {
	mu        sync.Mutex
	codes     map[string]string // code -> code_challenge
	exchanges int
	failures  []string
}

const (
	fakeClientID     = "svc-test-client"
	fakeClientSecret = "svc-test-client-secret"
)

func (p *fakeOAuthProvider) register(code, challenge string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[code] = challenge
}

func (p *fakeOAuthProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	refuse := func(why string) {
		p.failures = append(p.failures, why)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
	}
	if r.URL.Path != "/token" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	_ = r.ParseForm()
	user, pw, _ := r.BasicAuth()
	f := r.PostForm
	challenge, known := p.codes[f.Get("code")]
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case user != fakeClientID || pw != fakeClientSecret:
		refuse("client authentication")
		return
	case f.Get("grant_type") != "authorization_code":
		refuse("grant_type " + f.Get("grant_type"))
		return
	case !known:
		refuse("unknown or used code")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != challenge:
		refuse("code_verifier does not match the challenge")
		return
	}
	delete(p.codes, f.Get("code"))
	p.exchanges++
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "fake-access-" + f.Get("code"), "refresh_token": "fake-refresh-" + f.Get("code"),
		"token_type": "Bearer", "expires_in": 3600, "scope": "repo:read issues:read"})
}

// noRedirect is a client that reports redirects instead of following them.
var noRedirect = &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// mcpCallback calls the callback as the provider's redirect would.
func mcpCallback(t *testing.T, s *server, q url.Values) *http.Response {
	t.Helper()
	res, err := noRedirect.Get(s.base + "/api/auth/mcp/callback?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// wantConnectionsRedirect requires a 302 to the connections page with query want.
func wantConnectionsRedirect(t *testing.T, res *http.Response, want url.Values) {
	t.Helper()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("callback: status %d, want 302", res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Path != "/dashboard/connections" || loc.Query().Encode() != want.Encode() {
		t.Fatalf("callback redirects to %q, want /dashboard/connections?%s", res.Header.Get("Location"), want.Encode())
	}
	if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("callback headers %v", res.Header)
	}
}

// keyWithRole appends a key of role for a's workspace, as an operator
// tool would, and waits until it authenticates.
func keyWithRole(t *testing.T, s *server, a account, role apikey.Role) string {
	t.Helper()
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	secret, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	if _, err := eventstore.New(pool).Append(ctx, apikey.Stream(id), event.NewStream, event.New{Metadata: event.Metadata{OrgID: a.OrgID},
		Data: apikey.Created{KeyID: id, OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix,
			Label: string(role), Role: role, CreatedBy: "blackbox"}}); err != nil {
		t.Fatal(err)
	}
	s.poll(t, req{Path: "/api/keys/verify", Key: secret.Raw}, 30*time.Second, func(res *response) bool { return res.Status == http.StatusOK },
		func(res *response) string {
			return "the " + string(role) + " key does not authenticate: " + string(res.Raw)
		})
	return secret.Raw
}

func TestMcpOAuth(t *testing.T) {
	t.Parallel()
	fake := &fakeOAuthProvider{codes: map[string]string{}}
	provider := httptest.NewServer(fake)
	defer provider.Close()
	key := randomHex(32)
	s := startServer(t, map[string]string{
		"SVC_SECRET_KEY":                   key,
		"SVC_ALLOW_PRIVATE_URLS":           "true",
		"SVC_OAUTH_PROVIDERS":              "acme,readonly",
		"SVC_OAUTH_ACME_CLIENT_ID":         fakeClientID,
		"SVC_OAUTH_ACME_CLIENT_SECRET":     fakeClientSecret,
		"SVC_OAUTH_ACME_AUTH_URL":          provider.URL + "/authorize",
		"SVC_OAUTH_ACME_TOKEN_URL":         provider.URL + "/token",
		"SVC_OAUTH_ACME_SCOPES_READ":       "repo:read issues:read",
		"SVC_OAUTH_ACME_SCOPES_READ_WRITE": "repo:read repo:write issues:write",
		"SVC_OAUTH_READONLY_CLIENT_ID":     "ro",
		"SVC_OAUTH_READONLY_AUTH_URL":      provider.URL + "/authorize",
		"SVC_OAUTH_READONLY_TOKEN_URL":     provider.URL + "/token",
		"SVC_OAUTH_READONLY_SCOPES_READ":   "read",
	})
	a := s.signup(t, nil)
	initiate := func(key string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/auth/mcp/initiate", Key: key, Body: body})
	}

	// authentication and role floor
	wantError(t, initiate("", map[string]any{"provider": "acme"}), http.StatusUnauthorized, "unauthorized")
	wantError(t, initiate("svc_live_"+strings.Repeat("0", 48), map[string]any{"provider": "acme"}), http.StatusUnauthorized, "unauthorized")
	for _, role := range []apikey.Role{apikey.Viewer, apikey.Member} {
		res := initiate(keyWithRole(t, s, a, role), map[string]any{"provider": "acme"})
		wantError(t, res, http.StatusForbidden, "forbidden")
	}

	// the body
	for _, c := range []struct {
		body        any
		code, field string
	}{
		{nil, "missing_field", "provider"},
		{map[string]any{}, "missing_field", "provider"},
		{map[string]any{"provider": "  "}, "missing_field", "provider"},
		{map[string]any{"provider": "nope"}, "invalid_body", "provider"},
		{map[string]any{"provider": "acme", "permission_mode": "admin"}, "invalid_body", "permission_mode"},
		{map[string]any{"provider": "acme", "permission_mode": ""}, "invalid_body", "permission_mode"},
		{map[string]any{"provider": "readonly", "permission_mode": "read_write"}, "invalid_body", "permission_mode"},
	} {
		res := initiate(a.Key, c.body)
		wantError(t, res, http.StatusBadRequest, c.code)
		if d := object(t, object(t, res.Body, "error"), "details"); d["field"] != c.field {
			t.Errorf("%v: details %v, want field %s", c.body, d, c.field)
		}
	}
	res := initiate(a.Key, map[string]any{"provider": "nope"})
	if d := object(t, object(t, res.Body, "error"), "details"); len(d["available"].([]any)) != 2 {
		t.Errorf("unknown provider: details %v", d)
	}

	// initiate: the provider's authorization URL, with PKCE and a state
	start := func(mode string) (state, challenge string) {
		t.Helper()
		body := map[string]any{"provider": "acme"}
		if mode != "" {
			body["permission_mode"] = mode
		}
		res := initiate(a.Key, body)
		wantStatus(t, res, http.StatusOK)
		if len(res.Body) != 1 || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("initiate answered %s (Cache-Control %q), want only authorization_url", res.Raw, res.Header.Get("Cache-Control"))
		}
		u, err := url.Parse(str(t, res.Body, "authorization_url"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		scope := "repo:read issues:read"
		if mode == "read_write" {
			scope = "repo:read repo:write issues:write"
		}
		if u.Scheme+"://"+u.Host+u.Path != provider.URL+"/authorize" || q.Get("response_type") != "code" || q.Get("client_id") != fakeClientID ||
			q.Get("redirect_uri") != s.base+"/api/auth/mcp/callback" || q.Get("code_challenge_method") != "S256" ||
			len(q.Get("code_challenge")) != 43 || q.Get("state") == "" || q.Get("scope") != scope || q.Has("client_secret") {
			t.Fatalf("authorization URL %s", u)
		}
		if strings.Contains(u.String(), a.OrgID) || strings.Contains(u.String(), a.Key) {
			t.Fatalf("the authorization URL shows the org or key in clear: %s", u)
		}
		return q.Get("state"), q.Get("code_challenge")
	}
	state, challenge := start("")
	fake.register("code-1", challenge)

	// the callback stores the token and redirects back
	wantConnectionsRedirect(t, mcpCallback(t, s, url.Values{"state": {state}, "code": {"code-1"}}),
		url.Values{"provider": {"acme"}, "status": {"connected"}})
	if fake.exchanges != 1 || len(fake.failures) != 0 {
		t.Fatalf("provider: %d exchanges, refused %v", fake.exchanges, fake.failures)
	}

	// a state is used once
	replay := s.do(t, req{Path: "/api/auth/mcp/callback?" + url.Values{"state": {state}, "code": {"code-1"}}.Encode()})
	wantError(t, replay, http.StatusBadRequest, "invalid_state")
	if fake.exchanges != 1 {
		t.Fatal("a replayed callback reached the provider")
	}
	// a tampered, forged or missing state is refused
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	raw[len(raw)/2] ^= 1
	for name, q := range map[string]url.Values{
		"tampered": {"state": {base64.RawURLEncoding.EncodeToString(raw)}, "code": {"code-2"}},
		"forged": {"state": {base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"n":"x","o":"` + a.OrgID + `","p":"acme","m":"read","e":9999999999,"x":"v"}`))},
			"code": {"code-2"}},
	} {
		res := s.do(t, req{Path: "/api/auth/mcp/callback?" + q.Encode()})
		wantError(t, res, http.StatusBadRequest, "invalid_state")
		if name == "tampered" && object(t, object(t, res.Body, "error"), "details")["reason"] != "invalid" {
			t.Errorf("tampered: %s", res.Raw)
		}
	}
	wantError(t, s.do(t, req{Path: "/api/auth/mcp/callback?code=code-2"}), http.StatusBadRequest, "missing_field")

	// the provider refused: back to the page with the reason, state spent
	state2, _ := start("read_write")
	wantConnectionsRedirect(t, mcpCallback(t, s, url.Values{"state": {state2}, "error": {"access_denied"}, "error_description": {"<b>no</b>"}}),
		url.Values{"provider": {"acme"}, "status": {"error"}, "reason": {"access_denied"}})
	wantError(t, s.do(t, req{Path: "/api/auth/mcp/callback?" + url.Values{"state": {state2}, "code": {"x"}}.Encode()}), http.StatusBadRequest, "invalid_state")
	// a code the provider does not know
	state3, _ := start("read_write")
	wantConnectionsRedirect(t, mcpCallback(t, s, url.Values{"state": {state3}, "code": {"unknown"}}),
		url.Values{"provider": {"acme"}, "status": {"error"}, "reason": {"exchange_failed"}})

	// the token is stored sealed, and only there
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var sealed string
	if err := pool.QueryRow(ctx, "SELECT sealed FROM mcp_tokens WHERE org_id = $1 AND provider = 'acme'", a.OrgID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "fake-access") || strings.Contains(sealed, "fake-refresh") {
		t.Fatalf("mcp_tokens holds the token in clear: %s", sealed)
	}
	k, _ := hex.DecodeString(key)
	box, err := secrets.NewBox(k)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := box.Open(sealed)
	if err != nil {
		t.Fatalf("the row does not open with SVC_SECRET_KEY: %v", err)
	}
	var tok map[string]any
	if err := json.Unmarshal(plain, &tok); err != nil || tok["access_token"] != "fake-access-code-1" || tok["refresh_token"] != "fake-refresh-code-1" ||
		tok["org_id"] != a.OrgID || tok["provider"] != "acme" {
		t.Fatalf("sealed token %v %v", tok, err)
	}

	// one event, without the token
	events := orgEvents(t, s.dbURL, a.OrgID)
	if n := countEvents(events, "McpConnectionAuthorized"); n != 1 {
		t.Fatalf("%d McpConnectionAuthorized events, want 1", n)
	}
	for _, e := range events {
		if e.Type != "McpConnectionAuthorized" {
			continue
		}
		d := e.Data
		if d["org_id"] != a.OrgID || d["workspace_id"] != a.WorkspaceID || d["provider"] != "acme" || d["permission_mode"] != "read" ||
			!strings.HasPrefix(fmt.Sprint(d["authorized_by"]), "key:") || d["expires_at"] == nil ||
			fmt.Sprint(d["scopes"]) != "[repo:read issues:read]" {
			t.Errorf("event data %v", d)
		}
		if raw := jsonString(d); strings.Contains(raw, "fake-") || strings.Contains(raw, "token") {
			t.Errorf("the event carries the token: %s", raw)
		}
	}
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(line, "fake-access") || strings.Contains(line, "fake-refresh") {
			t.Errorf("the log shows the token: %s", line)
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMcpOAuthBadConfig: a provider configured wrong stops the start with
// a message naming the variable.
func TestMcpOAuthBadConfig(t *testing.T) {
	t.Parallel()
	_, err := launch(map[string]string{
		"SVC_OAUTH_PROVIDERS":          "acme",
		"SVC_OAUTH_ACME_CLIENT_SECRET": "do-not-print-me",
		"SVC_OAUTH_ACME_AUTH_URL":      "https://acme.example/authorize",
		"SVC_OAUTH_ACME_TOKEN_URL":     "https://acme.example/token",
		"SVC_OAUTH_ACME_SCOPES_READ":   "read",
	})
	if err == nil {
		t.Fatal("svc serve started without SVC_OAUTH_ACME_CLIENT_ID")
	}
	if !strings.Contains(err.Error(), "SVC_OAUTH_ACME_CLIENT_ID is required") || strings.Contains(err.Error(), "do-not-print-me") {
		t.Fatalf("start error: %v", err)
	}
}
