package httpapi

import (
	"net/http"
	"time"

	"svc/projections"
)

// costGroupings are the group_by values of GET /api/rigor/costs: a bucket
// size, or a dimension.
var costGroupings = map[string]bool{"hour": true, "day": true, "week": true, "month": true,
	"task_type": false, "workspace": false, "api_key": false}

// costs is GET /api/rigor/costs?from=&to=&group_by=: what the org spent
// in the period, as workflows, steps, credits and revenue (the customer's
// spend in USD; raw provider costs are never shown to customer keys).
func (s *Server) costs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	from, to, err := usagePeriod(q, time.Now())
	if err != nil {
		return err
	}
	group := q.Get("group_by")
	if group == "" {
		group = "day"
	}
	byTime, ok := costGroupings[group]
	if !ok {
		return errInvalidField("group_by", "must be hour, day, week, month, task_type, workspace or api_key.")
	}
	unit := "month" // dimensions: any bucket size will do; the coarsest reads fewest rows
	var starts []time.Time
	if byTime {
		unit = group
		if starts, err = buckets(from, to, unit, "group_by"); err != nil {
			return err
		}
	}
	p, _ := principalOf(r.Context())
	d, err := s.readUsage(r.Context(), p.OrgID, from, to, unit)
	if err != nil {
		return err
	}
	var breakdown []costLine
	if byTime {
		breakdown = costsByTime(d.cells, starts, unit)
	} else {
		breakdown = s.costsBy(d, group)
	}
	writeJSON(w, http.StatusOK, costsResponse{
		OK: true, metered: free(requestID(r.Context()), d.balance),
		OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, RawCOGSVisible: false,
		Range: costRange{From: isoTime(from), To: isoTime(to)}, GroupBy: group,
		Summary: costFigures(total(d.cells)), Breakdown: breakdown,
	})
	return nil
}

// costsResponse is the answer of GET /api/rigor/costs.
type costsResponse struct {
	OK bool `json:"ok"`
	metered
	OrgID          string      `json:"org_id"`
	WorkspaceID    string      `json:"workspace_id"`
	RawCOGSVisible bool        `json:"raw_cogs_visible"`
	Range          costRange   `json:"range"`
	GroupBy        string      `json:"group_by"`
	Summary        costSummary `json:"summary"`
	Breakdown      []costLine  `json:"breakdown"`
}

// costRange is the period costs covers, [from, to).
type costRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// costSummary is what a group spent: workflows, steps, credits, revenue.
type costSummary struct {
	WorkflowCount int64   `json:"workflow_count"`
	StepCount     int64   `json:"step_count"`
	CreditsUsed   int64   `json:"credits_used"`
	RevenueUSD    float64 `json:"revenue_usd"`
}

// costLine is a group of the breakdown: key identifies it (a bucket's
// start, or an id; null for the group without one), label names it.
type costLine struct {
	Key   *string `json:"key"`
	Label *string `json:"label"`
	costSummary
}

// costFigures is the cost summary of u.
func costFigures(u usageSum) costSummary {
	return costSummary{WorkflowCount: u.workflows, StepCount: u.steps, CreditsUsed: u.credits, RevenueUSD: usd(u.credits)}
}

// costsByTime lists every bucket of the period, empty ones included; key
// is the bucket's start.
func costsByTime(cells []projections.UsageCell, starts []time.Time, unit string) []costLine {
	sums := map[int64]*usageSum{}
	for _, c := range cells {
		if sums[c.Bucket.Unix()] == nil {
			sums[c.Bucket.Unix()] = &usageSum{}
		}
		sums[c.Bucket.Unix()].add(c)
	}
	out := make([]costLine, 0, len(starts))
	for _, b := range starts {
		var u usageSum
		if s := sums[b.Unix()]; s != nil {
			u = *s
		}
		out = append(out, costLine{Key: nullable(isoTime(b)), Label: nullable(bucketLabel(b, unit)), costSummary: costFigures(u)})
	}
	return out
}

// costsBy groups by task type, workspace or key, largest spend first; key
// is the id (null for the group without one), label its display name.
func (s *Server) costsBy(d usageData, group string) []costLine {
	id := func(c projections.UsageCell) string { return c.TaskType }
	label := func(id string) *string {
		if t, ok := s.catalog.TaskType(id); ok {
			return &t.Label
		}
		return nullable(id)
	}
	switch group {
	case "workspace":
		id = func(c projections.UsageCell) string { return c.WorkspaceID }
		label = func(id string) *string { return nullable(d.workspaces[id]) }
	case "api_key":
		id = func(c projections.UsageCell) string { return c.KeyID }
		label = func(id string) *string { name := d.keyName(id); return &name }
	}
	out := []costLine{}
	for _, g := range groupUsage(d.cells, id) {
		out = append(out, costLine{Key: nullable(g.id), Label: label(g.id), costSummary: costFigures(g.usageSum)})
	}
	return out
}
