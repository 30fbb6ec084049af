package delivery_test

import (
	"encoding/json"
	"testing"
	"time"

	"svc/domain/delivery"
	"svc/eventstore/event"
)

// after folds a delivery scheduled at now with n failed attempts.
func after(t *testing.T, now time.Time, n int) *delivery.Delivery {
	t.Helper()
	data := []event.Data{delivery.Scheduled{DeliveryID: "dlv_1", Event: delivery.TypeStepCompleted, NextAttemptAt: now}}
	for i := 1; i <= n; i++ {
		next := now
		data = append(data, delivery.Attempted{Attempt: i, NextAttemptAt: &next})
	}
	events := make([]event.Event, len(data))
	for i, d := range data {
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		events[i] = event.Event{Version: int64(i), Type: d.EventType(), Data: raw}
	}
	dl, err := delivery.Load(events)
	if err != nil {
		t.Fatal(err)
	}
	return dl
}

func TestAttemptDecides(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dl := after(t, now, 0)
	if !dl.Due(now) || dl.Due(now.Add(-time.Second)) || dl.NextAttempt() != 1 {
		t.Fatalf("a new delivery: due %v, next attempt %d", dl.Due(now), dl.NextAttempt())
	}

	a := dl.Attempt(now, now, delivery.Outcome{StatusCode: 503, Err: "receiver answered non-2xx: 503", Retryable: true}, 1)
	if a.GaveUp || a.NextAttemptAt == nil || a.NextAttemptAt.Sub(now) < 8*time.Second || a.NextAttemptAt.Sub(now) > 12*time.Second ||
		*a.StatusCode != 503 || *a.Error != "receiver answered non-2xx: 503" || a.Attempt != 1 {
		t.Errorf("retryable: %+v", a)
	}
	a = dl.Attempt(now, now, delivery.Outcome{StatusCode: 429, Retryable: true, RetryAfter: time.Minute}, 1)
	if a.NextAttemptAt == nil || !a.NextAttemptAt.Equal(now.Add(time.Minute)) {
		t.Errorf("Retry-After: %+v", a)
	}
	a = after(t, now, delivery.MaxAttempts-1).Attempt(now, now, delivery.Outcome{StatusCode: 500, Retryable: true}, 1)
	if !a.GaveUp || a.NextAttemptAt != nil || a.Attempt != delivery.MaxAttempts {
		t.Errorf("last attempt: %+v", a)
	}
	a = dl.Attempt(now, now, delivery.Outcome{Err: "blocked"}, 1)
	if !a.GaveUp || a.StatusCode != nil || a.NextAttemptAt != nil {
		t.Errorf("not retryable: %+v", a)
	}
	a = after(t, now, 1).Attempt(now, now, delivery.Outcome{StatusCode: 204, Delivered: true, Err: "ignored", Duration: 1500 * time.Millisecond}, 1)
	if !a.Delivered || a.GaveUp || a.Error != nil || a.NextAttemptAt != nil || a.DurationMS != 1500 || a.Attempt != 2 {
		t.Errorf("delivered: %+v", a)
	}
}

func TestLoadRefusesOtherStreams(t *testing.T) {
	if _, err := delivery.Load(nil); err != delivery.ErrNotFound {
		t.Fatalf("empty stream: %v", err)
	}
	if _, err := delivery.Load([]event.Event{{Type: "WorkflowPlanned", Data: []byte(`{}`)}}); err != delivery.ErrNotFound {
		t.Fatalf("foreign stream: %v", err)
	}
}
