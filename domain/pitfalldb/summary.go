package pitfalldb

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Fact is what a pitfall's summary reads of one of its reports.
type Fact struct {
	OrgID                                          string
	ErrorType, ErrorMessage, RootCause, FixApplied string
	FixWorked                                      bool
	Language, Framework, Provider                  string
	Severity                                       Severity
	At                                             time.Time
}

// Summary is a pitfall as its reports make it: the read model's row.
type Summary struct {
	Reports, Orgs, FixesWorked int
	Verified                   bool
	// VerifiedAt is when the rule first held, folding the reports in
	// order (nil while it does not).
	VerifiedAt         *time.Time
	First, Last        time.Time
	Severity           Severity
	Title, Description string
	Fix                string
	FixConfidence      float64
	AppliesTo          AppliesTo
	Languages          []string
	Frameworks         []string
	Providers          []string
	Tags               []string
}

// NoFixYet is a pitfall's fix while no report names a fix that worked.
const NoFixYet = "No confirmed fix yet."

// Summarize summarizes the reports of pitfall (starter when it is a
// starter pitfall's) of taskType, facts in the order they were reported
// (decision 224): the gravest severity reported, the title of the first
// report, the latest root cause, the fix that worked most often and the
// share of the reports naming it that say it worked, the commonest
// language, framework and provider.
func Summarize(starter bool, taskType string, facts []Fact) Summary {
	s := Summary{Reports: len(facts), Severity: Low, Fix: NoFixYet, AppliesTo: AppliesTo{TaskType: taskType},
		Languages: []string{}, Frameworks: []string{}, Providers: []string{}, Tags: []string{}}
	orgs := map[string]bool{}
	type fix struct{ named, worked, first int }
	fixes := map[string]*fix{}
	langs, fws, provs := map[string]int{}, map[string]int{}, map[string]int{}
	for i, f := range facts {
		orgs[f.OrgID] = true
		if f.FixWorked {
			s.FixesWorked++
		}
		if s.VerifiedAt == nil && Verified(starter, i+1, len(orgs), s.FixesWorked) {
			at := f.At
			s.VerifiedAt = &at
		}
		if i == 0 {
			s.First = f.At
			s.Title = title(f)
		}
		s.Last = f.At
		if f.Severity.Rank() > s.Severity.Rank() {
			s.Severity = f.Severity
		}
		if d := firstNonEmpty(f.RootCause, f.ErrorMessage); d != "" {
			s.Description = d
		}
		if k := strings.TrimSpace(f.FixApplied); k != "" {
			x := fixes[k]
			if x == nil {
				x = &fix{first: i}
				fixes[k] = x
			}
			x.named++
			if f.FixWorked {
				x.worked++
			}
		}
		count(langs, f.Language)
		count(fws, f.Framework)
		count(provs, f.Provider)
	}
	s.Orgs = len(orgs)
	s.Verified = Verified(starter, s.Reports, s.Orgs, s.FixesWorked)
	best, bestFix := "", (*fix)(nil)
	for k, x := range fixes {
		if x.worked == 0 {
			continue
		}
		if bestFix == nil || x.worked > bestFix.worked || x.worked == bestFix.worked && (x.named < bestFix.named ||
			x.named == bestFix.named && x.first < bestFix.first) {
			best, bestFix = k, x
		}
	}
	if bestFix != nil {
		s.Fix, s.FixConfidence = best, float64(bestFix.worked)/float64(bestFix.named)
	}
	s.Languages, s.AppliesTo.Language = keys(langs)
	s.Frameworks, s.AppliesTo.Framework = keys(fws)
	s.Providers, s.AppliesTo.Provider = keys(provs)
	if len(facts) > 0 {
		if t := errorTypeKey(facts[0].ErrorType); t != "" {
			s.Tags = append(s.Tags, t)
		}
	}
	for _, t := range [][]string{s.Languages, s.Frameworks, s.Providers} {
		for _, v := range t {
			if !slices.Contains(s.Tags, v) {
				s.Tags = append(s.Tags, v)
			}
		}
	}
	return s
}

// title names a pitfall by its first report: "ErrorType: message".
func title(f Fact) string {
	t := f.ErrorType
	if m := firstNonEmpty(f.ErrorMessage, f.RootCause); m != "" {
		if t != "" {
			t += ": "
		}
		t += m
	}
	if r := []rune(t); len(r) > 140 {
		t = string(r[:139]) + "…"
	}
	return t
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func count(m map[string]int, v string) {
	if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
		m[v]++
	}
}

// keys are m's keys sorted, and the commonest (the first in order on a
// tie; "" for none).
func keys(m map[string]int) ([]string, string) {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	mode := ""
	for _, k := range out {
		if mode == "" || m[k] > m[mode] {
			mode = k
		}
	}
	return out, mode
}

// Frequency describes how often a pitfall was reported, for spec C's
// frequency field: "reported 12 times by 4 organizations", or for a
// starter pitfall "known pitfall (starter set)" and its reports.
func Frequency(starter bool, reports, orgs int) string {
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	f := "reported " + plural(reports, "time", "times") + " by " + plural(orgs, "organization", "organizations")
	if starter {
		if reports == 0 {
			return "known pitfall (starter set); not reported yet"
		}
		return "known pitfall (starter set); " + f
	}
	return f
}
