package contract

import (
	"fmt"
	"math"
	"sort"
)

// bound applies the selection and then the count bounds to conforming
// records; the violations it returns are count violations.
func (c Contract) bound(recs []*object) ([]*object, []Violation) {
	var out []Violation
	if s := c.Selection; s != nil {
		recs = s.apply(recs)
		if s.MinCount != nil && len(recs) < *s.MinCount {
			out = append(out, Violation{Message: fmt.Sprintf("%s left after selection; at least %d required", records(len(recs)), *s.MinCount)})
		}
	}
	if n := c.Count; n != nil {
		if n.Min != nil && len(recs) < *n.Min {
			out = append(out, Violation{Message: fmt.Sprintf("%s; at least %d required", records(len(recs)), *n.Min)})
		}
		if n.Max != nil && len(recs) > *n.Max {
			out = append(out, Violation{Message: fmt.Sprintf("%s; at most %d allowed", records(len(recs)), *n.Max)})
		}
	}
	return recs, out
}

// apply sorts by the score field (highest first, missing last, ties in the
// model's order), drops records below MinScore and keeps at most MaxCount.
func (s Selection) apply(recs []*object) []*object {
	scoreOf := func(o *object) float64 {
		if x, ok := score(o, s.ScoreField); ok {
			return x
		}
		return math.Inf(-1)
	}
	sorted := make([]*object, len(recs))
	copy(sorted, recs)
	sort.SliceStable(sorted, func(i, j int) bool { return scoreOf(sorted[i]) > scoreOf(sorted[j]) })
	kept := sorted[:0]
	for _, o := range sorted {
		if s.MinScore == nil || scoreOf(o) >= *s.MinScore {
			kept = append(kept, o)
		}
	}
	if s.MaxCount != nil && len(kept) > *s.MaxCount {
		kept = kept[:*s.MaxCount]
	}
	return kept
}

func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}
