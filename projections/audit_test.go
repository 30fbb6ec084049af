package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/eventstore/event"
	"svc/projections"
)

// plainSealer "seals" by prefixing: enough for the log to hold a sealed
// token the audit log must not copy.
type plainSealer struct{}

func (plainSealer) Seal(p []byte) string { return "sealed:" + string(p) }

// auditOrg is an organization with a little of every audited event.
type auditOrg struct {
	org, ws, second, key, wsKey string
	tokens                      []string // raw secrets handed out: keys and invite tokens
}

func newAuditOrg(t *testing.T) auditOrg {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: fmt.Sprintf("audit-%d@example.com", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	a := auditOrg{org: res.OrgID, ws: res.WorkspaceID, key: res.KeyID, tokens: []string{res.Key.Raw}}
	as := event.WithMetadata(ctx, event.Metadata{OrgID: a.org, Actor: "key:" + a.key, RequestID: "req_audit"})
	k, err := commands.NewCreateWorkspaceKeyHandler(repos).Handle(as, commands.CreateWorkspaceKey{OrgID: a.org, WorkspaceID: a.ws,
		Label: "ci", Role: apikey.Admin, CreatedBy: "key:" + a.key})
	if err != nil {
		t.Fatal(err)
	}
	a.wsKey, a.tokens = k.KeyID, append(a.tokens, k.Key.Raw)
	must(commands.NewRevokeWorkspaceKeyHandler(repos).Handle(as, commands.RevokeWorkspaceKey{OrgID: a.org, WorkspaceID: a.ws, KeyID: a.wsKey}))
	uses := 3
	inv, err := commands.NewCreateInviteHandler(repos, plainSealer{}, nil, "https://example.com").Handle(as,
		commands.CreateInvite{OrgID: a.org, WorkspaceID: a.ws, Kind: invite.Link, Role: apikey.Member, MaxUses: &uses, CreatedBy: "key:" + a.key})
	if err != nil {
		t.Fatal(err)
	}
	a.tokens = append(a.tokens, inv.Token)
	must(commands.NewRevokeInviteHandler(repos).Handle(as, commands.RevokeInvite{OrgID: a.org, WorkspaceID: a.ws, InviteID: inv.InviteID}))
	must(commands.NewRenameWorkspaceHandler(repos).Handle(as, commands.RenameWorkspace{OrgID: a.org, WorkspaceID: a.ws, Name: "Main"}))
	op := event.WithMetadata(ctx, event.Metadata{Actor: "operator"})
	must(commands.NewChangeTierHandler(repos).Handle(op, commands.ChangeTier{OrgID: a.org, Tier: org.Team, Source: "operator"}))
	must(commands.NewGrantCreditsHandler(repos).Handle(op, commands.GrantCredits{OrgID: a.org, Amount: 700, Reason: credit.ReasonOperator, Note: "goodwill"}))
	second, err := commands.NewCreateWorkspaceHandler(repos).Handle(as, commands.CreateWorkspace{OrgID: a.org, Name: "Second"})
	if err != nil {
		t.Fatal(err)
	}
	a.second = second.WorkspaceID
	// the signup key, revoked through the organization's route: its
	// ApiKeyRevoked alone says which key, not which workspace
	must(commands.NewRevokeKeyHandler(repos).Handle(as, commands.RevokeKey{OrgID: a.org, KeyID: a.key}))
	return a
}

func auditQueries() *projections.Queries {
	return projections.NewQueries(store, commands.NewRepositories(store).Workflows, nil, quiet)
}

func auditActions(rows []projections.AuditRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Action
	}
	return out
}

// TestAuditLog: a workspace's log, newest first, with its actors,
// resources and metadata; the organization's events in its default
// workspace only; paging and filters.
func TestAuditLog(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Audit{}}
	r := newRunner(t, ps, projections.WithBatch(3))
	a := newAuditOrg(t)
	newAuditOrg(t) // another organization's rows never show
	catchUp(t, r)
	ctx := context.Background()
	q := auditQueries()
	all, err := q.AuditLog(ctx, projections.AuditFilter{OrgID: a.org, WorkspaceID: a.ws, WithOrg: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api_key.revoked", "credits.granted", "organization.tier_changed", "workspace.renamed", "invite.revoked", "invite.created",
		"api_key.revoked", "api_key.created", "credits.granted", "api_key.created", "workspace.created", "organization.created"}
	if got := auditActions(all.Events); !reflect.DeepEqual(got, want) || all.Next != nil {
		t.Fatalf("default workspace's log %v (next %v), want %v", got, all.Next, want)
	}
	byAction := func(action string, nth int) projections.AuditRow {
		for _, e := range all.Events {
			if e.Action == action {
				if nth == 0 {
					return e
				}
				nth--
			}
		}
		t.Fatalf("no %s", action)
		return projections.AuditRow{}
	}
	meta := func(e projections.AuditRow) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(e.Metadata, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	created := byAction("api_key.created", 0)
	if created.ResourceType != "api_key" || created.ResourceID != a.wsKey || created.Actor != (projections.Actor{Type: "api_key", ID: a.key}) {
		t.Errorf("api_key.created %+v %s", created, created.Metadata)
	}
	if m := meta(created); m["label"] != "ci" || m["role"] != "admin" || !strings.HasPrefix(fmt.Sprint(m["key_prefix"]), apikey.LivePrefix) || len(m) != 3 {
		t.Errorf("api_key.created metadata %v", m)
	}
	if legacy := byAction("api_key.revoked", 0); legacy.ResourceID != a.key {
		t.Errorf("the signup key's revocation %+v", legacy)
	}
	if ren := meta(byAction("workspace.renamed", 0)); ren["from"] != "Default" || ren["to"] != "Main" {
		t.Errorf("renamed %v", ren)
	}
	tier := byAction("organization.tier_changed", 0)
	if tier.Actor != (projections.Actor{Type: "system", ID: "operator"}) || tier.ResourceType != "organization" || tier.ResourceID != a.org ||
		!reflect.DeepEqual(meta(tier), map[string]any{"from": "free", "to": "team", "source": "operator"}) {
		t.Errorf("tier change %+v %s", tier, tier.Metadata)
	}
	if g := meta(byAction("credits.granted", 0)); g["amount"] != 700.0 || g["reason"] != credit.ReasonOperator || g["note"] != "goodwill" {
		t.Errorf("grant %v", g)
	}
	if inv := meta(byAction("invite.created", 0)); inv["kind"] != "link" || inv["role"] != "member" || inv["max_uses"] != 3.0 || inv["expires_at"] == nil {
		t.Errorf("invite %v", inv)
	}

	// the second workspace: its own events, not the organization's
	second, err := q.AuditLog(ctx, projections.AuditFilter{OrgID: a.org, WorkspaceID: a.second, Limit: 100})
	if err != nil || !reflect.DeepEqual(auditActions(second.Events), []string{"workspace.created"}) {
		t.Fatalf("second workspace's log %v %v", auditActions(second.Events), err)
	}

	// pages of every size cover the log once, in order
	for limit := 1; limit <= len(want); limit++ {
		var got []string
		f := projections.AuditFilter{OrgID: a.org, WorkspaceID: a.ws, WithOrg: true, Limit: limit}
		for {
			page, err := q.AuditLog(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Events {
				got = append(got, e.ID)
			}
			if page.Next == nil {
				break
			}
			c, err := projections.DecodeAuditCursor(page.Next.Encode())
			if err != nil || c != *page.Next {
				t.Fatalf("cursor round trip %v %v", c, err)
			}
			f.After = &c
		}
		var ids []string
		for _, e := range all.Events {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(got, ids) {
			t.Fatalf("limit %d: pages %v, want %v", limit, got, ids)
		}
	}
	for _, bad := range []string{"!!", "bm9wZQ", projections.AuditCursor{}.Encode()[:2]} {
		if _, err := projections.DecodeAuditCursor(bad); err == nil {
			t.Errorf("DecodeAuditCursor(%q) accepted", bad)
		}
	}

	// filters
	for _, c := range []struct {
		f    projections.AuditFilter
		want []string
	}{
		{projections.AuditFilter{Action: "api_key.revoked"}, []string{"api_key.revoked", "api_key.revoked"}},
		{projections.AuditFilter{ResourceType: "invite"}, []string{"invite.revoked", "invite.created"}},
		{projections.AuditFilter{ActorID: "operator"}, []string{"credits.granted", "organization.tier_changed"}},
		{projections.AuditFilter{ActorID: a.key, ResourceType: "api_key"}, []string{"api_key.revoked", "api_key.revoked", "api_key.created", "api_key.created"}}, // the signup key made itself
	} {
		c.f.OrgID, c.f.WorkspaceID, c.f.WithOrg, c.f.Limit = a.org, a.ws, true, 100
		page, err := q.AuditLog(ctx, c.f)
		if err != nil || !reflect.DeepEqual(auditActions(page.Events), c.want) {
			t.Errorf("filter %+v: %v %v, want %v", c.f, auditActions(page.Events), err, c.want)
		}
	}
}

// TestAuditRebuildEqualsLiveAndHoldsNoSecret: the live model, fed in
// batches of 3, equals a rebuild in batches of 2; and no row holds a hash,
// a token or a sealed token from the log, nor a field named like one.
func TestAuditRebuildEqualsLiveAndHoldsNoSecret(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Audit{}}
	r := newRunner(t, ps, projections.WithBatch(3))
	var tokens []string
	for range 3 {
		a := newAuditOrg(t)
		tokens = append(tokens, a.tokens...)
		catchUp(t, r)
	}
	live := dump(t, ps)
	if len(live["audit_events"]) != 3*13 || len(live["audit_keys"]) != 3*2 {
		t.Fatalf("live sizes: %d events, %d keys", len(live["audit_events"]), len(live["audit_keys"]))
	}
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(context.Background(), ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt audit log differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}

	// every secret the log holds: the fields that carry one, by name
	secretFields := []string{"hash", "token_hash", "token_sealed", "verification_hash", "password", "token", "secret"}
	rows, err := db.Pool.Query(context.Background(), "SELECT data FROM events")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var data map[string]any
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		for _, f := range secretFields {
			if s, ok := data[f].(string); ok && s != "" {
				tokens = append(tokens, s)
			}
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(tokens) < 3*(3+4) {
		t.Fatalf("only %d secrets found in the log", len(tokens))
	}
	for _, row := range live["audit_events"] {
		text, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tokens {
			if strings.Contains(string(text), s) {
				t.Errorf("row %s holds the secret %q", text, s)
			}
		}
		for k := range row["metadata"].(map[string]any) {
			if slices.Contains(secretFields, k) || strings.Contains(k, "hash") || strings.Contains(k, "sealed") {
				t.Errorf("row %s has the field %q", text, k)
			}
		}
	}
}
