package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"svc/domain/org"
	"svc/domain/workflow"
	"svc/projections"
)

// specStatuses are spec A's workflow statuses, the values the status filter
// accepts.
var specStatuses = []string{"pending", "planned", "queued", "executing", "step_executing", "resuming", "quality_review",
	"interactive_waiting", "pending_approval", "pending_human_review", "approved", "completed", "completed_partial",
	"failed", "cancelled", "timed_out", "blocked", "halted", "aborted"}

// historyWindow is how far back a tier sees its workflows in full; older
// rows are listed history_locked, without their task excerpt. 0: unlimited.
func historyWindow(t org.Tier) time.Duration {
	switch t {
	case org.Team, org.Enterprise:
		return 0
	case org.Pro:
		return 180 * 24 * time.Hour
	}
	return 30 * 24 * time.Hour
}

// workflowSummary is a row of GET /api/rigor/workflows.
type workflowSummary struct {
	WorkflowID        string     `json:"workflow_id"`
	Status            string     `json:"status"`
	TaskType          string     `json:"task_type"`
	CurrentStep       int        `json:"current_step"`
	TotalSteps        int        `json:"total_steps"`
	CreditsCharged    int        `json:"credits_charged"`
	CreatedAt         time.Time  `json:"created_at"`
	StartedAt         *time.Time `json:"started_at"`
	CompletedAt       *time.Time `json:"completed_at"`
	GeneratedTitle    *string    `json:"generated_title"`
	HistoryLocked     bool       `json:"history_locked"`
	CountsTowardLimit bool       `json:"counts_toward_limit"`
	AvailableActions  []string   `json:"available_actions"`
	ApprovalStatus    *string    `json:"approval_status,omitempty"`
	Error             *string    `json:"error,omitempty"`
	HaltReason        *string    `json:"halt_reason,omitempty"`
	HaltedAtStep      *int       `json:"halted_at_step,omitempty"`
	TaskExcerpt       excerpt    `json:"task_excerpt,omitzero"`
}

// excerpt is task_excerpt: absent on history-locked rows, else a string or
// null (no description).
type excerpt struct {
	shown bool
	text  string
}

// IsZero makes omitzero leave the field out when it is not shown.
func (e excerpt) IsZero() bool { return !e.shown }

// MarshalJSON implements json.Marshaler.
func (e excerpt) MarshalJSON() ([]byte, error) {
	if e.text == "" {
		return []byte("null"), nil
	}
	return json.Marshal(e.text)
}

// workflows is GET /api/rigor/workflows: the org's workflows, newest first,
// a page at a time, with the total under the filter and the concurrent
// summary.
func (s *Server) workflows(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	f, err := parseWorkflowFilter(r.URL.Query())
	if err != nil {
		return err
	}
	f.OrgID = p.OrgID
	page, err := s.queries.Workflows(ctx, f)
	if err != nil {
		return err
	}
	bal, err := s.queries.Balance(ctx, p.OrgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return err
	}
	window, now := historyWindow(p.Tier), time.Now()
	rows := make([]workflowSummary, 0, len(page.Workflows))
	for _, sm := range page.Workflows {
		row := workflowSummary{WorkflowID: sm.WorkflowID, Status: sm.Status, TaskType: sm.TaskType, CurrentStep: sm.CurrentStep,
			TotalSteps: sm.TotalSteps, CreditsCharged: sm.CreditsCharged, CreatedAt: sm.CreatedAt.UTC(), StartedAt: utc(sm.StartedAt),
			CompletedAt: utc(sm.CompletedAt), HistoryLocked: window > 0 && now.Sub(sm.CreatedAt) > window,
			CountsTowardLimit: sm.CountsTowardLimit, AvailableActions: availableActions(sm.Status),
			ApprovalStatus: sm.ApprovalStatus, Error: sm.Error, HaltReason: sm.HaltReason, HaltedAtStep: sm.HaltedAtStep}
		if sm.Title != "" {
			row.GeneratedTitle = &sm.Title
		}
		if !row.HistoryLocked {
			row.TaskExcerpt = excerpt{shown: true, text: sm.Excerpt}
		}
		rows = append(rows, row)
	}
	var cursor *string
	if page.Next != nil {
		c := page.Next.Encode()
		cursor = &c
	}
	concurrent := concurrentSummary{Active: page.Active}
	if limit := int64(workflow.ConcurrentLimit(string(p.Tier))); limit > 0 {
		remaining := max(limit-page.Active, 0)
		concurrent.Limit, concurrent.Remaining = &limit, &remaining
	}
	writeJSON(w, http.StatusOK, workflowsResponse{OK: true, metered: free(requestID(ctx), bal.Balance), Workflows: rows,
		Pagination:        pagination{Cursor: cursor, HasMore: page.Next != nil, TotalCount: page.Total, Limit: f.Limit},
		ConcurrentSummary: concurrent})
	return nil
}

// workflowsResponse is the answer of GET /api/rigor/workflows.
type workflowsResponse struct {
	OK bool `json:"ok"`
	metered
	Workflows         []workflowSummary `json:"workflows"`
	Pagination        pagination        `json:"pagination"`
	ConcurrentSummary concurrentSummary `json:"concurrent_summary"`
}

// pagination is where a page of the listing stands; cursor (null on the
// last page) asks for the next one.
type pagination struct {
	Cursor     *string `json:"cursor"`
	HasMore    bool    `json:"has_more"`
	TotalCount int64   `json:"total_count"`
	Limit      int     `json:"limit"`
}

// concurrentSummary is the org's active workflows against its tier's
// concurrent limit (limit and remaining null without one).
type concurrentSummary struct {
	Active    int64  `json:"active"`
	Limit     *int64 `json:"limit"`
	Remaining *int64 `json:"remaining"`
}

// availableActions lists what bulk cancel can do to a workflow in status.
func availableActions(status string) []string {
	if a := workflow.CancelAction(status); a != "" {
		return []string{a}
	}
	return []string{}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// parseWorkflowFilter reads the query of GET /api/rigor/workflows; a bad
// value is 400 invalid_field naming the parameter.
func parseWorkflowFilter(q url.Values) (projections.WorkflowFilter, error) {
	f := projections.WorkflowFilter{Limit: 20, TaskType: strings.TrimSpace(q.Get("task_type")), FolderID: strings.TrimSpace(q.Get("folder_id"))}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 100 {
			return f, errInvalidField("limit", "must be an integer from 1 to 100.").withDetail("min", 1).withDetail("max", 100)
		}
		f.Limit = n
	}
	for _, list := range q["status"] {
		for _, st := range strings.Split(list, ",") {
			st = strings.TrimSpace(st)
			if st == "" || slices.Contains(f.Statuses, st) {
				continue
			}
			if !slices.Contains(specStatuses, st) {
				return f, errInvalidField("status", strconv.Quote(st)+" is not a workflow status.").withDetail("allowed", specStatuses)
			}
			f.Statuses = append(f.Statuses, st)
		}
	}
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"created_after", &f.CreatedAfter}, {"created_before", &f.CreatedBefore}} {
		if v := q.Get(b.name); v != "" {
			t, _, err := parseTimestamp(v)
			if err != nil {
				return f, errInvalidField(b.name, "must be an ISO 8601 timestamp such as 2026-03-01T00:00:00Z.")
			}
			*b.dst = &t
		}
	}
	switch v := q.Get("counts_toward_limit"); v {
	case "":
	case "true", "false":
		b := v == "true"
		f.CountsTowardLimit = &b
	default:
		return f, errInvalidField("counts_toward_limit", "must be true or false.")
	}
	if v := q.Get("cursor"); v != "" {
		c, err := projections.DecodeCursor(v)
		if err != nil {
			return f, errInvalidField("cursor", "pass pagination.cursor of the previous page unchanged.")
		}
		f.After = &c
	}
	search := q.Get("q")
	if utf8.RuneCountInString(search) > projections.MaxSearchLength {
		return f, errInvalidField("q", "at most 200 characters.").withDetail("max_length", projections.MaxSearchLength)
	}
	f.Terms = projections.SearchTerms(search)
	return f, nil
}
