package dedupq

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"svc/eventstore/event"
)

// Limits and defaults.
const (
	// DefaultThreshold is the cosine a semantic match needs when the
	// check names none (spec C).
	DefaultThreshold = 0.92
	// DefaultTTL is how long a result is returned when the completion
	// names no ttl_seconds (spec C); MaxTTL is the longest (30 days).
	DefaultTTL = 7200
	MaxTTL     = 30 * 24 * 3600
	// ClaimWindow is how long a miss claims its content for the checking
	// task: another agent's identical check meanwhile answers locked.
	ClaimWindow = 2 * time.Minute
	// MaxResultBytes is the largest result kept (its JSON encoding); a
	// larger one is refused with 413.
	MaxResultBytes = 256 << 10
	// MaxKeptContent is how much of a checked content is kept (and
	// embedded): its first 8 KiB, cut at a character.
	MaxKeptContent = 8 << 10
	// MaxTags and MaxTagLength bound a completion's tags; MaxTaskID and
	// MaxSummary its task id and summary.
	MaxTags      = 20
	MaxTagLength = 64
	MaxTaskID    = 200
	MaxSummary   = 2000
)

// ResultTypes are the result types a completion may name.
var ResultTypes = []string{"json", "text", "code"}

// Domain errors.
var (
	ErrResultTooLarge = fmt.Errorf("result is over %d bytes", MaxResultBytes)
	ErrResultType     = errors.New("result_type must be json, text or code")
	ErrTTL            = fmt.Errorf("ttl_seconds must be between 1 and %d", MaxTTL)
	ErrTags           = fmt.Errorf("tags: at most %d, each at most %d characters", MaxTags, MaxTagLength)
	ErrTaskID         = fmt.Errorf("task_id must be 1 to %d characters", MaxTaskID)
	ErrSummary        = fmt.Errorf("result_summary is over %d characters", MaxSummary)
	ErrCost           = errors.New("actual_cost must be a number of 0 or more")
	ErrThreshold      = errors.New("similarity_threshold must be between 0 and 1")
)

// Stream is the stream of orgID's entry for content hash h.
func Stream(orgID, h string) string { return "dedupq-" + orgID + "-" + h }

// CheckLog is the stream of orgID's checks.
func CheckLog(orgID string) string { return "dedupq-checks-" + orgID }

// Keep is the part of content kept and embedded: its first
// MaxKeptContent bytes, cut at a character boundary.
func Keep(content string) string {
	if len(content) <= MaxKeptContent {
		return content
	}
	cut := MaxKeptContent
	for cut > 0 && !utf8.RuneStart(content[cut]) {
		cut--
	}
	return content[:cut]
}

// Result is a completed result as a check returns it.
type Result struct {
	Hash       string
	TaskID     string
	Value      json.RawMessage
	Type       string
	Summary    string
	ActualCost float64
	Tags       []string
	CachedAt   time.Time
	ExpiresAt  time.Time
}

// Fresh reports whether r is returned at now.
func (r *Result) Fresh(now time.Time) bool { return r != nil && now.Before(r.ExpiresAt) }

// claim is who works on the entry's content, until when.
type claim struct {
	holder, taskID string
	until          time.Time
}

// Entry is one content (by its hash) of one organization.
type Entry struct {
	orgID, hash string
	result      *Result
	claim       claim
	version     int64
}

// New is an entry with no events.
func New() *Entry { return &Entry{version: event.NewStream} }

// Apply folds one event.
func (e *Entry) Apply(ev event.Event) error {
	d, err := registry.Decode(ev)
	if err != nil {
		return fmt.Errorf("dedupq: %w", err)
	}
	switch d := d.(type) {
	case Claimed:
		e.orgID, e.hash = d.OrgID, d.ContentHash
		e.claim = claim{holder: d.Holder, taskID: d.TaskID, until: d.Until}
	case Completed:
		e.orgID, e.hash = d.OrgID, d.ContentHash
		e.result = &Result{Hash: d.ContentHash, TaskID: d.TaskID, Value: d.Result, Type: d.ResultType, Summary: d.ResultSummary,
			ActualCost: d.ActualCost, Tags: d.Tags, CachedAt: d.CompletedAt, ExpiresAt: d.ExpiresAt}
		e.claim = claim{}
	}
	e.version = ev.Version
	return nil
}

// Version is the version of the last event folded.
func (e *Entry) Version() int64 { return e.version }

// OrgID is the entry's organization ("" before its first event).
func (e *Entry) OrgID() string { return e.orgID }

// Result is the entry's result when it is fresh at now.
func (e *Entry) Result(now time.Time) (*Result, bool) {
	if e.result.Fresh(now) {
		return e.result, true
	}
	return nil, false
}

// Check is one check of the entry's content.
type Check struct {
	CheckID, OrgID, Hash string
	TaskID, AgentID      string
	KeyID                string
	// Content is kept in the event when TaskID is set.
	Content   string
	HashOnly  bool
	Threshold float64
	Credits   int64
	Now       time.Time
	// Semantic is the closest fresh result of another content above the
	// threshold that the guard let through (nil for none); Refused is
	// why a closer one was refused.
	Semantic *Match
	Refused  string
}

// Match is a semantic candidate: its result and cosine.
type Match struct {
	Result     *Result
	Similarity float64
}

// Holder is who a check claims for: its task id, or its key and agent.
func (c Check) Holder() string {
	if c.TaskID != "" {
		return "task:" + c.TaskID
	}
	return "key:" + c.KeyID + "/" + c.AgentID
}

// Decide decides check c: a fresh result of the entry is an exact hit
// (db_exact); else the semantic match is a hit (vector); else a claim by
// another holder that still runs answers locked; else a miss, which
// claims the content (the Claimed returned, nil otherwise).
func (e *Entry) Decide(c Check) (Checked, *Claimed) {
	out := c.record()
	if r, ok := e.Result(c.Now); ok {
		return hit(out, r, TierDBExact, MatchExact, 1), nil
	}
	if c.Semantic != nil {
		return hit(out, c.Semantic.Result, TierVector, MatchSemantic, c.Semantic.Similarity), nil
	}
	holder := c.Holder()
	if e.claim.holder != "" && e.claim.holder != holder && c.Now.Before(e.claim.until) {
		until := e.claim.until
		out.Outcome, out.LockedBy, out.LockedUntil = OutcomeLocked, e.claim.taskID, &until
		return out, nil
	}
	out.Outcome = OutcomeMiss
	return out, &Claimed{OrgID: c.OrgID, ContentHash: c.Hash, Holder: holder, TaskID: c.TaskID, Until: c.Now.Add(ClaimWindow)}
}

// CacheHit is check c answered by the shared cache with r: no entry is
// loaded (the cache holds only fresh results).
func CacheHit(c Check, r *Result) Checked {
	return hit(c.record(), r, TierCache, MatchExact, 1)
}

func (c Check) record() Checked {
	out := Checked{CheckID: c.CheckID, OrgID: c.OrgID, ContentHash: c.Hash, TaskID: c.TaskID, AgentID: c.AgentID, KeyID: c.KeyID,
		HashOnly: c.HashOnly, Threshold: c.Threshold, Refused: c.Refused, Credits: c.Credits, At: c.Now}
	if c.TaskID != "" {
		out.Content = Keep(c.Content)
	}
	return out
}

func hit(out Checked, r *Result, tier, matchType string, similarity float64) Checked {
	out.Outcome, out.Tier, out.MatchType = OutcomeHit, tier, matchType
	out.MatchHash, out.MatchTaskID, out.Similarity, out.CostSaved = r.Hash, r.TaskID, similarity, r.ActualCost
	return out
}

// Completion is a task's result for the entry's content.
type Completion struct {
	OrgID, Hash, TaskID, AgentID string
	Result                       json.RawMessage
	ResultType, Summary          string
	ActualCost                   float64
	// TTLSeconds is 0 for DefaultTTL.
	TTLSeconds int
	Tags       []string
	Now        time.Time
	Embedder   string
	Vector     []byte
	Scale      float32
	Sketch     []byte
	Guard      string
	Credits    int64
}

// CheckCompletion refuses a completion the entry would not keep.
func CheckCompletion(c Completion) error {
	switch {
	case c.TaskID == "" || utf8.RuneCountInString(c.TaskID) > MaxTaskID:
		return ErrTaskID
	case len(c.Result) > MaxResultBytes:
		return ErrResultTooLarge
	case c.ResultType != "" && !slices.Contains(ResultTypes, c.ResultType):
		return ErrResultType
	case c.TTLSeconds < 0 || c.TTLSeconds > MaxTTL:
		return ErrTTL
	case len(c.Tags) > MaxTags:
		return ErrTags
	case utf8.RuneCountInString(c.Summary) > MaxSummary:
		return ErrSummary
	case c.ActualCost < 0:
		return ErrCost
	}
	for _, t := range c.Tags {
		if strings.TrimSpace(t) == "" || utf8.RuneCountInString(t) > MaxTagLength {
			return ErrTags
		}
	}
	return nil
}

// Complete decides the completion: the result replaces any earlier one
// and ends the claim.
func (e *Entry) Complete(c Completion) (Completed, error) {
	if err := CheckCompletion(c); err != nil {
		return Completed{}, err
	}
	if c.TTLSeconds == 0 {
		c.TTLSeconds = DefaultTTL
	}
	if c.ResultType == "" {
		c.ResultType = "json"
	}
	tags := make([]string, 0, len(c.Tags))
	for _, t := range c.Tags {
		tags = append(tags, strings.TrimSpace(t))
	}
	return Completed{OrgID: c.OrgID, ContentHash: c.Hash, TaskID: c.TaskID, AgentID: c.AgentID, Result: c.Result,
		ResultType: c.ResultType, ResultSummary: c.Summary, ActualCost: c.ActualCost, TTLSeconds: c.TTLSeconds, Tags: tags,
		CompletedAt: c.Now, ExpiresAt: c.Now.Add(time.Duration(c.TTLSeconds) * time.Second),
		Embedder: c.Embedder, Vector: c.Vector, Scale: c.Scale, Sketch: c.Sketch, Guard: c.Guard, Credits: c.Credits}, nil
}
