package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"time"

	"svc/projections"
)

// browserSession names the usage of calls made without an API key.
const browserSession = "Browser session"

// usageSum is what a group of usage cells adds up to.
type usageSum struct{ credits, calls, steps, workflows int64 }

func (u *usageSum) add(c projections.UsageCell) {
	u.credits += c.Credits
	u.calls += c.Calls
	u.steps += c.Steps
	u.workflows += c.Workflows
}

// usageGroup is one group of a breakdown; id "" is the group without one
// (no key, no workspace, no task type).
type usageGroup struct {
	id string
	usageSum
}

// groupUsage sums cells by id, largest spend first (then by id, the group
// without an id last).
func groupUsage(cells []projections.UsageCell, id func(projections.UsageCell) string) []usageGroup {
	sums := map[string]*usageSum{}
	for _, c := range cells {
		k := id(c)
		if sums[k] == nil {
			sums[k] = &usageSum{}
		}
		sums[k].add(c)
	}
	out := make([]usageGroup, 0, len(sums))
	for k, s := range sums {
		out = append(out, usageGroup{k, *s})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.credits != b.credits {
			return a.credits > b.credits
		}
		if (a.id == "") != (b.id == "") {
			return b.id == ""
		}
		return a.id < b.id
	})
	return out
}

// total sums every cell.
func total(cells []projections.UsageCell) usageSum {
	var s usageSum
	for _, c := range cells {
		s.add(c)
	}
	return s
}

// nullable is s, or JSON null for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// usageData is what both usage endpoints read: the period's cells, the
// org's key and workspace names and its balance.
type usageData struct {
	cells            []projections.UsageCell
	keys, workspaces map[string]string
	balance          int64
}

func (s *Server) readUsage(ctx context.Context, orgID string, from, to time.Time, unit string) (usageData, error) {
	var (
		d   usageData
		err error
	)
	if d.cells, err = projections.UsageCells(ctx, s.store.Pool(), orgID, from, to, unit); err != nil {
		return d, err
	}
	if d.keys, d.workspaces, err = projections.UsageNames(ctx, s.store.Pool(), orgID); err != nil {
		return d, err
	}
	b, err := projections.Balance(ctx, s.store.Pool(), orgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return d, err
	}
	d.balance = b.Balance
	return d, nil
}

// keyName is the display name of a key id ("" for a browser session).
func (d usageData) keyName(id string) string {
	if id == "" {
		return browserSession
	}
	if n, ok := d.keys[id]; ok {
		return n
	}
	return id
}

// usageSummary is GET /api/rigor/usage-summary?from=&to=&granularity=.
func (s *Server) usageSummary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	now := time.Now()
	from, to, err := usagePeriod(q, now)
	if err != nil {
		return err
	}
	unit := q.Get("granularity")
	switch unit {
	case "":
		unit = "day"
	case "hour", "day", "week", "month":
	default:
		return errInvalidField("granularity", "must be hour, day, week or month.")
	}
	starts, err := buckets(from, to, unit, "granularity")
	if err != nil {
		return err
	}
	p, _ := principalOf(r.Context())
	d, err := s.readUsage(r.Context(), p.OrgID, from, to, unit)
	if err != nil {
		return err
	}
	period := total(d.cells)
	end := to
	if now.Before(end) {
		end = now.UTC()
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "request_id": requestID(r.Context()), "credits_used": 0, "credits_remaining": d.balance,
		"balance":                map[string]any{"credits": d.balance, "usd": usd(d.balance)},
		"burn_rate":              burnRate(d.cells, from, end),
		"period_totals":          map[string]any{"credits": period.credits, "usd": usd(period.credits), "workflow_count": period.workflows, "by_surface": bySurface(d.cells)},
		"trend":                  trend(d.cells, starts, unit),
		"breakdown_by_workspace": d.byWorkspace(period.credits),
		"breakdown_by_task_type": d.byTaskType(period.credits),
		"breakdown_by_api_key":   d.byKey(period.credits),
	})
	return nil
}

// bySurface is {workflow:{credits, usd}, gateway:{credits, usd}}.
func bySurface(cells []projections.UsageCell) map[string]any {
	out := map[string]any{}
	sums := map[string]int64{}
	for _, c := range cells {
		sums[c.Surface] += c.Credits
	}
	for _, sf := range []string{projections.SurfaceWorkflow, projections.SurfaceGateway} {
		out[sf] = map[string]any{"credits": sums[sf], "usd": usd(sums[sf])}
	}
	return out
}

// burnRate is the net spend per day over [from, end), end being the end
// of the period or now, whichever is earlier.
func burnRate(cells []projections.UsageCell, from, end time.Time) map[string]any {
	days := max(end.Sub(from).Hours()/24, 0)
	perDay := func(credits int64) map[string]any {
		if days == 0 {
			return map[string]any{"credits_per_day": 0.0, "usd_per_day": 0.0}
		}
		c := float64(credits) / days
		return map[string]any{"credits_per_day": round(c, 2), "usd_per_day": round(c/1000, 5)}
	}
	out := perDay(total(cells).credits)
	out["window_days"] = round(days, 2)
	sums := map[string]int64{}
	for _, c := range cells {
		sums[c.Surface] += c.Credits
	}
	out["by_surface"] = map[string]any{
		projections.SurfaceWorkflow: perDay(sums[projections.SurfaceWorkflow]),
		projections.SurfaceGateway:  perDay(sums[projections.SurfaceGateway]),
	}
	return out
}

// trend lists every bucket of the period, empty ones included.
func trend(cells []projections.UsageCell, starts []time.Time, unit string) []map[string]any {
	byBucket := map[int64][]projections.UsageCell{}
	for _, c := range cells {
		byBucket[c.Bucket.Unix()] = append(byBucket[c.Bucket.Unix()], c)
	}
	out := make([]map[string]any, 0, len(starts))
	for _, b := range starts {
		in := byBucket[b.Unix()]
		sum := total(in)
		out = append(out, map[string]any{"bucket_start": isoTime(b), "bucket_end": isoTime(bucketNext(b, unit)),
			"credits": sum.credits, "usd": usd(sum.credits), "workflow_count": sum.workflows, "by_surface": bySurface(in)})
	}
	return out
}

func (d usageData) byWorkspace(period int64) []map[string]any {
	out := []map[string]any{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.WorkspaceID }) {
		share := 0.0
		if period > 0 {
			share = round(float64(g.credits)/float64(period), 4)
		}
		out = append(out, map[string]any{"workspace_id": nullable(g.id), "workspace_name": nullable(d.workspaces[g.id]),
			"credits": g.credits, "usd": usd(g.credits), "share": share})
	}
	return out
}

func (d usageData) byTaskType(period int64) []map[string]any {
	out := []map[string]any{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.TaskType }) {
		out = append(out, map[string]any{"task_type": nullable(g.id), "credits": g.credits, "usd": usd(g.credits),
			"workflow_count": g.workflows, "pct": percent(g.credits, period)})
	}
	return out
}

func (d usageData) byKey(period int64) []map[string]any {
	out := []map[string]any{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.KeyID }) {
		out = append(out, map[string]any{"api_key_id": nullable(g.id), "api_key_name": d.keyName(g.id),
			"credits": g.credits, "usd": usd(g.credits), "call_count": g.calls, "pct": percent(g.credits, period)})
	}
	return out
}
