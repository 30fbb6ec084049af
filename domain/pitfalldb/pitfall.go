package pitfalldb

import (
	"encoding/json"
	"fmt"

	"svc/eventstore/event"
)

// Verification rule (decision 223): a pitfall is verified when reports
// of it come from MinOrgs organizations or more, or when it has
// MinReportsWithFix reports or more of which one says its fix worked. A
// starter pitfall is verified from the start.
const (
	MinOrgs           = 2
	MinReportsWithFix = 2
)

// Verified applies the rule to a pitfall's counts.
func Verified(starter bool, reports, orgs, fixesWorked int) bool {
	return starter || orgs >= MinOrgs || reports >= MinReportsWithFix && fixesWorked >= 1
}

// Pitfall is the aggregate of one pitfall's stream: the counts its rule
// reads. Its events belong to the organizations that reported them, so
// an erasure may take some away: a pitfall counts what is left.
type Pitfall struct {
	id      string
	starter bool
	reports int
	worked  int
	orgs    map[string]int
	version int64
}

// New is pitfall id with no report folded (a starter one when id is a
// starter pitfall's).
func New(id string) *Pitfall {
	_, starter := StarterByID(id)
	return &Pitfall{id: id, starter: starter, orgs: map[string]int{}, version: event.NewStream}
}

// Apply folds one event.
func (p *Pitfall) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("pitfall: %w", err)
	}
	if r, ok := d.(Reported); ok {
		p.reports++
		p.orgs[r.OrgID]++
		if r.FixWorked {
			p.worked++
		}
	}
	p.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (p *Pitfall) Version() int64 { return p.version }

// ID is the pitfall's id.
func (p *Pitfall) ID() string { return p.id }

// Reports is how many reports the pitfall has.
func (p *Pitfall) Reports() int { return p.reports }

// Orgs is how many organizations reported it.
func (p *Pitfall) Orgs() int { return len(p.orgs) }

// Verified reports whether the rule holds.
func (p *Pitfall) Verified() bool { return Verified(p.starter, p.reports, len(p.orgs), p.worked) }

// Report decides report reportID of organization orgID, a report Check
// returned, joining the pitfall; Verified says whether the pitfall is
// verified with it counted.
func (p *Pitfall) Report(reportID, orgID string, r Report) Reported {
	f := r.Failure
	orgs := len(p.orgs)
	if p.orgs[orgID] == 0 {
		orgs++
	}
	worked := p.worked
	if f.FixWorked {
		worked++
	}
	return Reported{ReportID: reportID, PitfallID: p.id, OrgID: orgID, TaskType: r.TaskType, Signature: f.Signature(),
		TaskDescription: r.TaskDescription, ErrorType: f.ErrorType, ErrorMessage: f.ErrorMessage, RootCause: f.RootCause,
		FixApplied: f.FixApplied, FixWorked: f.FixWorked, Language: f.Language, Framework: f.Framework, Provider: f.Provider,
		Severity: string(SeverityOf(f)), Starter: p.starter, Verified: Verified(p.starter, p.reports+1, orgs, worked)}
}

// HasOrg reports whether organization orgID reported the pitfall.
func (p *Pitfall) HasOrg(orgID string) bool { return p.orgs[orgID] > 0 }

// SnapshotCodec is the version of Snapshot's encoding.
const SnapshotCodec = 1

type snapshot struct {
	Reports int            `json:"reports"`
	Worked  int            `json:"worked"`
	Orgs    map[string]int `json:"orgs"`
}

// Snapshot encodes the pitfall's counts (eventstore.Snapshots: a long
// pitfall stream loads from it). It names the reporting organizations,
// so an erasure deletes the snapshots of its organization's streams.
func (p *Pitfall) Snapshot() ([]byte, error) {
	return json.Marshal(snapshot{Reports: p.reports, Worked: p.worked, Orgs: p.orgs})
}

// FromSnapshot is pitfall id at version from what Snapshot wrote.
func FromSnapshot(id string, version int64, data []byte) (*Pitfall, error) {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("pitfall snapshot: %w", err)
	}
	p := New(id)
	p.reports, p.worked, p.version = s.Reports, s.Worked, version
	if s.Orgs != nil {
		p.orgs = s.Orgs
	}
	return p, nil
}
