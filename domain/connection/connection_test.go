package connection_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"svc/domain/connection"
	"svc/eventstore/event"
)

func TestParsePermissionMode(t *testing.T) {
	for in, want := range map[string]connection.PermissionMode{"": connection.Read, "read": connection.Read, "read_write": connection.ReadWrite} {
		if got, err := connection.ParsePermissionMode(in); err != nil || got != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"write", "READ", "read-write", " read"} {
		if _, err := connection.ParsePermissionMode(in); !errors.Is(err, connection.ErrInvalidPermissionMode) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func flow() connection.Flow {
	return connection.Flow{Grant: connection.Grant{OrgID: "o1", WorkspaceID: "w1", Actor: "key:k1", Provider: "github", Mode: connection.ReadWrite},
		Nonce: "n", ExpiresAt: time.Now().Add(time.Minute), Verifier: "v"}
}

func TestAuthorize(t *testing.T) {
	c := connection.New("")
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	a, err := c.Authorize(flow(), []string{"repo"}, exp)
	if err != nil {
		t.Fatal(err)
	}
	if a.OrgID != "o1" || a.WorkspaceID != "w1" || a.Provider != "github" || a.PermissionMode != connection.ReadWrite ||
		a.AuthorizedBy != "key:k1" || len(a.Scopes) != 1 || a.ExpiresAt == nil || !a.ExpiresAt.Equal(exp) || a.ExpiresAt.Location() != time.UTC {
		t.Fatalf("event %+v", a)
	}
	if err := c.Apply(event.Recorded(connection.Stream(connection.ID("o1", "github")), 0, time.Now(), a)); err != nil {
		t.Fatal(err)
	}
	if c.OrgID() != "o1" || c.Provider() != "github" || c.Mode() != connection.ReadWrite || c.Version() != 0 || c.Authorizations() != 1 {
		t.Fatalf("folded %+v", c)
	}
	// again, read only, no expiry: allowed; scopes never null
	f := flow()
	f.Mode = connection.Read
	a, err = c.Authorize(f, nil, time.Time{})
	if err != nil || a.ExpiresAt != nil || a.Scopes == nil {
		t.Fatalf("%+v %v", a, err)
	}
	// another org's flow on this stream
	f.OrgID = "o2"
	if _, err := c.Authorize(f, nil, time.Time{}); !errors.Is(err, connection.ErrInvalidGrant) {
		t.Fatalf("foreign flow: %v", err)
	}
	for _, bad := range []func(*connection.Flow){
		func(f *connection.Flow) { f.OrgID = "" }, func(f *connection.Flow) { f.Provider = "" },
		func(f *connection.Flow) { f.Actor = "" }, func(f *connection.Flow) { f.Mode = "admin" },
	} {
		f := flow()
		bad(&f)
		if _, err := connection.New("").Authorize(f, nil, time.Time{}); !errors.Is(err, connection.ErrInvalidGrant) {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

func TestAuthorizedHasNoToken(t *testing.T) {
	raw, err := json.Marshal(connection.Authorized{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"token", "access", "refresh", "secret", "verifier"} {
		if strings.Contains(string(raw), k) {
			t.Errorf("event data %s names %q", raw, k)
		}
	}
}

func TestTokenHidden(t *testing.T) {
	tok := connection.Token{AccessToken: "at-secret", RefreshToken: "rt-secret"}
	var b strings.Builder
	log := slog.New(slog.NewJSONHandler(&b, nil))
	log.Info("x", "token", tok)
	raw, _ := json.Marshal(map[string]any{"t": tok})
	out := fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, tok) + b.String() + string(raw)
	if strings.Contains(out, "secret") {
		t.Fatalf("token shown: %s", out)
	}
}

func TestFlowExpired(t *testing.T) {
	now := time.Now()
	f := connection.Flow{ExpiresAt: now}
	if !f.Expired(now) || f.Expired(now.Add(-time.Second)) {
		t.Fatal("Expired")
	}
}
