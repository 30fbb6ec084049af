package httpapi

import (
	"errors"
	"strings"
	"time"
)

// errTimestamp is a query timestamp that does not parse.
var errTimestamp = errors.New("not an ISO 8601 timestamp")

// parseTimestamp reads a timestamp query parameter: RFC 3339 with an offset
// (a "+" of the offset may arrive decoded as a space) or a plain date, UTC
// midnight (date is then true). A date-time without an offset is refused:
// its zone would be a guess.
func parseTimestamp(v string) (t time.Time, date bool, err error) {
	v = strings.TrimSpace(v)
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		return d, true, nil
	}
	if i := strings.LastIndexByte(v, ' '); i > 0 { // "...T10:00:00 02:00": the + of the offset, unescaped
		v = v[:i] + "+" + v[i+1:]
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), false, nil
	}
	return time.Time{}, false, errTimestamp
}
