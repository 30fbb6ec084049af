// Package dedupq is DedupQ (spec C): task-level duplicate detection. An
// Entry is one normalized content of one organization (stream
// dedupq-<org>-<hash>): the result completed for it, while fresh, and the
// claim of the agent working on it. Every check is recorded as Checked on
// the organization's check log (dedupq-checks-<org>).
package dedupq

import (
	"encoding/json"
	"time"

	"svc/eventstore/event"
)

// Event types.
const (
	EventChecked   = "DedupQChecked"
	EventClaimed   = "DedupQClaimed"
	EventCompleted = "DedupQCompleted"
)

// Check outcomes.
const (
	OutcomeHit    = "hit"
	OutcomeMiss   = "miss"
	OutcomeLocked = "locked"
)

// Tiers that answer a hit (spec C's cache_hit).
const (
	TierCache   = "cache"
	TierDBExact = "db_exact"
	TierVector  = "vector"
)

// Match types.
const (
	MatchExact    = "exact"
	MatchSemantic = "semantic"
)

// Checked is the data of DedupQChecked: one check and its outcome. On a
// hit, Match* name the result returned and CostSaved is its actual cost;
// on a miss the content is claimed (Claimed on the entry's stream); when
// locked, LockedBy names the task holding the claim until LockedUntil.
// Content is kept (its first MaxKeptContent bytes) when a task id is
// given, so a completion naming only that task id can be linked to it.
type Checked struct {
	CheckID     string     `json:"check_id"`
	OrgID       string     `json:"org_id"`
	ContentHash string     `json:"content_hash"`
	TaskID      string     `json:"task_id,omitempty"`
	AgentID     string     `json:"agent_id,omitempty"`
	KeyID       string     `json:"key_id,omitempty"`
	Content     string     `json:"content,omitempty"`
	HashOnly    bool       `json:"hash_only,omitempty"`
	Threshold   float64    `json:"similarity_threshold"`
	Outcome     string     `json:"outcome"`
	Tier        string     `json:"tier,omitempty"`
	MatchType   string     `json:"match_type,omitempty"`
	MatchHash   string     `json:"match_hash,omitempty"`
	MatchTaskID string     `json:"match_task_id,omitempty"`
	Similarity  float64    `json:"similarity,omitempty"`
	CostSaved   float64    `json:"cost_saved,omitempty"`
	LockedBy    string     `json:"locked_by,omitempty"`
	LockedUntil *time.Time `json:"locked_until,omitempty"`
	// Refused is why the closest semantic candidate above the threshold
	// was refused by the guard (Conflict's reason), "" when none was.
	Refused string `json:"refused,omitempty"`
	// Credits is what the check was charged.
	Credits int64     `json:"credits"`
	At      time.Time `json:"at"`
}

// Claimed is the data of DedupQClaimed: a check that missed claims the
// content for its task (or its key and agent) until Until, so another
// agent checking the same content meanwhile is told it is in progress.
type Claimed struct {
	OrgID       string    `json:"org_id"`
	ContentHash string    `json:"content_hash"`
	Holder      string    `json:"holder"`
	TaskID      string    `json:"task_id,omitempty"`
	Until       time.Time `json:"until"`
}

// Completed is the data of DedupQCompleted: the result of the content's
// task, returned by later checks until ExpiresAt. Vector is the content's
// embedding by Embedder, int8-quantised (base64) with its Scale; empty
// when the completion skipped embedding (only exact checks find it).
// Sketch is the vector's sign sketch (Sketch.Bytes), so that loading it
// costs no projection. Guard is the content's Signature, encoded.
type Completed struct {
	OrgID         string          `json:"org_id"`
	ContentHash   string          `json:"content_hash"`
	TaskID        string          `json:"task_id"`
	AgentID       string          `json:"agent_id,omitempty"`
	Result        json.RawMessage `json:"result"`
	ResultType    string          `json:"result_type"`
	ResultSummary string          `json:"result_summary,omitempty"`
	ActualCost    float64         `json:"actual_cost"`
	TTLSeconds    int             `json:"ttl_seconds"`
	Tags          []string        `json:"tags"`
	CompletedAt   time.Time       `json:"completed_at"`
	ExpiresAt     time.Time       `json:"expires_at"`
	Embedder      string          `json:"embedder,omitempty"`
	Vector        []byte          `json:"vector,omitempty"`
	Scale         float32         `json:"scale,omitempty"`
	Sketch        []byte          `json:"sketch,omitempty"`
	Guard         string          `json:"guard,omitempty"`
	Credits       int64           `json:"credits"`
}

// EventType implements event.Data.
func (Checked) EventType() string { return EventChecked }

// EventType implements event.Data.
func (Claimed) EventType() string { return EventClaimed }

// EventType implements event.Data.
func (Completed) EventType() string { return EventCompleted }

// RegisterEvents registers the dedupq event types.
func RegisterEvents(r *event.Registry) {
	event.Register[Checked](r)
	event.Register[Claimed](r)
	event.Register[Completed](r)
}

var registry = event.NewRegistry(RegisterEvents)
