package hook

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"svc/eventstore/event"
)

func fold(t *testing.T, h *Endpoint, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := h.Apply(event.Recorded("s", h.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

func created(t *testing.T) *Endpoint {
	t.Helper()
	c, err := Create("e1", "o1", "w1", Settings{URL: "https://example.com/h", Events: []string{"step_failed"}, Active: true}, "sealed")
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	fold(t, h, c)
	return h
}

func TestCreateRules(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want error
	}{
		{Settings{Events: []string{"step_failed"}}, ErrURLRequired},
		{Settings{URL: "http://example.com", Events: []string{"step_failed"}}, ErrURLNotHTTPS},
		{Settings{URL: "https://example.com"}, ErrEventsRequired},
		{Settings{URL: "https://example.com", Events: []string{}}, ErrEventsRequired},
		{Settings{URL: "https://example.com", Events: []string{"nope"}}, ErrUnknownEvent},
		{Settings{URL: "https://example.com", Events: []string{"timed_out"}, Description: string(make([]rune, 501))}, ErrDescriptionTooLong},
	} {
		if _, err := Create("e", "o", "w", tc.s, "x"); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.s, err, tc.want)
		}
	}
	c, err := Create("e", "o", "w", Settings{URL: " https://example.com ", Events: []string{"timed_out", "step_completed", "timed_out"}, Description: " d "}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "https://example.com" || !reflect.DeepEqual(c.Events, []string{"step_completed", "timed_out"}) || c.Description != "d" {
		t.Errorf("created %+v", c)
	}
}

func TestUpdateAndDelete(t *testing.T) {
	h := created(t)
	if d, err := h.Update(Change{}); err != nil || len(d) != 0 {
		t.Errorf("no change: %v %v", d, err)
	}
	off := false
	d, err := h.Update(Change{Active: &off, Events: []string{"workflow_completed", "step_failed"}})
	if err != nil || len(d) != 1 {
		t.Fatalf("update: %v %v", d, err)
	}
	fold(t, h, d...)
	if s := h.Settings(); s.Active || !reflect.DeepEqual(s.Events, []string{"step_failed", "workflow_completed"}) || s.URL != "https://example.com/h" {
		t.Errorf("settings %+v", s)
	}
	bad := "http://x"
	if _, err := h.Update(Change{URL: &bad}); !errors.Is(err, ErrURLNotHTTPS) {
		t.Errorf("http url: %v", err)
	}
	if _, err := h.Update(Change{Events: []string{}}); !errors.Is(err, ErrEventsRequired) {
		t.Errorf("empty events: %v", err)
	}
	del, err := h.Delete()
	if err != nil {
		t.Fatal(err)
	}
	fold(t, h, del)
	if h.Exists() {
		t.Error("exists after delete")
	}
	if _, err := h.Delete(); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := h.Update(Change{Active: &off}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update deleted: %v", err)
	}
}
