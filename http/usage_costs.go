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
	var breakdown []map[string]any
	if byTime {
		breakdown = costsByTime(d.cells, starts, unit)
	} else {
		breakdown = s.costsBy(d, group)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "request_id": requestID(r.Context()), "credits_used": 0, "credits_remaining": d.balance,
		"org_id": p.OrgID, "workspace_id": p.WorkspaceID, "raw_cogs_visible": false,
		"range": map[string]any{"from": isoTime(from), "to": isoTime(to)}, "group_by": group,
		"summary": costLine(total(d.cells)), "breakdown": breakdown,
	})
	return nil
}

// costLine is {workflow_count, step_count, credits_used, revenue_usd}.
func costLine(u usageSum) map[string]any {
	return map[string]any{"workflow_count": u.workflows, "step_count": u.steps, "credits_used": u.credits, "revenue_usd": usd(u.credits)}
}

// costsByTime lists every bucket of the period, empty ones included; key
// is the bucket's start.
func costsByTime(cells []projections.UsageCell, starts []time.Time, unit string) []map[string]any {
	sums := map[int64]*usageSum{}
	for _, c := range cells {
		if sums[c.Bucket.Unix()] == nil {
			sums[c.Bucket.Unix()] = &usageSum{}
		}
		sums[c.Bucket.Unix()].add(c)
	}
	out := make([]map[string]any, 0, len(starts))
	for _, b := range starts {
		var u usageSum
		if s := sums[b.Unix()]; s != nil {
			u = *s
		}
		line := costLine(u)
		line["key"], line["label"] = isoTime(b), bucketLabel(b, unit)
		out = append(out, line)
	}
	return out
}

// costsBy groups by task type, workspace or key, largest spend first; key
// is the id (null for the group without one), label its display name.
func (s *Server) costsBy(d usageData, group string) []map[string]any {
	id := func(c projections.UsageCell) string { return c.TaskType }
	label := func(id string) any {
		if t, ok := s.planner.Catalog().TaskType(id); ok {
			return t.Label
		}
		return nullable(id)
	}
	switch group {
	case "workspace":
		id = func(c projections.UsageCell) string { return c.WorkspaceID }
		label = func(id string) any { return nullable(d.workspaces[id]) }
	case "api_key":
		id = func(c projections.UsageCell) string { return c.KeyID }
		label = func(id string) any { return d.keyName(id) }
	}
	out := []map[string]any{}
	for _, g := range groupUsage(d.cells, id) {
		line := costLine(g.usageSum)
		line["key"], line["label"] = nullable(g.id), label(g.id)
		out = append(out, line)
	}
	return out
}
