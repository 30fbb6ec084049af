package httpapi

import (
	"net/url"
	"testing"
	"time"

	"svc/projections"
)

func TestUsageBuckets(t *testing.T) {
	at := time.Date(2026, 3, 4, 13, 45, 0, 0, time.FixedZone("CET", 3600)) // a Wednesday, 12:45 UTC
	for unit, want := range map[string]string{
		"hour": "2026-03-04T12:00:00Z", "day": "2026-03-04T00:00:00Z", "week": "2026-03-02T00:00:00Z", "month": "2026-03-01T00:00:00Z",
	} {
		if got := isoTime(bucketStart(at, unit)); got != want {
			t.Errorf("%s bucket of %v: %s, want %s", unit, at, got, want)
		}
	}
	if got := bucketLabel(time.Date(2026, 1, 26, 0, 0, 0, 0, time.UTC), "week"); got != "2026-W05" {
		t.Errorf("week label %s", got)
	}
	from, to := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if b, err := buckets(from, to, "month", "granularity"); err != nil || len(b) != 2 || !b[1].Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("months of Jan 31 to Mar 1: %v %v", b, err)
	}
	if _, err := buckets(from, from.AddDate(0, 0, 42), "hour", "granularity"); err == nil {
		t.Error("1,008 hour buckets accepted")
	}
}

func TestUsagePeriod(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 500, time.UTC)
	from, to, err := usagePeriod(url.Values{}, now)
	if err != nil || !to.Equal(now.Truncate(time.Second).Add(time.Second)) || to.Sub(from) != 30*24*time.Hour {
		t.Errorf("default period %v to %v (%v)", from, to, err)
	}
	from, to, err = usagePeriod(url.Values{"from": {"2026-01-01"}, "to": {"2026-01-31"}}, now)
	if err != nil || isoTime(from) != "2026-01-01T00:00:00Z" || isoTime(to) != "2026-02-01T00:00:00Z" {
		t.Errorf("dates: %v to %v (%v): want to at the end of its day", from, to, err)
	}
	if from, _, err = usagePeriod(url.Values{"from": {"2026-01-01T10:00:00 01:00"}}, now); err != nil || isoTime(from) != "2026-01-01T09:00:00Z" {
		t.Errorf("an offset whose + became a space: %v %v", from, err)
	}
	for _, q := range []url.Values{{"from": {"2026-02-30"}}, {"to": {"soon"}}, {"from": {"2026-03-05"}}, {"from": {"2026-02-01"}, "to": {"2026-01-01"}}} {
		if _, _, err := usagePeriod(q, now); err == nil {
			t.Errorf("%v accepted", q)
		}
	}
}

func TestUsageGrouping(t *testing.T) {
	cells := []projections.UsageCell{
		{KeyID: "b", Credits: 10, Calls: 1}, {KeyID: "", Credits: 30, Calls: 2}, {KeyID: "a", Credits: 30, Calls: 1},
		{KeyID: "b", Credits: -10}, {KeyID: "c", Credits: 30},
	}
	groups := groupUsage(cells, func(c projections.UsageCell) string { return c.KeyID })
	var order []string
	for _, g := range groups {
		order = append(order, g.id)
	}
	if len(order) != 4 || order[0] != "a" || order[1] != "c" || order[2] != "" || order[3] != "b" || groups[3].credits != 0 || groups[3].calls != 1 {
		t.Errorf("groups %+v: want the largest spend first, the keyless group last among equals, refunds netted", groups)
	}
	if percent(1, 3) != 33.33 || percent(5, 0) != 0 || usd(1234) != 1.234 {
		t.Error("percent or usd")
	}
}
