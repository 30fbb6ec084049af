package connection_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"svc/domain/connection"
)

func TestSpecCheck(t *testing.T) {
	ok := connection.Spec{Label: "Team Docs!", Scope: connection.ScopeWorkspace, WorkspaceID: wsA, ServerURL: " https://mcp.notion.com/mcp ",
		AuthType: connection.AuthBearer}
	s, err := ok.Check(&connection.Credential{Token: " t "})
	if err != nil || s.DisplayName != "team-docs" || s.Label != "Team Docs!" || s.Provider != "notion" || s.ServerURL != "https://mcp.notion.com/mcp" ||
		s.Credential.Token != "t" || s.Mode != connection.Read {
		t.Fatalf("%+v %v", s, err)
	}
	for name, c := range map[string]struct {
		mut     func(*connection.Spec)
		cred    *connection.Credential
		field   string
		missing bool
	}{
		"no name":          {func(s *connection.Spec) { s.Label = "" }, &connection.Credential{Token: "t"}, "display_name", true},
		"bad name":         {func(s *connection.Spec) { s.DisplayName = "Docs" }, &connection.Credential{Token: "t"}, "display_name", false},
		"long name":        {func(s *connection.Spec) { s.DisplayName = strings.Repeat("a", 33) }, &connection.Credential{Token: "t"}, "display_name", false},
		"label of symbols": {func(s *connection.Spec) { s.Label = "!!" }, &connection.Credential{Token: "t"}, "label", false},
		"no scope":         {func(s *connection.Spec) { s.Scope = "" }, &connection.Credential{Token: "t"}, "scope", true},
		"bad scope":        {func(s *connection.Spec) { s.Scope = "team" }, &connection.Credential{Token: "t"}, "scope", false},
		"no workspace":     {func(s *connection.Spec) { s.WorkspaceID = "" }, &connection.Credential{Token: "t"}, "workspace_id", true},
		"bad workspace":    {func(s *connection.Spec) { s.WorkspaceID = "w1" }, &connection.Credential{Token: "t"}, "workspace_id", false},
		"org with ws":      {func(s *connection.Spec) { s.Scope = connection.ScopeOrg }, &connection.Credential{Token: "t"}, "workspace_id", false},
		"http":             {func(s *connection.Spec) { s.ServerURL = "http://mcp.example.com" }, &connection.Credential{Token: "t"}, "server_url", false},
		"no url":           {func(s *connection.Spec) { s.ServerURL = "" }, &connection.Credential{Token: "t"}, "server_url", true},
		"userinfo":         {func(s *connection.Spec) { s.ServerURL = "https://u:p@mcp.example.com" }, &connection.Credential{Token: "t"}, "server_url", false},
		"relative":         {func(s *connection.Spec) { s.ServerURL = "/mcp" }, &connection.Credential{Token: "t"}, "server_url", false},
		"transport":        {func(s *connection.Spec) { s.Transport = "ws" }, &connection.Credential{Token: "t"}, "transport", false},
		"no auth":          {func(s *connection.Spec) { s.AuthType = "" }, nil, "auth_type", true},
		"bad auth":         {func(s *connection.Spec) { s.AuthType = "basic" }, nil, "auth_type", false},
		"no credential":    {func(*connection.Spec) {}, nil, "auth_credential", true},
		"empty token":      {func(*connection.Spec) {}, &connection.Credential{Token: " "}, "auth_credential.token", true},
		"wrong shape":      {func(*connection.Spec) {}, &connection.Credential{Key: "k"}, "auth_credential", false},
		"none with one":    {func(s *connection.Spec) { s.AuthType = connection.AuthNone }, &connection.Credential{Token: "t"}, "auth_credential", false},
		"reserved header":  {func(s *connection.Spec) { s.AuthType = connection.AuthAPIKey }, &connection.Credential{Key: "k", Header: "Host"}, "auth_credential.header", false},
		"bad provider":     {func(s *connection.Spec) { s.Provider = "GitHub" }, &connection.Credential{Token: "t"}, "provider", false},
		"huge token":       {func(*connection.Spec) {}, &connection.Credential{Token: strings.Repeat("t", connection.MaxSecret+1)}, "auth_credential.token", false},
	} {
		s := ok
		c.mut(&s)
		_, err := s.Check(c.cred)
		var fe *connection.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Missing != c.missing {
			t.Errorf("%s: %v, want %s (missing %v)", name, err, c.field, c.missing)
		}
	}
	// api_key defaults its header; oauth and none may omit the credential
	s, err = connection.Spec{DisplayName: "k", Scope: connection.ScopeOrg, ServerURL: "https://k.example.com", AuthType: connection.AuthAPIKey}.
		Check(&connection.Credential{Key: "secret"})
	if err != nil || s.Credential.Header != connection.DefaultKeyHeader || s.Credential.Headers(connection.AuthAPIKey)["X-API-Key"] != "secret" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, a := range []connection.AuthType{connection.AuthOAuth, connection.AuthNone} {
		if _, err := (connection.Spec{DisplayName: "k", Scope: connection.ScopeOrg, ServerURL: "https://k.example.com", AuthType: a}).Check(nil); err != nil {
			t.Errorf("%s without a credential: %v", a, err)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Team Docs": "team-docs", "  GitHub (prod) ": "github-prod", "a__b--c": "a__b--c",
		"Ünïcode only": "n-code-only", strings.Repeat("ab ", 20): "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab"} {
		if got := connection.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCredentialHidden(t *testing.T) {
	c := connection.Credential{Token: "tok-secret", Key: "key-secret", AccessToken: "at-secret"}
	var b strings.Builder
	slog.New(slog.NewJSONHandler(&b, nil)).Info("x", "credential", c)
	raw, _ := json.Marshal(map[string]any{"c": c})
	if out := fmt.Sprintf("%v %+v %#v %s", c, c, c, c) + b.String() + string(raw); strings.Contains(out, "secret") {
		t.Fatalf("credential shown: %s", out)
	}
	for _, d := range []any{connection.Created{}, connection.Updated{}, connection.Tested{}, connection.TestFailed{}, connection.Revoked{}} {
		raw, _ := json.Marshal(d)
		for _, k := range []string{"token", "\"key", "secret", "credential\""} {
			if strings.Contains(string(raw), k) {
				t.Errorf("event data %s names %q", raw, k)
			}
		}
	}
}

func TestProviders(t *testing.T) {
	seen := map[string]bool{}
	available, soon := 0, 0
	for _, p := range connection.Providers() {
		if seen[p.ID] || p.Name == "" || p.Description == "" || p.Icon == "" || p.Tier < 1 || p.Category == "" || p.CapabilitiesRead == nil || p.CapabilitiesWrite == nil {
			t.Errorf("provider %+v", p)
		}
		seen[p.ID] = true
		switch p.Status {
		case connection.ProviderAvailable:
			available++
			if p.ID != connection.SelfHosted && (p.ServerURL == "" || connection.ProviderFor(p.ServerURL) != p.ID) {
				t.Errorf("%s: its own server is not its", p.ID)
			}
		case connection.ProviderComingSoon:
			soon++
		default:
			t.Errorf("%s: status %q", p.ID, p.Status)
		}
	}
	if !seen[connection.SelfHosted] || available < 5 || soon < 2 {
		t.Fatalf("registry: %d available, %d coming soon", available, soon)
	}
	if connection.ProviderFor("https://mcp.internal.example.com/mcp") != connection.SelfHosted || connection.ProviderFor("https://API.githubcopilot.com/x") != "github" {
		t.Fatal("ProviderFor")
	}
}
