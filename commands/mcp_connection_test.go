package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"svc/commands"
	"svc/domain/connection"
)

// fakeOAuth is the OAuth port with states kept in memory.
type fakeOAuth struct {
	mu        sync.Mutex
	flows     map[string]connection.Flow
	exchanges atomic.Int32
}

func (f *fakeOAuth) Providers() []string { return []string{"acme"} }

func (f *fakeOAuth) AuthorizationURL(g connection.Grant) (string, error) {
	if g.Provider != "acme" {
		return "", connection.ErrUnknownProvider
	}
	if g.Mode == connection.ReadWrite {
		return "", connection.ErrModeUnavailable
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	state := uuid.NewString()
	f.flows[state] = connection.Flow{Grant: g, Nonce: uuid.NewString(), ExpiresAt: time.Now().Add(connection.StateLifetime), Verifier: "v"}
	return "https://acme.example/authorize?state=" + state, nil
}

func (f *fakeOAuth) OpenState(state string) (connection.Flow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.flows[state]
	if !ok {
		return fl, connection.ErrInvalidState
	}
	return fl, nil
}

func (f *fakeOAuth) Exchange(_ context.Context, fl connection.Flow, code string) (connection.Token, error) {
	f.exchanges.Add(1)
	time.Sleep(20 * time.Millisecond) // a provider takes a moment
	if code != "good" {
		return connection.Token{}, errors.New("token endpoint answered 400 (invalid_grant)")
	}
	return connection.Token{AccessToken: "at-" + fl.Nonce, RefreshToken: "rt", Expiry: time.Now().Add(time.Hour), Scopes: []string{"read"}}, nil
}

// reversibleSealer "seals" by prefixing, so the test can read the row.
type reversibleSealer struct{}

func (reversibleSealer) Seal(p []byte) string { return "sealed:" + strings.ToUpper(string(p)) }

func initiate(t *testing.T, h commands.Handler[commands.InitiateMcpConnection, commands.McpConnectionInitiated], orgID string) string {
	t.Helper()
	res, err := h.Handle(context.Background(), commands.InitiateMcpConnection{OrgID: orgID, Actor: "key:k1", Provider: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, state, _ := strings.Cut(res.AuthorizationURL, "state=")
	return state
}

func TestInitiateMcpConnectionRefusals(t *testing.T) {
	h := commands.NewInitiateMcpConnectionHandler(&fakeOAuth{flows: map[string]connection.Flow{}})
	ctx := context.Background()
	var unavailable *commands.ProviderUnavailableError
	if _, err := h.Handle(ctx, commands.InitiateMcpConnection{Provider: "nope"}); !errors.As(err, &unavailable) ||
		!errors.Is(err, connection.ErrUnknownProvider) || unavailable.Available[0] != "acme" {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := h.Handle(ctx, commands.InitiateMcpConnection{Provider: "acme", PermissionMode: "read_write"}); !errors.Is(err, connection.ErrModeUnavailable) {
		t.Fatalf("mode unavailable: %v", err)
	}
	if _, err := h.Handle(ctx, commands.InitiateMcpConnection{Provider: "acme", PermissionMode: "write"}); !errors.Is(err, connection.ErrInvalidPermissionMode) {
		t.Fatalf("bad mode: %v", err)
	}
	if _, err := commands.NewInitiateMcpConnectionHandler(nil).Handle(ctx, commands.InitiateMcpConnection{Provider: "acme"}); !errors.Is(err, connection.ErrUnknownProvider) {
		t.Fatalf("no providers: %v", err)
	}
}

func TestAuthorizeMcpConnection(t *testing.T) {
	ctx := context.Background()
	o := signup(t, "")
	oauth := &fakeOAuth{flows: map[string]connection.Flow{}}
	repos := commands.NewRepositories(store)
	start := commands.NewInitiateMcpConnectionHandler(oauth)
	h := commands.NewAuthorizeMcpConnectionHandler(repos, oauth, reversibleSealer{})

	// many callbacks of one state at once: one exchange, one authorization
	state := initiate(t, start, o.OrgID)
	var wg sync.WaitGroup
	var ok, used atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.Handle(ctx, commands.AuthorizeMcpConnection{State: state, Code: "good"})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, connection.ErrStateUsed):
				used.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || used.Load() != 7 || oauth.exchanges.Load() != 1 {
		t.Fatalf("%d authorized, %d refused as used, %d exchanges", ok.Load(), used.Load(), oauth.exchanges.Load())
	}
	var sealed string
	var updated time.Time
	if err := db.Pool.QueryRow(ctx, "SELECT sealed, updated_at FROM mcp_tokens WHERE org_id = $1 AND provider = 'acme'", o.OrgID).Scan(&sealed, &updated); err != nil {
		t.Fatal(err)
	}
	fl, _ := oauth.OpenState(state)
	if !strings.HasPrefix(sealed, "sealed:") || !strings.Contains(sealed, strings.ToUpper("at-"+fl.Nonce)) {
		t.Fatalf("row %q is not the sealed token", sealed)
	}
	events := mustLoad(t, connection.Stream(connection.ID(o.OrgID, "acme")))
	if len(events) != 1 || events[0].Type != connection.EventAuthorized || events[0].Metadata.OrgID != o.OrgID || events[0].Metadata.Actor != "key:k1" {
		t.Fatalf("events %+v", events)
	}
	var a connection.Authorized
	if err := events[0].Decode(&a); err != nil || a.AuthorizedBy != "key:k1" || len(a.Scopes) != 1 || a.ExpiresAt == nil || a.PermissionMode != connection.Read {
		t.Fatalf("event %+v %v", a, err)
	}
	if raw := string(events[0].Data); strings.Contains(raw, "at-") || strings.Contains(raw, `"rt"`) || strings.Contains(raw, "token") {
		t.Fatalf("event data %s", raw)
	}

	// a second authorization replaces the row and appends at the next version
	res, err := h.Handle(ctx, commands.AuthorizeMcpConnection{State: initiate(t, start, o.OrgID), Code: "good"})
	if err != nil || res.Provider != "acme" || res.OrgID != o.OrgID || res.PermissionMode != connection.Read {
		t.Fatalf("%+v %v", res, err)
	}
	var rows int
	var again time.Time
	if err := db.Pool.QueryRow(ctx, "SELECT count(*), max(updated_at) FROM mcp_tokens WHERE org_id = $1", o.OrgID).Scan(&rows, &again); err != nil || rows != 1 || !again.After(updated) {
		t.Fatalf("%d rows, updated %v after %v: %v", rows, again, updated, err)
	}
	if n := len(mustLoad(t, connection.Stream(connection.ID(o.OrgID, "acme")))); n != 2 {
		t.Fatalf("%d events", n)
	}

	// failures at the provider spend the state and say why
	var failed *commands.McpAuthorizationError
	for _, c := range []struct {
		cmd    commands.AuthorizeMcpConnection
		reason string
	}{
		{commands.AuthorizeMcpConnection{ProviderError: "access_denied"}, "access_denied"},
		{commands.AuthorizeMcpConnection{ProviderError: "<script>"}, commands.ReasonProviderError},
		{commands.AuthorizeMcpConnection{}, commands.ReasonMissingCode},
		{commands.AuthorizeMcpConnection{Code: "bad"}, commands.ReasonExchangeFailed},
	} {
		c.cmd.State = initiate(t, start, o.OrgID)
		res, err := h.Handle(ctx, c.cmd)
		if !errors.As(err, &failed) || failed.Reason != c.reason || res.Provider != "acme" {
			t.Fatalf("%+v: %+v %v", c.cmd, res, err)
		}
		c.cmd.Code = "good"
		if _, err := h.Handle(ctx, c.cmd); !errors.Is(err, connection.ErrStateUsed) {
			t.Fatalf("state reused after a failure: %v", err)
		}
	}
	if _, err := h.Handle(ctx, commands.AuthorizeMcpConnection{State: "forged", Code: "good"}); !errors.Is(err, connection.ErrInvalidState) {
		t.Fatalf("forged: %v", err)
	}
	if n := len(mustLoad(t, connection.Stream(connection.ID(o.OrgID, "acme")))); n != 2 {
		t.Fatalf("%d events after failures", n)
	}
}
