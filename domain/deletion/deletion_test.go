package deletion

import (
	"errors"
	"strings"
	"testing"
	"time"

	"svc/eventstore/event"
)

const org = "11111111-1111-4111-8111-111111111111"

// fold applies data to a as the store would, recorded at at.
func fold(t *testing.T, a *Requests, at time.Time, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := a.Apply(event.Event{StreamID: Stream(org), Version: a.Version() + 1, Type: d.EventType(), RecordedAt: at, Payload: d}); err != nil {
			t.Fatal(err)
		}
	}
}

func ask(id, by string, now time.Time) Ask {
	return Ask{ID: id, OrgID: org, By: by, TokenHash: HashToken("tok-" + id), TokenSealed: "sealed-" + id, Now: now}
}

func TestAskRepeatConflictAndExpiry(t *testing.T) {
	a := New()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	repeat, d, err := a.Ask(ask("r1", "key:a", now))
	if err != nil || repeat != nil || d == nil || d.ExpiresAt != now.Add(DefaultTTL) {
		t.Fatalf("first ask: %v %v %v", repeat, d, err)
	}
	fold(t, a, now, *d)
	// the same requester within the window: the pending request, no event
	repeat, d, err = a.Ask(ask("r2", "key:a", now.Add(time.Minute)))
	if err != nil || d != nil || repeat == nil || repeat.ID != "r1" || repeat.TokenSealed != "sealed-r1" || repeat.Status != StatusPending {
		t.Fatalf("repeat: %+v %v %v", repeat, d, err)
	}
	// someone else, or the requester after the window: already pending
	for _, c := range []Ask{ask("r2", "user:b", now.Add(time.Minute)), ask("r2", "key:a", now.Add(ReplayWindow))} {
		_, _, err = a.Ask(c)
		var r *Refusal
		if !errors.Is(err, ErrAlreadyPending) || !errors.As(err, &r) || r.PendingID != "r1" {
			t.Fatalf("second requester: %v", err)
		}
	}
	// once it expired, a new one may be made
	if _, d, err = a.Ask(ask("r2", "user:b", now.Add(DefaultTTL))); err != nil || d == nil {
		t.Fatalf("after expiry: %v %v", d, err)
	}
	if v, _ := a.Request("r1", now.Add(DefaultTTL)); v.Status != StatusExpired {
		t.Fatalf("r1 is %s after its TTL", v.Status)
	}
}

func TestAskDailyLimit(t *testing.T) {
	a := New()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := day.Add(time.Hour)
	for i := range DailyLimit {
		_, d, err := a.Ask(Ask{ID: string(rune('a' + i)), OrgID: org, By: "key:a", Now: at, TTL: time.Minute})
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		fold(t, a, at, *d)
		at = at.Add(2 * time.Minute) // the previous one expired
	}
	_, _, err := a.Ask(Ask{ID: "z", OrgID: org, By: "key:a", Now: at, TTL: time.Minute})
	var r *Refusal
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &r) || !r.Until.Equal(day.Add(24*time.Hour)) {
		t.Fatalf("sixth request of the day: %v", err)
	}
	// the next UTC day counts again
	if _, d, err := a.Ask(Ask{ID: "z", OrgID: org, By: "key:a", Now: day.Add(24 * time.Hour), TTL: time.Minute}); err != nil || d == nil {
		t.Fatalf("next day: %v", err)
	}
}

func TestConfirm(t *testing.T) {
	a := New()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	_, d, _ := a.Ask(ask("r1", "key:a", now))
	fold(t, a, now, *d)
	for name, c := range map[string]struct {
		id, token string
		at        time.Time
	}{
		"unknown id":  {"r9", "tok-r1", now},
		"wrong token": {"r1", "tok-r2", now},
		"expired":     {"r1", "tok-r1", now.Add(DefaultTTL)},
	} {
		if _, err := a.Confirm(c.id, c.token, "key:a", c.at); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c, err := a.Confirm("r1", "tok-r1", "user:b", now.Add(time.Minute))
	if err != nil || c.OrgID != org || c.ConfirmedBy != "user:b" {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	fold(t, a, now.Add(time.Minute), c)
	if _, err := a.Confirm("r1", "tok-r1", "user:b", now.Add(2*time.Minute)); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("a used request: %v", err)
	}
	if _, _, err := a.Ask(ask("r2", "key:a", now.Add(2*time.Minute))); !errors.Is(err, ErrAlreadyPending) {
		t.Fatalf("ask while erasing: %v", err)
	}
	if v, ok := a.Erasing(); !ok || v.ID != "r1" || v.Status != StatusErasing {
		t.Fatalf("erasing: %+v %v", v, ok)
	}
}

func TestProgressFailuresAndRecord(t *testing.T) {
	a := New()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	_, d, _ := a.Ask(ask("r1", "key:a", now))
	fold(t, a, now, *d)
	if _, err := a.Erase("r1", now); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("erase before confirmation: %v", err)
	}
	c, _ := a.Confirm("r1", "tok-r1", "key:a", now)
	fold(t, a, now, c)
	done := a.Done("r1", StepEvents, 0)
	if done == nil {
		t.Fatal("a first step with nothing deleted is logged")
	}
	fold(t, a, now, *done)
	if a.Done("r1", StepEvents, 0) != nil {
		t.Fatal("a repeated empty step is logged again")
	}
	var pauses []time.Duration
	for range 7 {
		f := a.Fail("r1", StepReadModels, strings.Repeat("x", 600), now)
		if len(f.Error) != 500 {
			t.Fatalf("error of %d bytes kept", len(f.Error))
		}
		pauses = append(pauses, f.RetryAt.Sub(now))
		fold(t, a, now, f)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i := range want {
		if pauses[i] != want[i] {
			t.Fatalf("retry pauses %v, want %v", pauses, want)
		}
	}
	e, err := a.Erase("r1", now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if e.OrgHash != OrgHash(org) || strings.Contains(e.OrgHash, org) || e.Attempts != 8 || len(e.Log) != 2 || e.Log[0].Step != StepConfirmed {
		t.Fatalf("record: %+v", e)
	}
}
