package qualitygate

import (
	"errors"
	"fmt"
	"time"

	"svc/eventstore/event"
)

// Domain errors of the record.
var (
	// ErrRecorded refuses to record a validation twice.
	ErrRecorded = errors.New("validation already recorded")
	// ErrOverrideReason refuses an override without a reason.
	ErrOverrideReason = errors.New("override needs override_reason")
)

// Stream is the stream id of validation id.
func Stream(id string) string { return "qualitygate-" + id }

// Validation is the aggregate of one validation: recorded once.
type Validation struct {
	id      string
	orgID   string
	verdict string
	version int64
}

// NewValidation is a validation with no events yet.
func NewValidation() *Validation { return &Validation{version: event.NewStream} }

// Version implements event.Aggregate.
func (v *Validation) Version() int64 { return v.version }

// OrgID is the organization that ran the validation.
func (v *Validation) OrgID() string { return v.orgID }

// Verdict is the recorded verdict ("" before the record).
func (v *Validation) Verdict() string { return v.verdict }

// Apply implements event.Aggregate.
func (v *Validation) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("qualitygate: %w", err)
	}
	if d, ok := d.(Validated); ok {
		v.id, v.orgID, v.verdict = d.ValidationID, d.OrgID, d.Verdict
	}
	v.version = e.Version
	return nil
}

// Record is who ran a validation and what it cost.
type Record struct {
	ValidationID, OrgID, KeyID, AgentID string
	Credits                             int64
	At                                  time.Time
}

// Record decides the event of result r: refused when the validation was
// recorded already, or when r was overridden without a reason.
func (v *Validation) Record(rec Record, r Result) (Validated, error) {
	if v.version != event.NewStream {
		return Validated{}, ErrRecorded
	}
	if r.Override && r.OverrideReason == "" {
		return Validated{}, ErrOverrideReason
	}
	dirs := make([]DirectiveOutcome, 0, len(r.Directives))
	for _, d := range r.Directives {
		dirs = append(dirs, DirectiveOutcome{Label: d.Directive.Label(), Type: string(d.Directive.Type), Passed: d.Passed})
	}
	checks := make([]CheckOutcome, 0, len(r.CheckTypes))
	types := make([]string, 0, len(r.CheckTypes))
	for _, c := range r.CheckTypes {
		types = append(types, string(c))
		checks = append(checks, CheckOutcome{CheckType: string(c), Passed: !r.failed(c)})
	}
	issues := r.Issues
	if issues == nil {
		issues = []Issue{}
	}
	return Validated{
		ValidationID: rec.ValidationID, OrgID: rec.OrgID, KeyID: rec.KeyID, AgentID: rec.AgentID,
		OutputSHA256: r.OutputSHA256, OutputLength: r.OutputLength, Language: string(r.Language), HasSchema: r.HasSchema,
		CheckTypes: types, Checks: checks, Directives: dirs, Issues: issues,
		Score: r.Score, CheckedVerdict: string(r.CheckedVerdict), Verdict: string(r.Verdict),
		Override: r.Override, OverrideReason: r.OverrideReason,
		LLM: r.LLM, LLMSkipped: r.LLMSkipped, Credits: rec.Credits, At: rec.At,
	}, nil
}
