// Package pitfalldb is PitfallDB (spec C): a failure database shared by
// every organization. A report is scrubbed of personal data (Scrub), then
// joins a pitfall, the cluster of reports with the same task type and
// failure signature (PitfallID); a pitfall is returned once it is
// verified (Verified), ranked by severity, then report count (Rank). A
// starter set of verified pitfalls ships as data (Starters).
//
// Each report is an event of its pitfall's stream carrying the reporting
// organization's org_id: the stream is shared, the events are not, so
// erasing an organization deletes its reports and leaves the others'.
package pitfalldb

import "svc/eventstore/event"

// Event types of PitfallDB.
const (
	// EventReported is a failure report, scrubbed, on its pitfall's stream.
	EventReported = "PitfallReported"
	// EventQueried is a query and what it returned, on a stream of its own.
	EventQueried = "PitfallsQueried"
)

// Stream is the stream of pitfall id: its reports.
func Stream(id string) string { return "pitfalldb-pitfall-" + id }

// QueryStream is the stream of query id.
func QueryStream(id string) string { return "pitfalldb-query-" + id }

// Reported is the data of PitfallReported: one report, every free-text
// field scrubbed, and what the pitfall's rule said once it was counted.
type Reported struct {
	ReportID        string `json:"report_id"`
	PitfallID       string `json:"pitfall_id"`
	OrgID           string `json:"org_id"`
	TaskType        string `json:"task_type"`
	Signature       string `json:"signature"`
	TaskDescription string `json:"task_description"`
	ErrorType       string `json:"error_type"`
	ErrorMessage    string `json:"error_message"`
	RootCause       string `json:"root_cause"`
	FixApplied      string `json:"fix_applied"`
	FixWorked       bool   `json:"fix_worked"`
	Language        string `json:"language"`
	Framework       string `json:"framework"`
	Provider        string `json:"provider"`
	Severity        string `json:"severity"`
	// Starter is true when the report joined a pitfall of the starter set.
	Starter bool `json:"starter"`
	// Verified is whether the pitfall was verified with this report.
	Verified bool `json:"verified"`
}

// Queried is the data of PitfallsQueried: a query (its description
// scrubbed) and the pitfalls it returned.
type Queried struct {
	QueryID         string   `json:"query_id"`
	OrgID           string   `json:"org_id"`
	TaskType        string   `json:"task_type"`
	TaskDescription string   `json:"task_description"`
	Language        string   `json:"language"`
	Framework       string   `json:"framework"`
	Provider        string   `json:"provider"`
	Semantic        bool     `json:"semantic"`
	Returned        []string `json:"returned"`
	TotalMatching   int      `json:"total_matching"`
}

// EventType implements event.Data.
func (Reported) EventType() string { return EventReported }

// EventType implements event.Data.
func (Queried) EventType() string { return EventQueried }

// RegisterEvents registers the pitfalldb event types.
func RegisterEvents(r *event.Registry) {
	event.Register[Reported](r)
	event.Register[Queried](r)
}

var registry = event.NewRegistry(RegisterEvents)
