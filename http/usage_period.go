package httpapi

import (
	"fmt"
	"math"
	"net/url"
	"time"

	"svc/domain/credit"
)

// Usage queries: the period, its buckets and money.
const (
	usageDefaultDays = 30
	// usageMaxBuckets bounds the buckets one answer lists (the trend, or
	// a time breakdown of costs): a year by day, or a month by hour, fit.
	usageMaxBuckets = 1000
)

// usagePeriod reads from and to (RFC 3339, or a date: from at its start, to
// at its end); the default is the 30 days up to now (rounded up to the
// second). The period is [from, to).
func usagePeriod(q url.Values, now time.Time) (from, to time.Time, err error) {
	to = now.UTC().Truncate(time.Second).Add(time.Second) // a whole second, not before now
	if v := q.Get("to"); v != "" {
		if to, err = parseUsageTime("to", v, true); err != nil {
			return from, to, err
		}
	}
	from = to.AddDate(0, 0, -usageDefaultDays)
	if v := q.Get("from"); v != "" {
		if from, err = parseUsageTime("from", v, false); err != nil {
			return from, to, err
		}
	}
	if !from.Before(to) {
		return from, to, errInvalidField("from", "must be before to ("+to.Format(time.RFC3339Nano)+").")
	}
	return from, to, nil
}

// parseUsageTime parses from or to (parseTimestamp); a date as to means
// the end of that day.
func parseUsageTime(field, v string, end bool) (time.Time, error) {
	t, date, err := parseTimestamp(v)
	if err != nil {
		return time.Time{}, errInvalidField(field, "must be an ISO 8601 timestamp such as 2026-01-31T00:00:00Z, or a date such as 2026-01-31.")
	}
	if date && end {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

// bucketStart is the start of t's bucket of unit, in UTC (weeks start on
// Monday, as PostgreSQL's date_trunc has them).
func bucketStart(t time.Time, unit string) time.Time {
	t = t.UTC()
	switch unit {
	case "hour":
		return t.Truncate(time.Hour)
	case "week":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	default:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
}

// bucketNext is the start of the bucket after the one starting at b.
func bucketNext(b time.Time, unit string) time.Time {
	switch unit {
	case "hour":
		return b.Add(time.Hour)
	case "week":
		return b.AddDate(0, 0, 7)
	case "month":
		return b.AddDate(0, 1, 0)
	default:
		return b.AddDate(0, 0, 1)
	}
}

// buckets lists the starts of the buckets of unit that [from, to)
// touches; err when there are more than usageMaxBuckets.
func buckets(from, to time.Time, unit, field string) ([]time.Time, error) {
	var out []time.Time
	for b := bucketStart(from, unit); b.Before(to); b = bucketNext(b, unit) {
		if len(out) == usageMaxBuckets {
			return nil, errInvalidField(field, fmt.Sprintf("the period holds more than %d %s buckets; shorten it or choose a longer bucket.", usageMaxBuckets, unit))
		}
		out = append(out, b)
	}
	return out, nil
}

// bucketLabel names a bucket: 2026-01-31T13:00Z, 2026-01-31, 2026-W05, 2026-01.
func bucketLabel(b time.Time, unit string) string {
	switch unit {
	case "hour":
		return b.Format("2006-01-02T15:04Z")
	case "week":
		y, w := b.ISOWeek()
		return fmt.Sprintf("%d-W%02d", y, w)
	case "month":
		return b.Format("2006-01")
	default:
		return b.Format(time.DateOnly)
	}
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// usd is credits in US dollars (1,000 credits a dollar).
func usd(credits int64) float64 { return float64(credits) / credit.PerUSD }

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// percent is part of total in percent (2 places); 0 when nothing was spent.
func percent(part, total int64) float64 {
	if total <= 0 {
		return 0
	}
	return round(100*float64(part)/float64(total), 2)
}
