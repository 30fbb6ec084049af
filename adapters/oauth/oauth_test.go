package oauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"svc/adapters/secrets"
	"svc/domain/connection"
)

func box(t *testing.T, b byte) *secrets.Box {
	t.Helper()
	bx, err := secrets.NewBox(bytes.Repeat([]byte{b}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return bx
}

func testFlow(now time.Time) connection.Flow {
	return connection.Flow{Grant: connection.Grant{OrgID: "org-1", WorkspaceID: "ws-1", Actor: "key:k-1", Provider: "acme", Mode: connection.ReadWrite},
		Nonce: newNonce(), ExpiresAt: now.Add(connection.StateLifetime).Truncate(time.Second), Verifier: oauth2.GenerateVerifier()}
}

func TestStateRoundTrip(t *testing.T) {
	bx, now := box(t, 1), time.Now()
	f := testFlow(now)
	s := sealState(bx, f)
	if url.QueryEscape(s) != s || len(s) > maxState {
		t.Fatalf("state %q is not URL-safe or too long", s)
	}
	for _, secret := range []string{f.Verifier, f.OrgID, f.Actor, f.Nonce} {
		if strings.Contains(s, secret) {
			t.Fatalf("state shows %q in clear", secret)
		}
	}
	got, err := openState(bx, s, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Grant != f.Grant || got.Nonce != f.Nonce || got.Verifier != f.Verifier || !got.ExpiresAt.Equal(f.ExpiresAt) {
		t.Fatalf("opened %+v, sealed %+v", got, f)
	}
	if sealState(bx, f) == s {
		t.Fatal("two seals of one flow alike")
	}
}

func TestStateRefused(t *testing.T) {
	bx, now := box(t, 1), time.Now()
	f := testFlow(now)
	s := sealState(bx, f)
	raw, _ := base64.RawURLEncoding.DecodeString(s)
	tampered := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(b)
	}
	payload := func(p statePayload) string {
		b, _ := json.Marshal(p)
		return bx.SealURL(statePurpose, b)
	}
	good := statePayload{Version: 1, Nonce: "n", OrgID: "o", Actor: "a", Provider: "acme", Mode: "read", ExpiresAt: now.Add(time.Minute).Unix(), Verifier: "v"}
	noNonce, badMode, v2 := good, good, good
	noNonce.Nonce, badMode.Mode, v2.Version = "", "admin", 2
	for name, state := range map[string]string{
		"empty":            "",
		"garbage":          "not-a-state",
		"too long":         strings.Repeat("a", maxState+1),
		"first byte":       tampered(0),
		"middle byte":      tampered(len(raw) / 2),
		"last byte":        tampered(len(raw) - 1),
		"truncated":        s[:len(s)-4],
		"other key":        sealState(box(t, 2), f),
		"other purpose":    bx.SealURL("svc/other", []byte(`{}`)),
		"stored secret":    bx.Seal([]byte("x")),
		"missing nonce":    payload(noNonce),
		"unknown mode":     payload(badMode),
		"unknown version":  payload(v2),
		"not json":         bx.SealURL(statePurpose, []byte("hello")),
		"forged unsealed":  base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"n":"n","o":"o","p":"acme","m":"read","e":9999999999,"x":"v"}`)),
		"padding appended": s + "==",
	} {
		if _, err := openState(bx, state, now); !errors.Is(err, connection.ErrInvalidState) {
			t.Errorf("%s: %v, want ErrInvalidState", name, err)
		}
	}
	if _, err := openState(bx, payload(good), now); err != nil {
		t.Fatalf("good payload: %v", err)
	}
}

func TestStateExpiry(t *testing.T) {
	bx, now := box(t, 1), time.Now()
	f := testFlow(now)
	s := sealState(bx, f)
	if _, err := openState(bx, s, f.ExpiresAt.Add(-time.Second)); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	for _, at := range []time.Time{f.ExpiresAt, f.ExpiresAt.Add(time.Hour)} {
		if _, err := openState(bx, s, at); !errors.Is(err, connection.ErrStateExpired) {
			t.Fatalf("at %v: %v, want ErrStateExpired", at, err)
		}
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	base := map[string]string{
		"SVC_OAUTH_PROVIDERS":                 " Acme , my-tool ",
		"SVC_OAUTH_ACME_CLIENT_ID":            "cid",
		"SVC_OAUTH_ACME_CLIENT_SECRET":        "csecret",
		"SVC_OAUTH_ACME_AUTH_URL":             "https://acme.example/authorize?audience=mcp",
		"SVC_OAUTH_ACME_TOKEN_URL":            "https://acme.example/token",
		"SVC_OAUTH_ACME_SCOPES_READ":          "read:a  read:b",
		"SVC_OAUTH_ACME_SCOPES_READ_WRITE":    "read:a write:a",
		"SVC_OAUTH_MY_TOOL_CLIENT_ID":         "tool",
		"SVC_OAUTH_MY_TOOL_AUTH_URL":          "https://tool.example/a",
		"SVC_OAUTH_MY_TOOL_TOKEN_URL":         "https://tool.example/t",
		"SVC_OAUTH_MY_TOOL_SCOPES_READ":       "r",
		"SVC_OAUTH_UNLISTED_CLIENT_ID":        "ignored",
		"SVC_OAUTH_MY_TOOL_SCOPES_READ_WRITE": "",
	}
	ps, err := FromEnv(env(base), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Name != "acme" || ps[1].Name != "my-tool" || ps[0].ClientSecret != "csecret" || ps[1].ClientSecret != "" ||
		strings.Join(ps[0].ScopesRead, ",") != "read:a,read:b" || len(ps[0].ScopesReadWrite) != 2 || ps[1].ScopesReadWrite != nil {
		t.Fatalf("%+v", ps)
	}
	if ps, err := FromEnv(env(nil), false); err != nil || len(ps) != 0 {
		t.Fatalf("unset: %v %v", ps, err)
	}

	for name, c := range map[string]struct {
		set  map[string]string
		want string
	}{
		"bad name":         {map[string]string{"SVC_OAUTH_PROVIDERS": "acme,9lives"}, `"9lives" is not a provider name`},
		"shared variables": {map[string]string{"SVC_OAUTH_PROVIDERS": "acme,my-tool,my_tool"}, "share the variables SVC_OAUTH_MY_TOOL_*"},
		"no client id":     {map[string]string{"SVC_OAUTH_ACME_CLIENT_ID": ""}, "SVC_OAUTH_ACME_CLIENT_ID is required"},
		"no auth url":      {map[string]string{"SVC_OAUTH_ACME_AUTH_URL": ""}, "SVC_OAUTH_ACME_AUTH_URL is required"},
		"http token url":   {map[string]string{"SVC_OAUTH_ACME_TOKEN_URL": "http://acme.example/token"}, "SVC_OAUTH_ACME_TOKEN_URL: want an https URL"},
		"relative url":     {map[string]string{"SVC_OAUTH_ACME_AUTH_URL": "/authorize"}, "SVC_OAUTH_ACME_AUTH_URL: want an absolute https URL"},
		"userinfo":         {map[string]string{"SVC_OAUTH_ACME_TOKEN_URL": "https://u:p@acme.example/t"}, "credentials in the URL"},
		"no read scopes":   {map[string]string{"SVC_OAUTH_MY_TOOL_SCOPES_READ": "  "}, "SVC_OAUTH_MY_TOOL_SCOPES_READ is required"},
	} {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range c.set {
			m[k] = v
		}
		_, err := FromEnv(env(m), false)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "csecret") {
			t.Errorf("%s: the error shows the client secret", name)
		}
	}
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	m["SVC_OAUTH_ACME_TOKEN_URL"] = "http://127.0.0.1:9/token"
	if _, err := FromEnv(env(m), true); err != nil {
		t.Fatalf("http allowed: %v", err)
	}
}

// fakeProvider is a token endpoint that checks the PKCE verifier against
// the challenge of the authorization URL the test read.
type fakeProvider struct {
	challenge string
	form      url.Values
	user, pw  string
}

func (p *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	p.form = r.PostForm
	p.user, p.pw, _ = r.BasicAuth()
	w.Header().Set("Content-Type", "application/json")
	if oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != p.challenge || r.PostForm.Get("code") != "the-code" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"echo the-code"}`))
		return
	}
	_, _ = w.Write([]byte(`{"access_token":"at-1","refresh_token":"rt-1","token_type":"Bearer","expires_in":3600,"scope":"read:a write:a"}`))
}

func TestAuthorizeAndExchange(t *testing.T) {
	fp := &fakeProvider{}
	ts := httptest.NewServer(fp)
	defer ts.Close()
	bx := box(t, 3)
	c := New([]Provider{
		{Name: "acme", ClientID: "cid", ClientSecret: "cs", AuthURL: "https://acme.example/authorize?audience=mcp", TokenURL: ts.URL + "/token",
			ScopesRead: []string{"read:a"}, ScopesReadWrite: []string{"read:a", "write:a"}},
		{Name: "pub", ClientID: "pubid", AuthURL: "https://pub.example/authorize", TokenURL: ts.URL + "/token", ScopesRead: []string{"r"}},
	}, bx, ts.Client(), "https://svc.example/")
	if got := strings.Join(c.Providers(), ","); got != "acme,pub" {
		t.Fatalf("providers %q", got)
	}
	g := connection.Grant{OrgID: "o", WorkspaceID: "w", Actor: "key:k", Provider: "ACME", Mode: connection.ReadWrite}
	if _, err := c.AuthorizationURL(connection.Grant{Provider: "nope", Mode: connection.Read}); !errors.Is(err, connection.ErrUnknownProvider) {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := c.AuthorizationURL(connection.Grant{Provider: "pub", Mode: connection.ReadWrite}); !errors.Is(err, connection.ErrModeUnavailable) {
		t.Fatalf("read_write of a read-only provider: %v", err)
	}
	raw, err := c.AuthorizationURL(g)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(raw)
	q := u.Query()
	if u.Host != "acme.example" || q.Get("audience") != "mcp" || q.Get("client_id") != "cid" || q.Get("response_type") != "code" ||
		q.Get("redirect_uri") != "https://svc.example/api/auth/mcp/callback" || q.Get("scope") != "read:a write:a" ||
		q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_secret") != "" {
		t.Fatalf("authorization URL %s", raw)
	}
	f, err := c.OpenState(q.Get("state"))
	if err != nil || f.Provider != "acme" || f.OrgID != "o" || f.Mode != connection.ReadWrite ||
		time.Until(f.ExpiresAt) > connection.StateLifetime || time.Until(f.ExpiresAt) < connection.StateLifetime-time.Minute {
		t.Fatalf("state %+v %v", f, err)
	}
	fp.challenge = q.Get("code_challenge")
	tok, err := c.Exchange(context.Background(), f, "the-code")
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "at-1" || tok.RefreshToken != "rt-1" || time.Until(tok.Expiry) < 59*time.Minute ||
		strings.Join(tok.Scopes, " ") != "read:a write:a" {
		t.Fatalf("token %#v", []any{tok.AccessToken, tok.RefreshToken, tok.Expiry, tok.Scopes})
	}
	if fp.user != "cid" || fp.pw != "cs" || fp.form.Get("client_secret") != "" || fp.form.Get("grant_type") != "authorization_code" ||
		fp.form.Get("redirect_uri") != "https://svc.example/api/auth/mcp/callback" {
		t.Fatalf("token request: basic %q/%q form %v", fp.user, fp.pw, fp.form)
	}

	// a wrong verifier: the provider's refusal, without its body
	f.Verifier = oauth2.GenerateVerifier()
	_, err = c.Exchange(context.Background(), f, "the-code")
	if err == nil || !strings.Contains(err.Error(), "400 (invalid_grant)") || strings.Contains(err.Error(), "the-code") {
		t.Fatalf("wrong verifier: %v", err)
	}

	// a public client: client_id in the body, no Basic auth; without a
	// scope in the answer, the requested scopes
	var form url.Values
	var basic bool
	pub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		form = r.PostForm
		_, _, basic = r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"at-2","token_type":"bearer"}`))
	}))
	defer pub.Close()
	c.providers["pub"] = Provider{Name: "pub", ClientID: "pubid", AuthURL: "https://pub.example/authorize", TokenURL: pub.URL, ScopesRead: []string{"r"}}
	raw, _ = c.AuthorizationURL(connection.Grant{OrgID: "o", Actor: "key:k", Provider: "pub", Mode: connection.Read})
	u, _ = url.Parse(raw)
	pf, err := c.OpenState(u.Query().Get("state"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err = c.Exchange(context.Background(), pf, "c")
	if err != nil || tok.AccessToken != "at-2" || !tok.Expiry.IsZero() || strings.Join(tok.Scopes, " ") != "r" {
		t.Fatalf("public client: %v %v", tok.Scopes, err)
	}
	if basic || form.Get("client_id") != "pubid" || form.Get("client_secret") != "" ||
		oauth2.S256ChallengeFromVerifier(form.Get("code_verifier")) != u.Query().Get("code_challenge") {
		t.Fatalf("public token request: basic %v form %v", basic, form)
	}
}
