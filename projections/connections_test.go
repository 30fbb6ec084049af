package projections_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net/netip"
	"testing"
	"time"

	"svc/adapters/secrets"
	"svc/commands"
	"svc/domain/connection"
	"svc/projections"
)

// servers answers every test: public, a server offering resources.
type servers struct{}

func (servers) CheckURL(string) error { return nil }
func (servers) Resolve(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}
func (servers) Initialize(context.Context, connection.Access) (connection.Capabilities, error) {
	return connection.Capabilities{ProtocolVersion: "2025-06-18", Server: connection.ServerInfo{Name: "docs", Version: "1"}, Resources: true}, nil
}
func (servers) Blocked(error) bool { return false }

// populateConnections gives org connections through the commands: one
// at org scope tested and renamed, one of workspace wsID revoked, an
// oauth one on an authorization whose token has expired. It returns
// their ids.
func populateConnections(t *testing.T, org, wsID string) (tested, revoked, oauth string) {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, _ := secrets.NewBox(key)
	create := func(s connection.Spec, c *connection.Credential) string {
		res, err := commands.NewCreateConnectionHandler(repos, box, servers{}).Handle(ctx, commands.CreateConnection{OrgID: org, Actor: "key:k", Spec: s, Credential: c})
		if err != nil {
			t.Fatal(err)
		}
		return res.ConnectionID
	}
	tested = create(connection.Spec{DisplayName: "docs", Scope: connection.ScopeOrg, ServerURL: "https://mcp.notion.com/mcp", AuthType: connection.AuthBearer},
		&connection.Credential{Token: "t"})
	if _, err := commands.NewTestConnectionHandler(repos, box, servers{}).Handle(ctx, commands.TestConnection{OrgID: org, ConnectionID: tested}); err != nil {
		t.Fatal(err)
	}
	label := "Team docs"
	if _, err := commands.NewUpdateConnectionHandler(repos, box).Handle(ctx, commands.UpdateConnection{OrgID: org, ConnectionID: tested,
		Change: connection.Change{Label: &label}}); err != nil {
		t.Fatal(err)
	}
	revoked = create(connection.Spec{DisplayName: "gone", Scope: connection.ScopeWorkspace, WorkspaceID: wsID, ServerURL: "https://gone.example.com",
		AuthType: connection.AuthNone}, nil)
	if _, err := commands.NewDeleteConnectionHandler(repos).Handle(ctx, commands.DeleteConnection{OrgID: org, WorkspaceID: wsID, ConnectionID: revoked}); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	appendData(t, org, connection.Stream(connection.ID(org, "github")), connection.Authorized{OrgID: org, Provider: "github",
		PermissionMode: connection.Read, Scopes: []string{"repo"}, ExpiresAt: &past, AuthorizedBy: "key:k"})
	oauth = create(connection.Spec{DisplayName: "gh", Scope: connection.ScopeOrg, ServerURL: "https://api.githubcopilot.com/mcp/", AuthType: connection.AuthOAuth}, nil)
	return tested, revoked, oauth
}

func TestConnectionsReadModel(t *testing.T) {
	ps := []projections.Projection{projections.Connections{}}
	r := newRunner(t, ps)
	o := signupOrg(t)
	tested, revoked, oauth := populateConnections(t, o.OrgID, o.WorkspaceID)
	catchUp(t, r)
	ctx := context.Background()
	q := projections.NewQueries(store, commands.NewRepositories(store).Workflows, nil, quiet)
	rows, err := q.Connections(ctx, o.OrgID, o.WorkspaceID)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows %v", len(rows), err)
	}
	byID := map[string]projections.ConnectionRow{}
	for _, c := range rows {
		byID[c.ID] = c
	}
	c := byID[tested]
	if c.Status != connection.StatusActive || c.Label != "Team docs" || c.Provider != "notion" || c.Capabilities == nil || !c.Capabilities.Resources ||
		c.LastTestedAt == nil || !c.TokenValid || c.WorkspaceID != "" || c.Scope != "org" || c.UpdatedAt.Before(c.CreatedAt) {
		t.Fatalf("tested %+v", c)
	}
	if c := byID[revoked]; c.Status != connection.StatusRevoked || c.WorkspaceID != o.WorkspaceID || c.Capabilities != nil || c.LastTestedAt != nil {
		t.Fatalf("revoked %+v", c)
	}
	if c := byID[oauth]; c.TokenValid || c.Status != connection.StatusPending || c.AuthType != "oauth" {
		t.Fatalf("oauth on an expired token %+v", c)
	}
	// another workspace sees the org-scoped ones; another org none
	if rows, _ := q.Connections(ctx, o.OrgID, "00000000-0000-4000-8000-000000000000"); len(rows) != 2 {
		t.Fatalf("another workspace sees %d", len(rows))
	}
	if _, err := q.Connection(ctx, "00000000-0000-4000-8000-000000000000", o.WorkspaceID, tested); !errors.Is(err, projections.ErrNotFound) {
		t.Fatalf("another org: %v", err)
	}
	// a new authorization that does not expire makes the token valid again
	appendData(t, o.OrgID, connection.Stream(connection.ID(o.OrgID, "github")), connection.Authorized{OrgID: o.OrgID, Provider: "github",
		PermissionMode: connection.Read, Scopes: []string{}, AuthorizedBy: "key:k"})
	catchUp(t, r)
	if c, err := q.Connection(ctx, o.OrgID, o.WorkspaceID, oauth); err != nil || !c.TokenValid {
		t.Fatalf("after a new authorization %+v %v", c, err)
	}
}

func signupOrg(t *testing.T) commands.OrganizationCreated {
	t.Helper()
	res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.CreateOrganization{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
