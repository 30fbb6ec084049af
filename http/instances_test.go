package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/commands"
	"svc/domain/org"
	"svc/eventstore"
	"svc/projections"
)

// instance is one svc serve of several on the package database: its own
// pool, store (with Push), projection runner (no poll) and API.
func instance(t *testing.T) (*fixture, *eventstore.Store) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := eventstore.New(pool)
	ctx, cancel := context.WithCancel(context.Background())
	ready, stop := st.SubscribeTypes("nothing.ever")
	defer stop()
	pushed := make(chan struct{})
	go func() { _ = st.Push(ctx, eventstore.PushOptions{Log: quiet}); close(pushed) }()
	select { // the listener signals every subscriber once it listens
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("push did not start")
	}
	f := newFixture(t, nil, st)
	f.runner = projections.NewRunner(st, quiet, projections.All(), projections.WithPoll(0))
	if err := f.runner.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { f.runner.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran; <-pushed })
	f.start(t)
	return f, st
}

// A revoked key and a tier change count at once on every instance: the
// key cache of an instance that did not make the change is emptied when
// the read model changes (through NOTIFY), not after its 10 s.
func TestKeyCacheEmptiedOnEveryInstance(t *testing.T) {
	a, storeA := instance(t)
	b, _ := instance(t)

	code, body := a.call(t, "POST", "/api/keys", "", map[string]any{"name": "Two instances"})
	if code != 201 {
		t.Fatalf("signup on a: %d %v", code, body)
	}
	key, orgID, keyID := body["key"].(string), body["org_id"].(string), body["key_id"].(string)
	// b caches the principal
	for range 3 {
		if code, body := b.call(t, "GET", "/api/keys/verify", key, nil); code != 200 || body["is_paid"] != false {
			t.Fatalf("verify on b: %d %v", code, body)
		}
	}

	// the tier changes through a's store (an operator's command would do
	// the same from its own process)
	repos := commands.NewRepositories(storeA)
	if _, err := commands.NewChangeTierHandler(repos).Handle(context.Background(), commands.ChangeTier{OrgID: orgID, Tier: org.Team, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	seen := waitUntil(t, "b to see the new tier", 3*time.Second, func() bool {
		_, body := b.call(t, "GET", "/api/keys/verify", key, nil)
		return body["is_paid"] == true
	})
	t.Logf("tier seen on b after %v", seen)

	if _, err := commands.NewRevokeKeyHandler(repos).Handle(context.Background(), commands.RevokeKey{OrgID: orgID, KeyID: keyID}); err != nil {
		t.Fatal(err)
	}
	seen = waitUntil(t, "b to refuse the revoked key", 3*time.Second, func() bool {
		code, _ := b.call(t, "GET", "/api/keys/verify", key, nil)
		return code == 401
	})
	t.Logf("revocation seen on b after %v", seen)
	if code, body := a.call(t, "GET", "/api/billing/balance", key, nil); code != 401 || errCode(body) != "invalid_api_key" {
		t.Fatalf("balance on a with the revoked key: %d %v", code, body)
	}
}

// waitUntil polls cond every 5 ms until it holds (returning how long that
// took) or within passes (failing the test).
func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) time.Duration {
	t.Helper()
	began := time.Now()
	for !cond() {
		if time.Since(began) > within {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(began)
}
