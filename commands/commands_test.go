package commands_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/test/pgtest"
)

var (
	db    *pgtest.DB
	store *eventstore.Store
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "commands", func(d *pgtest.DB) {
		db = d
		store = eventstore.New(d.Pool)
	})
}

func signup(t *testing.T, email string) commands.OrganizationCreated {
	t.Helper()
	res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.CreateOrganization{Email: email, ClientIP: "192.0.2.1"})
	if err != nil {
		t.Fatalf("signup: %v", err)
	}
	return res
}

func countOrgEvents(t *testing.T, orgID string) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM events WHERE org_id = $1", orgID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateOrganizationAppendsEverythingAtomically(t *testing.T) {
	ctx := context.Background()
	res := signup(t, "Owner@Example.com")
	if res.Credits != credit.SignupGrant || res.VerificationToken == "" || res.Key.Raw == "" {
		t.Fatalf("result %+v", res)
	}
	if n := countOrgEvents(t, res.OrgID); n != 7 {
		t.Fatalf("%d events for the new org, want 7 (email, org, workspace, its key attached, its slug, key, grant)", n)
	}
	o, err := org.Load(mustLoad(t, org.Stream(res.OrgID)))
	if err != nil || o.Tier() != org.Free || o.WorkspaceID() != res.WorkspaceID || o.Email() != "Owner@Example.com" {
		t.Fatalf("org %+v %v", o, err)
	}
	events := mustLoad(t, apikey.Stream(res.KeyID))
	var created apikey.Created
	if err := events[0].Decode(&created); err != nil || created.Role != apikey.Owner || created.Hash != apikey.Hash(res.Key.Raw) {
		t.Fatalf("key event %+v %v", created, err)
	}
	if events[0].Metadata.OrgID != res.OrgID || events[0].Metadata.Actor == "" {
		t.Fatalf("metadata %+v", events[0].Metadata)
	}

	// the same address, differently cased: refused, and nothing of it written
	before := countAll(t)
	_, err = commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(ctx, commands.CreateOrganization{Email: " owner@example.COM"})
	if !errors.Is(err, org.ErrDuplicateEmail) {
		t.Fatalf("duplicate email: %v", err)
	}
	if after := countAll(t); after != before {
		t.Fatalf("a refused signup wrote %d events", after-before)
	}
	if _, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(ctx, commands.CreateOrganization{Email: "not-an-email"}); !errors.Is(err, org.ErrInvalidEmail) {
		t.Fatalf("bad email: %v", err)
	}
	anon := signup(t, "")
	if anon.VerificationToken != "" {
		t.Fatal("verification token without an email")
	}
}

func countAll(t *testing.T) int {
	var n int
	if err := db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM events").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func mustLoad(t *testing.T, stream string) []event.Event {
	t.Helper()
	events, err := store.Load(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func balance(t *testing.T, orgID string) int64 {
	t.Helper()
	l, err := credit.Load(orgID, mustLoad(t, credit.Stream(orgID)))
	if err != nil {
		t.Fatal(err)
	}
	return l.Balance()
}

func TestVerifyEmailGrantsOnceUnderConcurrency(t *testing.T) {
	res := signup(t, "verify-once@example.com")
	h := commands.NewVerifyEmailHandler(commands.NewRepositories(store))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		granted int64
	)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := h.Handle(context.Background(), commands.VerifyEmail{Token: res.VerificationToken})
			if err != nil {
				t.Errorf("verify: %v", err)
				return
			}
			mu.Lock()
			granted += r.Granted
			mu.Unlock()
		}()
	}
	wg.Wait()
	if granted != credit.EmailVerificationGrant {
		t.Fatalf("granted %d in all, want %d once", granted, credit.EmailVerificationGrant)
	}
	if b := balance(t, res.OrgID); b != 5000 {
		t.Fatalf("balance %d, want 5000", b)
	}
	for _, bad := range []string{"", "nodot", res.OrgID + ".wrong", "11111111-1111-1111-1111-111111111111.x"} {
		if _, err := h.Handle(context.Background(), commands.VerifyEmail{Token: bad}); !errors.Is(err, org.ErrInvalidToken) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
	anon := signup(t, "")
	if _, err := h.Handle(context.Background(), commands.VerifyEmail{Token: anon.OrgID + ".x"}); !errors.Is(err, org.ErrInvalidToken) {
		t.Errorf("org without email: %v", err)
	}
}

// TestConcurrentChargesNeverOverdraw: 40 charges of 100 race for 2,500
// credits; the ledger's expected version lets exactly 25 through.
func TestConcurrentChargesNeverOverdraw(t *testing.T) {
	res := signup(t, "")
	h := commands.NewChargeCreditsHandler(commands.NewRepositories(store))
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		ok, poor, other int
	)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.Handle(context.Background(), commands.ChargeCredits{Charge: credit.Charged{
				OrgID: res.OrgID, Amount: 100, Reason: "step", WorkflowID: fmt.Sprintf("wr_%d", i%4)}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, credit.ErrInsufficient):
				poor++
			default:
				other++
				t.Errorf("charge: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 25 || poor != 15 || other != 0 {
		t.Fatalf("charged %d, refused %d, failed %d; want 25, 15, 0", ok, poor, other)
	}
	if b := balance(t, res.OrgID); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
}

func TestGrantRefundTierRevoke(t *testing.T) {
	ctx := event.WithMetadata(context.Background(), event.Metadata{Actor: "operator", RequestID: "cli_test"})
	res := signup(t, "")
	g, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.GrantCredits{OrgID: res.OrgID, Amount: 1000, Reason: credit.ReasonOperator, Note: "top-up"})
	if err != nil || g.Balance != 3500 {
		t.Fatalf("grant: %+v %v", g, err)
	}
	last := mustLoad(t, credit.Stream(res.OrgID))
	if m := last[len(last)-1].Metadata; m.Actor != "operator" || m.RequestID != "cli_test" || m.OrgID != res.OrgID {
		t.Fatalf("grant metadata %+v", m)
	}
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.GrantCredits{OrgID: "11111111-1111-1111-1111-111111111111", Amount: 1, Reason: "x"}); !errors.Is(err, org.ErrNotFound) {
		t.Fatalf("grant to unknown org: %v", err)
	}
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.GrantCredits{OrgID: res.OrgID, Amount: -1, Reason: "x"}); !errors.Is(err, credit.ErrInvalidAmount) {
		t.Fatalf("negative grant: %v", err)
	}

	charge := commands.NewChargeCreditsHandler(commands.NewRepositories(store))
	if _, err := charge.Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: res.OrgID, Amount: 500, Reason: "step", WorkflowID: "wr_a"}}); err != nil {
		t.Fatal(err)
	}
	refund := commands.NewRefundCreditsHandler(commands.NewRepositories(store))
	if _, err := refund.Handle(ctx, commands.RefundCredits{OrgID: res.OrgID, WorkflowID: "wr_a", Amount: 501, Reason: "failed"}); !errors.Is(err, credit.ErrRefundTooLarge) {
		t.Fatalf("over-refund: %v", err)
	}
	r, err := refund.Handle(ctx, commands.RefundCredits{OrgID: res.OrgID, WorkflowID: "wr_a", Amount: 500, Reason: "failed"})
	if err != nil || r.Balance != 3500 {
		t.Fatalf("refund: %+v %v", r, err)
	}

	tier := commands.NewChangeTierHandler(commands.NewRepositories(store))
	tc, err := tier.Handle(ctx, commands.ChangeTier{OrgID: res.OrgID, Tier: org.Team, Source: "operator"})
	if err != nil || !tc.Changed || tc.From != org.Free {
		t.Fatalf("tier: %+v %v", tc, err)
	}
	again, err := tier.Handle(ctx, commands.ChangeTier{OrgID: res.OrgID, Tier: org.Team, Source: "operator"})
	if err != nil || again.Changed {
		t.Fatalf("same tier again: %+v %v", again, err)
	}

	revoke := commands.NewRevokeKeyHandler(commands.NewRepositories(store))
	if _, err := revoke.Handle(ctx, commands.RevokeKey{OrgID: "11111111-1111-1111-1111-111111111111", KeyID: res.KeyID}); !errors.Is(err, apikey.ErrNotFound) {
		t.Fatalf("revoke from another org: %v", err)
	}
	if _, err := revoke.Handle(ctx, commands.RevokeKey{OrgID: res.OrgID, KeyID: res.KeyID}); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if _, err := revoke.Handle(ctx, commands.RevokeKey{OrgID: res.OrgID, KeyID: res.KeyID}); !errors.Is(err, apikey.ErrAlreadyRevoked) {
		t.Fatalf("revoke twice: %v", err)
	}
}
