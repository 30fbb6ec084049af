package burnrate

import (
	"errors"
	"fmt"

	"svc/eventstore/event"
)

// ErrRecorded refuses recording an estimate whose stream exists.
var ErrRecorded = errors.New("estimate already recorded")

// EstimateStream is the stream of estimate or optimization id.
func EstimateStream(id string) string { return "burnrate-estimate-" + id }

// Estimate is one priced plan (an estimate or an optimization), recorded
// once.
type Estimate struct {
	id, orgID string
	version   int64
}

// NewEstimate is an estimate with no events.
func NewEstimate() *Estimate { return &Estimate{version: event.NewStream} }

// Record decides the event of a priced plan: d, once.
func (e *Estimate) Record(d event.Data) ([]event.Data, error) {
	if e.version != event.NewStream {
		return nil, ErrRecorded
	}
	switch d.(type) {
	case EstimateMade, PlanOptimized:
		return []event.Data{d}, nil
	}
	return nil, fmt.Errorf("burnrate: %T is not an estimate", d)
}

// Apply folds one event.
func (e *Estimate) Apply(ev event.Event) error {
	d, err := registry.Decode(ev)
	if err != nil {
		return fmt.Errorf("burnrate: %w", err)
	}
	switch d := d.(type) {
	case EstimateMade:
		e.id, e.orgID = d.EstimateID, d.OrgID
	case PlanOptimized:
		e.id, e.orgID = d.EstimateID, d.OrgID
	}
	e.version = ev.Version
	return nil
}

// Version is the version of the last event folded.
func (e *Estimate) Version() int64 { return e.version }

// OrgID is the organization that priced the plan.
func (e *Estimate) OrgID() string { return e.orgID }
