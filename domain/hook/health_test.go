package hook

import (
	"errors"
	"testing"
	"time"
)

func TestRotateSecret(t *testing.T) {
	h := created(t)
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	if got := h.Secrets(now); len(got) != 1 || got[0] != "sealed" {
		t.Fatalf("secrets before rotation %v", got)
	}
	if _, err := h.RotateSecret("new", now, -time.Second); !errors.Is(err, ErrOverlap) {
		t.Errorf("negative overlap: %v", err)
	}
	if _, err := h.RotateSecret("new", now, MaxOverlap+time.Second); !errors.Is(err, ErrOverlap) {
		t.Errorf("overlap past the maximum: %v", err)
	}
	r, err := h.RotateSecret("new", now, DefaultOverlap)
	if err != nil || r.SealedSecret != "new" || r.PreviousSealedSecret != "sealed" || !r.PreviousExpiresAt.Equal(now.Add(24*time.Hour)) {
		t.Fatalf("rotation %+v %v", r, err)
	}
	fold(t, h, r)
	if got := h.Secrets(now.Add(23 * time.Hour)); len(got) != 2 || got[0] != "new" || got[1] != "sealed" {
		t.Errorf("secrets in the overlap %v", got)
	}
	if h.PreviousExpiresAt(now) == nil || h.PreviousExpiresAt(now.Add(24*time.Hour)) != nil {
		t.Errorf("previous expiry %v", h.PreviousExpiresAt(now))
	}
	if got := h.Secrets(now.Add(24 * time.Hour)); len(got) != 1 || got[0] != "new" {
		t.Errorf("secrets after the overlap %v", got)
	}
	// a rotation without overlap retires the current secret at once; the
	// one rotated out before is gone either way
	r, err = h.RotateSecret("newer", now.Add(time.Hour), 0)
	if err != nil || r.PreviousSealedSecret != "" || r.PreviousExpiresAt != nil {
		t.Fatalf("rotation without overlap %+v %v", r, err)
	}
	fold(t, h, r)
	if got := h.Secrets(now.Add(time.Hour)); len(got) != 1 || got[0] != "newer" {
		t.Errorf("secrets %v", got)
	}
	del, _ := h.Delete()
	fold(t, h, del)
	if _, err := h.RotateSecret("x", now, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("rotate a deleted endpoint: %v", err)
	}
}

func TestFailuresDisable(t *testing.T) {
	h := created(t)
	if !h.Subscribed("step_failed") || h.Subscribed("step_completed") {
		t.Fatal("subscription")
	}
	if d := h.Delivered("d0"); len(d) != 0 {
		t.Errorf("a delivery with no failures before: %v", d)
	}
	for i := 1; i < 3; i++ {
		d := h.GaveUp("d", 3)
		if len(d) != 1 || d[0].(DeliveryFailed).Failures != i {
			t.Fatalf("failure %d: %v", i, d)
		}
		fold(t, h, d...)
	}
	// one arrives: the run ends
	d := h.Delivered("ok")
	if len(d) != 1 || d[0].(Recovered).Failures != 2 {
		t.Fatalf("recovered %v", d)
	}
	fold(t, h, d...)
	if h.Failures() != 0 {
		t.Fatalf("failures after recovery %d", h.Failures())
	}
	for i := 1; i <= 3; i++ {
		d := h.GaveUp("d", 3)
		if want := 1 + map[bool]int{true: 1}[i == 3]; len(d) != want {
			t.Fatalf("failure %d: %v", i, d)
		}
		fold(t, h, d...)
	}
	if h.Settings().Active || h.Subscribed("step_failed") || h.Failures() != 3 {
		t.Fatalf("after disabling: %+v, %d failures", h.Settings(), h.Failures())
	}
	// already off: counted, not disabled again
	if d := h.GaveUp("d", 3); len(d) != 1 {
		t.Errorf("failure while disabled: %v", d)
	}
	on := true
	u, err := h.Update(Change{Active: &on})
	if err != nil || len(u) != 1 {
		t.Fatal(u, err)
	}
	fold(t, h, u...)
	if !h.Settings().Active || h.Failures() != 0 {
		t.Errorf("turned on again: %+v, %d failures", h.Settings(), h.Failures())
	}
	if d := h.GaveUp("d", 0); len(d) != 1 || d[0].(DeliveryFailed).Failures != 1 {
		t.Errorf("default limit: %v", d)
	}
}
