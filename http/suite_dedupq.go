package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"svc/commands/suite"
	"svc/domain/dedupq"
)

// dedupqOps are the dedupq operations of the suite (spec C).
func (s *Server) dedupqOps() []suiteOp {
	return []suiteOp{
		{action: "dedupq.check", method: http.MethodPost, path: "/api/dedupq/check", status: http.StatusOK, run: s.dedupqCheck,
			// the entry streams decide; the semantic index reads the results
			reads: []string{dedupq.EventCompleted},
			doc: apiOp{tag: tagDedupQ, summary: "Check whether a task was already done",
				note: "1 credit. Tiers in order: the shared cache (Redis, exact), the content's entry in the database (db_exact: same text after case, spacing and edge punctuation are normalized), " +
					"then the organization's results by embedding (vector, unless hash_only; cosine at least similarity_threshold, default 0.92, and refused when numbers, on/off words, negation, named entities, dates or a from-to direction differ). " +
					"status is hit (duplicate true, match and cache_hit set), miss (the content is claimed for this task for 2 minutes: claim) or locked (another task claimed it: lock, retry after it). Only the caller's organization's results are ever seen.",
				body: dedupqCheckParams{}, required: []string{"content"},
				replies: []reply{ok(http.StatusOK, "The check's outcome.", dedupqCheckOutcome{})},
				errs:    []codes{errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		{action: "dedupq.complete", method: http.MethodPost, path: "/api/dedupq/complete", status: http.StatusOK, run: s.dedupqComplete,
			doc: apiOp{tag: tagDedupQ, summary: "Store a task's result for later checks",
				note: "2 credits. The result (any JSON; at most 256 KiB, else 413) is returned by checks of the same content until ttl_seconds (default 7200, at most 30 days) have passed; it replaces an earlier result of that content and ends its claim. " +
					"content links the result to that text; without it, to the content the task_id's latest check named (400 when none did). hash_only stores it for exact matches only.",
				body: dedupqCompleteParams{}, required: []string{"task_id", "result"},
				replies: []reply{ok(http.StatusOK, "The result is stored.", dedupqStoredResult{})},
				errs:    []codes{errs(http.StatusPaymentRequired, "insufficient_credits"), errs(http.StatusRequestEntityTooLarge, "payload_too_large")}}},
		{action: "dedupq.stats", method: http.MethodGet, path: "/api/dedupq/stats", status: http.StatusOK, run: s.dedupqStats,
			doc: apiOp{tag: tagDedupQ, summary: "This month's hit rate and savings",
				note:    "Free. The current UTC month: checks, hits, the sum of the actual_cost of the results hits returned, what DedupQ charged (1,000 credits = 1 USD), their difference and the return on it.",
				replies: []reply{ok(http.StatusOK, "The month's figures.", dedupqMonthStats{})}}},
	}
}

func init() {
	fieldNotes["httpapi.dedupqCheckOutcome.status"] = fieldNote{patch: enum(dedupq.OutcomeHit, dedupq.OutcomeMiss, dedupq.OutcomeLocked)}
	fieldNotes["httpapi.dedupqCheckOutcome.cache_hit"] = fieldNote{patch: enum(dedupq.TierCache, dedupq.TierDBExact, dedupq.TierVector),
		desc: "The tier that answered the hit."}
	fieldNotes["httpapi.dedupqMatch.match_type"] = fieldNote{patch: enum(dedupq.MatchExact, dedupq.MatchSemantic)}
	fieldNotes["httpapi.dedupqMatch.result"] = fieldNote{desc: "The result as completed (any JSON)."}
	fieldNotes["httpapi.dedupqCheckParams.similarity_threshold"] = fieldNote{patch: jsonSchema{"minimum": 0, "maximum": 1}}
	fieldNotes["httpapi.dedupqCompleteParams.result_type"] = fieldNote{patch: jsonSchema{"enum": enumOf(dedupq.ResultTypes)}}
	fieldNotes["httpapi.dedupqCompleteParams.result"] = fieldNote{desc: "Any JSON or text, at most 256 KiB."}
	fieldNotes["httpapi.dedupqCompleteParams.ttl_seconds"] = fieldNote{patch: jsonSchema{"minimum": 1, "maximum": dedupq.MaxTTL}}
	fieldNotes["httpapi.dedupqCompleteParams.actual_cost"] = fieldNote{patch: jsonSchema{"minimum": 0}, desc: "What the task cost (USD)."}
	fieldNotes["httpapi.dedupqCompleteParams.tags"] = fieldNote{patch: jsonSchema{"maxItems": dedupq.MaxTags}}
}

// dedupqCheckParams are a check's parameters.
type dedupqCheckParams struct {
	Content             *string  `json:"content"`
	TaskID              *string  `json:"task_id"`
	HashOnly            *bool    `json:"hash_only"`
	SimilarityThreshold *float64 `json:"similarity_threshold"`
}

// dedupqCheckOutcome is a check's answer (spec C's Dedup match, with the
// check's status and the claim or lock).
type dedupqCheckOutcome struct {
	suiteMeta
	Status      string       `json:"status"`
	Duplicate   bool         `json:"duplicate"`
	Match       *dedupqMatch `json:"match,omitempty"`
	CacheHit    string       `json:"cache_hit,omitempty"`
	ContentHash string       `json:"content_hash"`
	Claim       *dedupqClaim `json:"claim,omitempty"`
	Lock        *dedupqLock  `json:"lock,omitempty"`
}

// dedupqMatch is the result a hit returns.
type dedupqMatch struct {
	TaskID        string          `json:"task_id"`
	Similarity    float64         `json:"similarity"`
	Result        json.RawMessage `json:"result"`
	MatchType     string          `json:"match_type"`
	CachedAt      time.Time       `json:"cached_at"`
	ExpiresAt     time.Time       `json:"expires_at"`
	ResultType    string          `json:"result_type"`
	ResultSummary string          `json:"result_summary,omitempty"`
	ActualCost    float64         `json:"actual_cost"`
	Tags          []string        `json:"tags"`
}

// dedupqClaim is a miss's claim: the content is the caller's task's until
// ExpiresAt (complete it before, or another agent may take it).
type dedupqClaim struct {
	ExpiresAt time.Time `json:"expires_at"`
}

// dedupqLock is who holds the content when locked.
type dedupqLock struct {
	TaskID            string    `json:"task_id,omitempty"`
	ExpiresAt         time.Time `json:"expires_at"`
	RetryAfterSeconds int       `json:"retry_after_seconds"`
}

// dedupqCompleteParams are a completion's parameters.
type dedupqCompleteParams struct {
	TaskID        *string         `json:"task_id"`
	Content       *string         `json:"content"`
	Result        json.RawMessage `json:"result"`
	ResultType    *string         `json:"result_type"`
	ResultSummary *string         `json:"result_summary"`
	ActualCost    *float64        `json:"actual_cost"`
	TTLSeconds    *int            `json:"ttl_seconds"`
	Tags          []string        `json:"tags"`
	HashOnly      *bool           `json:"hash_only"`
}

// dedupqStoredResult is a completion's answer.
type dedupqStoredResult struct {
	suiteMeta
	TaskID      string    `json:"task_id"`
	ContentHash string    `json:"content_hash"`
	ExpiresAt   time.Time `json:"expires_at"`
	// Semantic says whether semantic checks can find the result.
	Semantic bool `json:"semantic"`
}

// dedupqMonthStats is the month's figures (spec C).
type dedupqMonthStats struct {
	suiteMeta
	Period         string `json:"period"`
	TotalChecks    int64  `json:"total_checks"`
	CacheHits      int64  `json:"cache_hits"`
	HitRate        string `json:"hit_rate"`
	TotalCostSaved string `json:"total_cost_saved"`
	CostOfService  string `json:"cost_of_service"`
	NetSavings     string `json:"net_savings"`
	ROI            string `json:"roi"`
	CreditsSpent   int64  `json:"credits_spent"`
}

func (s *Server) dedupqCheck(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p dedupqCheckParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.Content == nil {
		return nil, suite.Receipt{}, suiteMissing("content")
	}
	if strings.TrimSpace(*p.Content) == "" {
		return nil, suite.Receipt{}, suiteInvalid("content", "Field content must not be empty.")
	}
	cmd := suite.DedupQCheck{Caller: c.caller, Content: *p.Content, Threshold: p.SimilarityThreshold}
	if p.TaskID != nil {
		cmd.TaskID = strings.TrimSpace(*p.TaskID)
		if len(cmd.TaskID) > dedupq.MaxTaskID {
			return nil, suite.Receipt{}, suiteInvalid("task_id", fmt.Sprintf("Field task_id must be at most %d characters.", dedupq.MaxTaskID))
		}
	}
	if p.HashOnly != nil {
		cmd.HashOnly = *p.HashOnly
	}
	if t := p.SimilarityThreshold; t != nil && (*t < 0 || *t > 1 || math.IsNaN(*t)) {
		return nil, suite.Receipt{}, suiteInvalid("similarity_threshold", "Field similarity_threshold must be between 0 and 1.")
	}
	r, err := s.suite.DedupQ.Check(ctx, cmd)
	if err != nil {
		return nil, suite.Receipt{}, dedupqError(err)
	}
	out := &dedupqCheckOutcome{Status: r.Outcome, Duplicate: r.Outcome == dedupq.OutcomeHit, CacheHit: r.Tier, ContentHash: r.ContentHash}
	if m := r.Match; m != nil {
		tags := m.Tags
		if tags == nil {
			tags = []string{}
		}
		out.Match = &dedupqMatch{TaskID: m.TaskID, Similarity: math.Round(m.Similarity*10000) / 10000, Result: m.Result, MatchType: m.MatchType,
			CachedAt: m.CachedAt, ExpiresAt: m.ExpiresAt, ResultType: m.ResultType, ResultSummary: m.Summary, ActualCost: m.ActualCost, Tags: tags}
	}
	if r.ClaimedUntil != nil {
		out.Claim = &dedupqClaim{ExpiresAt: *r.ClaimedUntil}
	}
	if r.LockedUntil != nil {
		out.Lock = &dedupqLock{TaskID: r.LockedBy, ExpiresAt: *r.LockedUntil,
			RetryAfterSeconds: max(1, int(math.Ceil(time.Until(*r.LockedUntil).Seconds())))}
	}
	out.FallbackBehavior = r.Fallback
	return out, r.Receipt, nil
}

func (s *Server) dedupqComplete(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p dedupqCompleteParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.TaskID == nil || strings.TrimSpace(*p.TaskID) == "" {
		return nil, suite.Receipt{}, suiteMissing("task_id")
	}
	if len(p.Result) == 0 || bytes.Equal(bytes.TrimSpace(p.Result), []byte("null")) {
		return nil, suite.Receipt{}, suiteMissing("result")
	}
	cmd := suite.DedupQComplete{Caller: c.caller, TaskID: strings.TrimSpace(*p.TaskID), Result: p.Result, Tags: p.Tags}
	if p.Content != nil {
		if strings.TrimSpace(*p.Content) == "" {
			return nil, suite.Receipt{}, suiteInvalid("content", "Field content must not be empty.")
		}
		cmd.Content = *p.Content
	}
	if p.ResultType != nil {
		cmd.ResultType = *p.ResultType
	}
	if p.ResultSummary != nil {
		cmd.Summary = *p.ResultSummary
	}
	if p.ActualCost != nil {
		cmd.ActualCost = *p.ActualCost
	}
	if p.TTLSeconds != nil {
		if *p.TTLSeconds < 1 {
			return nil, suite.Receipt{}, dedupqError(dedupq.ErrTTL)
		}
		cmd.TTLSeconds = *p.TTLSeconds
	}
	if p.HashOnly != nil {
		cmd.HashOnly = *p.HashOnly
	}
	r, err := s.suite.DedupQ.Complete(ctx, cmd)
	if err != nil {
		return nil, suite.Receipt{}, dedupqError(err)
	}
	out := &dedupqStoredResult{TaskID: r.TaskID, ContentHash: r.ContentHash, ExpiresAt: r.ExpiresAt, Semantic: r.Semantic}
	out.FallbackBehavior = r.Fallback
	return out, r.Receipt, nil
}

func (s *Server) dedupqStats(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	r, err := s.suite.DedupQ.Stats(ctx, c.caller)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	net := r.CostSaved - r.CostOfService
	out := &dedupqMonthStats{Period: r.Period, TotalChecks: r.TotalChecks, CacheHits: r.CacheHits,
		HitRate: dedupqPercent(r.CacheHits, r.TotalChecks), TotalCostSaved: dedupqUSD(r.CostSaved), CostOfService: dedupqUSD(r.CostOfService),
		NetSavings: dedupqUSD(net), ROI: dedupqROI(net, r.CostOfService), CreditsSpent: r.Credits}
	return out, r.Receipt, nil
}

// dedupqErrors map DedupQ's domain errors to the field they are about.
var dedupqErrors = map[error]string{
	dedupq.ErrResultType: "result_type", dedupq.ErrTTL: "ttl_seconds", dedupq.ErrTags: "tags", dedupq.ErrTaskID: "task_id",
	dedupq.ErrSummary: "result_summary", dedupq.ErrCost: "actual_cost", dedupq.ErrThreshold: "similarity_threshold",
	suite.ErrDedupQNoContent: "content",
}

// dedupqError maps DedupQ's refusals to the suite's envelope.
func dedupqError(err error) error {
	if errors.Is(err, dedupq.ErrResultTooLarge) {
		return &suiteError{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
			Message: fmt.Sprintf("The result is over %d bytes (256 KiB).", dedupq.MaxResultBytes),
			Fix:     "Store a summary or a reference (a URL, a storage key) instead of the whole result."}
	}
	for e, field := range dedupqErrors {
		if errors.Is(err, e) {
			msg := e.Error()
			if strings.HasPrefix(msg, field) {
				return suiteInvalid(field, "Field "+msg+".")
			}
			return suiteInvalid(field, strings.ToUpper(msg[:1])+msg[1:]+".")
		}
	}
	return err
}

// dedupqPercent is part of whole as "42.5%" ("0.0%" of nothing).
func dedupqPercent(part, whole int64) string {
	if whole == 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// dedupqUSD formats dollars: cents from $1, four decimals below ("$0.0030").
func dedupqUSD(x float64) string {
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	if x == 0 || x >= 1 {
		return fmt.Sprintf("%s$%.2f", sign, x)
	}
	return fmt.Sprintf("%s$%.4f", sign, x)
}

// dedupqROI is the net savings over the cost of the service, as a percentage
// ("0%" before anything was spent).
func dedupqROI(net, cost float64) string {
	if cost == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*net/cost)
}
