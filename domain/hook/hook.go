// Package hook is the workspace webhook endpoint aggregate (spec B,
// Workspace webhooks): an HTTPS URL of a workspace subscribed to some of
// spec B's events, with a signing secret sealed in its creation event.
// The URL's syntax is the caller's port's to check (the outbound rules);
// the aggregate keeps only what needs no I/O: HTTPS, a known, non-empty,
// deduplicated set of events, a bounded description.
package hook

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"svc/eventstore/event"
)

// Events are the event names an endpoint may subscribe to, spec B's order.
var Events = []string{"step_completed", "step_failed", "workflow_completed", "workflow_failed", "approval_requested", "timed_out"}

// TestEvent is the event type of the delivery the test route sends.
const TestEvent = "test"

// MaxDescription is the longest description, in characters.
const MaxDescription = 500

// Domain errors.
var (
	ErrNotFound           = errors.New("webhook endpoint not found")
	ErrURLRequired        = errors.New("url is required")
	ErrURLNotHTTPS        = errors.New("url must use https")
	ErrEventsRequired     = errors.New("events must name at least one event")
	ErrUnknownEvent       = errors.New("unknown event")
	ErrDescriptionTooLong = errors.New("description longer than 500 characters")
)

// Stream is the stream id of endpoint id.
func Stream(id string) string { return "hook-" + id }

// Settings are an endpoint's configuration.
type Settings struct {
	URL         string
	Events      []string
	Description string
	Active      bool
}

// Change is a partial update; nil fields are kept.
type Change struct {
	URL         *string
	Events      []string // nil: kept; empty: refused
	Description *string
	Active      *bool
}

// Endpoint is the aggregate.
type Endpoint struct {
	id          string
	orgID       string
	workspaceID string
	settings    Settings
	sealed      string
	// previous signs beside sealed until previousUntil (secret rotation)
	previous      string
	previousUntil time.Time
	// failures counts the deliveries in a row that gave up
	failures int
	deleted  bool
	version  int64
}

// New is an endpoint with no events yet.
func New() *Endpoint { return &Endpoint{version: event.NewStream} }

// checkURL refuses an empty or non-HTTPS URL.
func checkURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", ErrURLRequired
	}
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "https") {
		return "", ErrURLNotHTTPS
	}
	return raw, nil
}

// checkEvents returns events deduplicated in Events' order, refusing an
// empty list or a name not in Events.
func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, ErrEventsRequired
	}
	for _, e := range events {
		if !slices.Contains(Events, e) {
			return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownEvent, e, strings.Join(Events, ", "))
		}
	}
	out := make([]string, 0, len(events))
	for _, e := range Events {
		if slices.Contains(events, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// check normalizes and checks s.
func (s Settings) check() (Settings, error) {
	var err error
	if s.URL, err = checkURL(s.URL); err != nil {
		return Settings{}, err
	}
	if s.Events, err = checkEvents(s.Events); err != nil {
		return Settings{}, err
	}
	s.Description = strings.TrimSpace(s.Description)
	if utf8.RuneCountInString(s.Description) > MaxDescription {
		return Settings{}, ErrDescriptionTooLong
	}
	return s, nil
}

// Create decides a new endpoint of workspace wsID with the sealed secret.
func Create(id, orgID, wsID string, s Settings, sealedSecret string) (Created, error) {
	s, err := s.check()
	if err != nil {
		return Created{}, err
	}
	return Created{EndpointID: id, OrgID: orgID, WorkspaceID: wsID, URL: s.URL, Events: s.Events,
		Description: s.Description, Active: s.Active, SealedSecret: sealedSecret}, nil
}

// Apply folds one event.
func (h *Endpoint) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	switch d := d.(type) {
	case Created:
		h.id, h.orgID, h.workspaceID, h.sealed = d.EndpointID, d.OrgID, d.WorkspaceID, d.SealedSecret
		h.settings = Settings{URL: d.URL, Events: d.Events, Description: d.Description, Active: d.Active}
	case Updated:
		if d.Active && !h.settings.Active {
			h.failures = 0 // turned on again: a new run
		}
		h.settings = Settings{URL: d.URL, Events: d.Events, Description: d.Description, Active: d.Active}
	case Deleted:
		h.deleted = true
	case SecretRotated:
		h.sealed, h.previous, h.previousUntil = d.SealedSecret, d.PreviousSealedSecret, time.Time{}
		if d.PreviousExpiresAt != nil {
			h.previousUntil = *d.PreviousExpiresAt
		}
	case DeliveryFailed:
		h.failures = d.Failures
	case Recovered:
		h.failures = 0
	case Disabled:
		h.settings.Active = false
	}
	h.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (h *Endpoint) Version() int64 { return h.version }

// ID is the endpoint's id.
func (h *Endpoint) ID() string { return h.id }

// OrgID is the owning organization.
func (h *Endpoint) OrgID() string { return h.orgID }

// WorkspaceID is the endpoint's workspace.
func (h *Endpoint) WorkspaceID() string { return h.workspaceID }

// Settings are the endpoint's current settings.
func (h *Endpoint) Settings() Settings { return h.settings }

// SealedSecret is the signing secret, sealed.
func (h *Endpoint) SealedSecret() string { return h.sealed }

// Exists reports whether the endpoint was created and not deleted.
func (h *Endpoint) Exists() bool { return h.id != "" && !h.deleted }

// Update decides a change; one that changes nothing gives no event.
func (h *Endpoint) Update(c Change) ([]event.Data, error) {
	if !h.Exists() {
		return nil, ErrNotFound
	}
	s := h.settings
	s.Events = slices.Clone(s.Events)
	if c.URL != nil {
		s.URL = *c.URL
	}
	if c.Events != nil {
		s.Events = c.Events
	}
	if c.Description != nil {
		s.Description = *c.Description
	}
	if c.Active != nil {
		s.Active = *c.Active
	}
	s, err := s.check()
	if err != nil {
		return nil, err
	}
	cur := h.settings
	if s.URL == cur.URL && slices.Equal(s.Events, cur.Events) && s.Description == cur.Description && s.Active == cur.Active {
		return nil, nil
	}
	return []event.Data{Updated{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID, URL: s.URL, Events: s.Events,
		Description: s.Description, Active: s.Active}}, nil
}

// Delete decides the endpoint's deletion.
func (h *Endpoint) Delete() (Deleted, error) {
	if !h.Exists() {
		return Deleted{}, ErrNotFound
	}
	return Deleted{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID}, nil
}
