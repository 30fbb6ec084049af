package commands_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"svc/adapters/secrets"
	"svc/commands"
	"svc/domain/connection"
)

var errFakeBlocked = errors.New("address is private or reserved")

// fakeServers is the gateway's outside world: hosts ending in
// ".private.test" resolve to 10.0.0.7 (refused), others to 93.184.216.34;
// initialize answers a server offering resources, and records the
// headers it was sent.
type fakeServers struct {
	mu      sync.Mutex
	headers []map[string]string
}

func (*fakeServers) CheckURL(raw string) error {
	if strings.Contains(raw, "://10.") {
		return errFakeBlocked
	}
	return nil
}

func (*fakeServers) Resolve(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".private.test") {
		return nil, fmt.Errorf("%q: %w: 10.0.0.7 is private (RFC 1918)", host, errFakeBlocked)
	}
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

func (f *fakeServers) Initialize(_ context.Context, a connection.Access) (connection.Capabilities, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.headers = append(f.headers, a.Header)
	if strings.Contains(a.ServerURL, "down.test") {
		return connection.Capabilities{}, errors.New("connection refused")
	}
	return connection.Capabilities{ProtocolVersion: "2025-06-18", Server: connection.ServerInfo{Name: "docs", Version: "1"}, Resources: true, Tools: true}, nil
}

func (*fakeServers) Blocked(err error) bool { return errors.Is(err, errFakeBlocked) }

func (f *fakeServers) last() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[len(f.headers)-1]
}

func testBox(t *testing.T) *secrets.Box {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, err := secrets.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func orgSpec(name, url string) connection.Spec {
	return connection.Spec{DisplayName: name, Scope: connection.ScopeOrg, ServerURL: url, AuthType: connection.AuthNone}
}

// TestCreateConnectionConcurrently: creations racing on one organization's
// gateway stream. Of 16 creations of one server, one wins and the others
// name it; of 16 creations of different servers, exactly ten fit.
func TestCreateConnectionConcurrently(t *testing.T) {
	ctx := context.Background()
	h := commands.NewCreateConnectionHandler(commands.NewRepositories(store), testBox(t), &fakeServers{})
	race := func(orgID string, spec func(i int) connection.Spec) (ids []string, errs []error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				res, err := h.Handle(ctx, commands.CreateConnection{OrgID: orgID, Actor: "key:k", Spec: spec(i)})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				} else {
					ids = append(ids, res.ConnectionID)
				}
			})
		}
		wg.Wait()
		return ids, errs
	}

	same := signup(t, "")
	ids, errs := race(same.OrgID, func(i int) connection.Spec { return orgSpec(fmt.Sprint("docs-", i), "https://docs.example.com/mcp") })
	if len(ids) != 1 || len(errs) != 15 {
		t.Fatalf("%d created, %d refused, want 1 and 15: %v", len(ids), len(errs), errs)
	}
	for _, err := range errs {
		var dup *connection.DuplicateError
		if !errors.As(err, &dup) || !errors.Is(err, connection.ErrDuplicate) || dup.ExistingID != ids[0] {
			t.Fatalf("refusal %v, want a duplicate of %s", err, ids[0])
		}
	}

	many := signup(t, "")
	ids, errs = race(many.OrgID, func(i int) connection.Spec {
		return orgSpec(fmt.Sprint("s", i), fmt.Sprintf("https://s%d.example.com", i))
	})
	if len(ids) != connection.MaxPerOrg || len(errs) != 16-connection.MaxPerOrg {
		t.Fatalf("%d created, %d refused", len(ids), len(errs))
	}
	for _, err := range errs {
		if !errors.Is(err, connection.ErrLimit) {
			t.Fatalf("refusal %v, want the limit", err)
		}
	}
	g, err := commands.NewRepositories(store).Gateways.Get(ctx, many.OrgID)
	if err != nil || g.Live() != connection.MaxPerOrg || int(g.Version()) != connection.MaxPerOrg-1 {
		t.Fatalf("gateway: %d live at version %d, %v", g.Live(), g.Version(), err)
	}
}

// TestConnectionCredentialLifecycle: the credential is sealed outside the
// log, sent to the server by a test, replaced by a change and cleared by
// the deletion; no event ever holds it.
func TestConnectionCredentialLifecycle(t *testing.T) {
	ctx := context.Background()
	o := signup(t, "")
	repos := commands.NewRepositories(store)
	box, servers := testBox(t), &fakeServers{}
	spec := connection.Spec{DisplayName: "wiki", Scope: connection.ScopeWorkspace, WorkspaceID: o.WorkspaceID,
		ServerURL: "https://wiki.example.com/mcp", AuthType: connection.AuthBearer}
	res, err := commands.NewCreateConnectionHandler(repos, box, servers).Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k",
		Spec: spec, Credential: &connection.Credential{Token: "tok-first-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	sealed := func() (string, bool) {
		var s string
		err := db.Pool.QueryRow(ctx, "SELECT sealed FROM connection_credentials WHERE connection_id = $1", res.ConnectionID).Scan(&s)
		return s, err == nil
	}
	if s, ok := sealed(); !ok || strings.Contains(s, "tok-") {
		t.Fatalf("row %q (%v)", s, ok)
	}
	test := commands.NewTestConnectionHandler(repos, box, servers)
	cmd := commands.TestConnection{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, Actor: "key:k", ConnectionID: res.ConnectionID}
	out, err := test.Handle(ctx, cmd)
	if err != nil || !out.Outcome.OK || servers.last()["Authorization"] != "Bearer tok-first-secret" {
		t.Fatalf("test %+v %v, sent %v", out, err, servers.last())
	}
	// another workspace's key does not see it
	if _, err := test.Handle(ctx, commands.TestConnection{OrgID: o.OrgID, WorkspaceID: "00000000-0000-4000-8000-000000000000", ConnectionID: res.ConnectionID}); !errors.Is(err, connection.ErrNotFound) {
		t.Fatalf("another workspace: %v", err)
	}
	update := commands.NewUpdateConnectionHandler(repos, box)
	if _, err := update.Handle(ctx, commands.UpdateConnection{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, Actor: "key:k", ConnectionID: res.ConnectionID,
		Change: connection.Change{Credential: &connection.Credential{Token: "tok-second-secret"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := test.Handle(ctx, cmd); err != nil || servers.last()["Authorization"] != "Bearer tok-second-secret" {
		t.Fatalf("after the change: %v, sent %v", err, servers.last())
	}
	if _, err := commands.NewDeleteConnectionHandler(repos).Handle(ctx, commands.DeleteConnection{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID,
		Actor: "key:k", ConnectionID: res.ConnectionID}); err != nil {
		t.Fatal(err)
	}
	if _, ok := sealed(); ok {
		t.Fatal("the credential outlived the deletion")
	}
	if _, err := test.Handle(ctx, cmd); !errors.Is(err, connection.ErrNotFound) {
		t.Fatalf("test of a revoked connection: %v", err)
	}
	var leaks int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM events WHERE org_id = $1 AND data::text LIKE '%tok-%'", o.OrgID).Scan(&leaks); err != nil || leaks != 0 {
		t.Fatalf("%d events hold the token (%v)", leaks, err)
	}
	g, _ := repos.Gateways.Get(ctx, o.OrgID)
	if s, _ := g.Get(res.ConnectionID, o.WorkspaceID); s.Status != connection.StatusRevoked {
		t.Fatalf("status %s", s.Status)
	}
}

func TestTestConnectionOutcomes(t *testing.T) {
	ctx := context.Background()
	o := signup(t, "")
	repos := commands.NewRepositories(store)
	box, servers := testBox(t), &fakeServers{}
	create := commands.NewCreateConnectionHandler(repos, box, servers)
	test := commands.NewTestConnectionHandler(repos, box, servers)
	status := func(id string) string {
		g, _ := repos.Gateways.Get(ctx, o.OrgID)
		s, _ := g.Get(id, o.WorkspaceID)
		return s.Status
	}
	for _, c := range []struct {
		url, reason, status string
	}{
		{"https://mcp.private.test/mcp", connection.ReasonBlocked, connection.StatusError},
		{"https://down.test/mcp", connection.ReasonUnreachable, connection.StatusError},
		{"https://up.test/mcp", "", connection.StatusActive},
	} {
		res, err := create.Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k", Spec: orgSpec(connection.Slug(c.url[8:]), c.url)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := test.Handle(ctx, commands.TestConnection{OrgID: o.OrgID, WorkspaceID: o.WorkspaceID, ConnectionID: res.ConnectionID})
		if err != nil || out.Outcome.Reason != c.reason || status(res.ConnectionID) != c.status {
			t.Fatalf("%s: %+v %v, status %s", c.url, out, err, status(res.ConnectionID))
		}
		if c.reason == connection.ReasonBlocked && !strings.Contains(out.Outcome.Error, "10.0.0.7") {
			t.Fatalf("the refusal does not name the address: %q", out.Outcome.Error)
		}
	}
	// a literal private address is refused at creation
	_, err := create.Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k", Spec: orgSpec("ten", "https://10.1.1.1/mcp")})
	if !errors.Is(err, commands.ErrConnectionURL) {
		t.Fatalf("private literal: %v", err)
	}
}

// TestOAuthConnection: an oauth connection without a token needs the
// organization's authorization of its provider, and uses its token;
// read_write on a read authorization asks for a new one.
func TestOAuthConnection(t *testing.T) {
	ctx := context.Background()
	o := signup(t, "")
	repos := commands.NewRepositories(store)
	box, servers := testBox(t), &fakeServers{}
	create := commands.NewCreateConnectionHandler(repos, box, servers)
	spec := connection.Spec{DisplayName: "acme", Scope: connection.ScopeOrg, ServerURL: "https://mcp.acme.test/mcp", AuthType: connection.AuthOAuth, Provider: "acme"}
	if _, err := create.Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k", Spec: spec}); !errors.Is(err, commands.ErrNotAuthorized) {
		t.Fatalf("before the authorization: %v", err)
	}
	oauth := &fakeOAuth{flows: map[string]connection.Flow{}}
	state := initiate(t, commands.NewInitiateMcpConnectionHandler(oauth), o.OrgID)
	if _, err := commands.NewAuthorizeMcpConnectionHandler(repos, oauth, box).Handle(ctx, commands.AuthorizeMcpConnection{State: state, Code: "good"}); err != nil {
		t.Fatal(err)
	}
	res, err := create.Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k", Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	out, err := commands.NewTestConnectionHandler(repos, box, servers).Handle(ctx, commands.TestConnection{OrgID: o.OrgID, ConnectionID: res.ConnectionID})
	fl, _ := oauth.OpenState(state)
	if err != nil || !out.Outcome.OK || servers.last()["Authorization"] != "Bearer at-"+fl.Nonce {
		t.Fatalf("%+v %v, sent %v", out, err, servers.last())
	}
	rw := connection.ReadWrite
	var reauth *connection.ReauthError
	_, err = commands.NewUpdateConnectionHandler(repos, box).Handle(ctx, commands.UpdateConnection{OrgID: o.OrgID, ConnectionID: res.ConnectionID,
		Change: connection.Change{Mode: &rw}})
	if !errors.As(err, &reauth) || reauth.Provider != "acme" {
		t.Fatalf("read_write on a read authorization: %v", err)
	}
}

func TestCreateConnectionWorkspaceMustBeTheOrgs(t *testing.T) {
	ctx := context.Background()
	o, other := signup(t, ""), signup(t, "")
	var n atomic.Int32
	h := commands.NewCreateConnectionHandler(commands.NewRepositories(store), testBox(t), &fakeServers{})
	for _, ws := range []string{other.WorkspaceID, "00000000-0000-4000-8000-000000000000"} {
		spec := connection.Spec{DisplayName: "w", Scope: connection.ScopeWorkspace, WorkspaceID: ws, ServerURL: "https://w.example.com", AuthType: connection.AuthNone}
		if _, err := h.Handle(ctx, commands.CreateConnection{OrgID: o.OrgID, Actor: "key:k", Spec: spec}); err == nil {
			n.Add(1)
		}
	}
	if n.Load() != 0 {
		t.Fatal("a connection in a workspace of another organization")
	}
}
