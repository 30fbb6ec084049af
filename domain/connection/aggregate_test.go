package connection_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"svc/domain/connection"
	"svc/eventstore/event"
)

const (
	org = "00000000-0000-4000-8000-000000000001"
	wsA = "00000000-0000-4000-8000-00000000000a"
	wsB = "00000000-0000-4000-8000-00000000000b"
)

// fold applies data to g as its next events.
func fold(t *testing.T, g *connection.Gateway, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := g.Apply(event.Recorded(connection.GatewayStream(org), g.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

func spec(t *testing.T, name string, sc connection.Scope, ws, url string) connection.Spec {
	t.Helper()
	s, err := connection.Spec{DisplayName: name, Scope: sc, WorkspaceID: ws, ServerURL: url, AuthType: connection.AuthNone}.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t *testing.T, g *connection.Gateway, id string, s connection.Spec) connection.Created {
	t.Helper()
	c, err := g.Create(id, "key:k", s)
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	fold(t, g, c)
	return c
}

func TestCreateRules(t *testing.T) {
	g := connection.NewGateway(org)
	c := create(t, g, "c1", spec(t, "docs", connection.ScopeOrg, "", "https://mcp.example.com/mcp"))
	if c.OrgID != org || c.Label != "docs" || c.Transport != connection.TransportStreamableHTTP || c.Provider != connection.SelfHosted ||
		c.PermissionMode != connection.Read || c.OAuthLinked {
		t.Fatalf("created %+v", c)
	}
	// the same server at org scope again, in another spelling: 409 with the id
	var dup *connection.DuplicateError
	_, err := g.Create("c2", "key:k", spec(t, "other", connection.ScopeOrg, "", "HTTPS://MCP.example.com:443/mcp/"))
	if !errors.As(err, &dup) || !errors.Is(err, connection.ErrDuplicate) || dup.ExistingID != "c1" {
		t.Fatalf("duplicate at org scope: %v", err)
	}
	// once per workspace is allowed, twice in one workspace is not
	create(t, g, "c3", spec(t, "docs-a", connection.ScopeWorkspace, wsA, "https://mcp.example.com/mcp"))
	create(t, g, "c4", spec(t, "docs-b", connection.ScopeWorkspace, wsB, "https://mcp.example.com/mcp"))
	if _, err := g.Create("c5", "key:k", spec(t, "docs-a2", connection.ScopeWorkspace, wsA, "https://mcp.example.com/mcp")); !errors.As(err, &dup) || dup.ExistingID != "c3" {
		t.Fatalf("duplicate in a workspace: %v", err)
	}
	// display names: unique among connections visible together
	if _, err := g.Create("c6", "key:k", spec(t, "docs", connection.ScopeWorkspace, wsA, "https://x.example.com")); !errors.Is(err, connection.ErrDisplayNameTaken) {
		t.Fatalf("a workspace name shadowing an org one: %v", err)
	}
	if _, err := g.Create("c7", "key:k", spec(t, "docs-a", connection.ScopeOrg, "", "https://y.example.com")); !errors.Is(err, connection.ErrDisplayNameTaken) {
		t.Fatalf("an org name shadowing a workspace one: %v", err)
	}
	create(t, g, "c8", spec(t, "docs-a", connection.ScopeWorkspace, wsB, "https://z.example.com")) // another workspace's name: fine
	// a revoked connection frees its server and its name
	r, err := g.Revoke("c1", wsA, "key:k")
	if err != nil || r == nil {
		t.Fatalf("revoke: %v %v", r, err)
	}
	fold(t, g, *r)
	create(t, g, "c9", spec(t, "docs", connection.ScopeOrg, "", "https://mcp.example.com/mcp"))
	if g.Live() != 4 {
		t.Fatalf("live %d", g.Live())
	}
}

func TestLimit(t *testing.T) {
	g := connection.NewGateway(org)
	for i := range connection.MaxPerOrg {
		create(t, g, fmt.Sprint("c", i), spec(t, fmt.Sprint("n", i), connection.ScopeOrg, "", fmt.Sprintf("https://s%d.example.com", i)))
	}
	if _, err := g.Create("x", "key:k", spec(t, "x", connection.ScopeOrg, "", "https://x.example.com")); !errors.Is(err, connection.ErrLimit) {
		t.Fatalf("11th: %v", err)
	}
	r, _ := g.Revoke("c0", "", "key:k")
	fold(t, g, *r)
	create(t, g, "x", spec(t, "x", connection.ScopeOrg, "", "https://x.example.com"))
}

func TestVisibility(t *testing.T) {
	g := connection.NewGateway(org)
	create(t, g, "o", spec(t, "o", connection.ScopeOrg, "", "https://o.example.com"))
	create(t, g, "a", spec(t, "a", connection.ScopeWorkspace, wsA, "https://a.example.com"))
	if v := g.Visible(wsB); len(v) != 1 || v[0].ID != "o" {
		t.Fatalf("visible to B: %+v", v)
	}
	if v := g.Visible(wsA); len(v) != 2 {
		t.Fatalf("visible to A: %+v", v)
	}
	if _, err := g.Get("a", wsB); !errors.Is(err, connection.ErrNotFound) {
		t.Fatalf("A's connection from B: %v", err)
	}
	for _, f := range []func() error{
		func() error { _, err := g.Update("a", wsB, "k", connection.Change{}, ""); return err },
		func() error { _, err := g.RecordTest("a", wsB, connection.Outcome{OK: true}); return err },
		func() error { _, err := g.Revoke("a", wsB, "k"); return err },
		func() error { _, err := g.Revoke("nope", wsA, "k"); return err },
	} {
		if err := f(); !errors.Is(err, connection.ErrNotFound) {
			t.Errorf("foreign or unknown: %v", err)
		}
	}
}

func TestUpdate(t *testing.T) {
	g := connection.NewGateway(org)
	create(t, g, "a", spec(t, "a", connection.ScopeOrg, "", "https://a.example.com"))
	create(t, g, "b", spec(t, "b", connection.ScopeOrg, "", "https://b.example.com"))
	name, label, rw := "a2", " Alpha ", connection.ReadWrite
	u, err := g.Update("a", wsA, "key:k", connection.Change{DisplayName: &name, Label: &label, Mode: &rw}, "")
	if err != nil || u == nil || u.DisplayName != "a2" || u.Label != "Alpha" || u.PermissionMode != rw || u.CredentialReplaced {
		t.Fatalf("update %+v %v", u, err)
	}
	fold(t, g, *u)
	if u, err := g.Update("a", wsA, "key:k", connection.Change{DisplayName: &name, Mode: &rw}, ""); u != nil || err != nil {
		t.Fatalf("a change that changes nothing: %+v %v", u, err)
	}
	taken := "b"
	if _, err := g.Update("a", wsA, "key:k", connection.Change{DisplayName: &taken}, ""); !errors.Is(err, connection.ErrDisplayNameTaken) {
		t.Fatalf("taken: %v", err)
	}
	bad := "Bad Name"
	var fe *connection.FieldError
	if _, err := g.Update("a", wsA, "key:k", connection.Change{DisplayName: &bad}, ""); !errors.As(err, &fe) || fe.Field != "display_name" {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := g.Update("a", wsA, "key:k", connection.Change{Credential: &connection.Credential{Token: "t"}}, ""); !errors.As(err, &fe) {
		t.Fatalf("a credential for auth none: %v", err)
	}
	// after the first tool call the display_name is locked
	fold(t, g, connection.ToolCalled{ConnectionID: "a", OrgID: org, Tool: "search"})
	other := "a3"
	if _, err := g.Update("a", wsA, "key:k", connection.Change{DisplayName: &other}, ""); !errors.Is(err, connection.ErrDisplayNameLocked) {
		t.Fatalf("locked: %v", err)
	}
	// revoked: gone for changes and tests
	r, _ := g.Revoke("a", "", "key:k")
	fold(t, g, *r)
	if _, err := g.Update("a", wsA, "key:k", connection.Change{Label: &label}, ""); !errors.Is(err, connection.ErrNotFound) {
		t.Fatalf("update revoked: %v", err)
	}
	if r, err := g.Revoke("a", "", "key:k"); r != nil || err != nil {
		t.Fatalf("second revoke: %v %v", r, err)
	}
}

func TestOAuthReauth(t *testing.T) {
	g := connection.NewGateway(org)
	s, err := connection.Spec{DisplayName: "gh", Scope: connection.ScopeOrg, ServerURL: "https://api.githubcopilot.com/mcp/", AuthType: connection.AuthOAuth}.Check(nil)
	if err != nil || s.Provider != "github" {
		t.Fatalf("%+v %v", s, err)
	}
	c := create(t, g, "gh", s)
	if !c.OAuthLinked {
		t.Fatal("an oauth connection without a token uses the authorization")
	}
	rw := connection.ReadWrite
	var re *connection.ReauthError
	if _, err := g.Update("gh", "", "k", connection.Change{Mode: &rw}, connection.Read); !errors.As(err, &re) || re.Provider != "github" {
		t.Fatalf("read_write on a read authorization: %v", err)
	}
	if u, err := g.Update("gh", "", "k", connection.Change{Mode: &rw}, connection.ReadWrite); err != nil || u == nil {
		t.Fatalf("read_write on a read_write authorization: %v", err)
	}
	// a token of its own: no authorization to widen
	u, err := g.Update("gh", "", "k", connection.Change{Mode: &rw, Credential: &connection.Credential{AccessToken: "tok"}}, "")
	if err != nil || u == nil || u.OAuthLinked || !u.CredentialReplaced {
		t.Fatalf("own token: %+v %v", u, err)
	}
}

func TestRecordTest(t *testing.T) {
	g := connection.NewGateway(org)
	create(t, g, "a", spec(t, "a", connection.ScopeOrg, "", "https://a.example.com"))
	d, err := g.RecordTest("a", "", connection.Outcome{OK: true, ResolvedIPs: []string{"93.184.216.34"},
		Capabilities: connection.Capabilities{Resources: true, Tools: true}})
	tested, ok := d.(connection.Tested)
	if err != nil || !ok || strings.Join(tested.Capabilities.Operations, ",") != "resources/list,resources/read" {
		t.Fatalf("%+v %v", d, err)
	}
	fold(t, g, d)
	if s, _ := g.Get("a", ""); s.Status != connection.StatusActive {
		t.Fatalf("status %s", s.Status)
	}
	d, _ = g.RecordTest("a", "", connection.Outcome{Reason: connection.ReasonBlocked, Error: "private"})
	if f, ok := d.(connection.TestFailed); !ok || f.ResolvedIPs == nil {
		t.Fatalf("%+v", d)
	}
	fold(t, g, d)
	if s, _ := g.Get("a", ""); s.Status != connection.StatusError {
		t.Fatalf("status %s", s.Status)
	}
	clone := g.Clone()
	r, _ := g.Revoke("a", "", "k")
	fold(t, g, *r)
	if s, _ := clone.Get("a", ""); s.Status != connection.StatusError {
		t.Fatal("a clone shares state")
	}
	if _, err := g.RecordTest("a", "", connection.Outcome{OK: true}); !errors.Is(err, connection.ErrNotFound) {
		t.Fatalf("test revoked: %v", err)
	}
}
