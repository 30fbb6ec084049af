package pitfalldb

import (
	"cmp"
	"slices"
	"strings"
)

// Candidate is a verified pitfall a query may return.
type Candidate struct {
	ID                      string
	Starter                 bool
	Severity                Severity
	Title, Description, Fix string
	FixConfidence           float64
	Reports, Orgs           int
	Tags                    []string
	AppliesTo               AppliesTo
	Languages, Frameworks   []string
	Providers               []string
	// Relevance is the cosine of the query's description and the
	// pitfall's text (0 without a description).
	Relevance float64
}

// FromStarter is starter pitfall s as a candidate with reports reports
// by orgs organizations.
func FromStarter(s Starter, reports, orgs int) Candidate {
	c := Candidate{ID: s.ID, Starter: true, Severity: s.Severity, Title: s.Title, Description: s.Description, Fix: s.Fix,
		FixConfidence: 1, Reports: reports, Orgs: orgs, Tags: append([]string{}, s.Tags...), AppliesTo: s.AppliesTo}
	for _, v := range []struct {
		into *[]string
		v    string
	}{{&c.Languages, s.AppliesTo.Language}, {&c.Frameworks, s.AppliesTo.Framework}, {&c.Providers, s.AppliesTo.Provider}} {
		if v.v != "" {
			*v.into = []string{strings.ToLower(v.v)}
		}
	}
	return c
}

// Filters narrow a query by what pitfalls apply to.
type Filters struct{ Language, Framework, Provider string }

// Matches reports whether c applies under f: for each filter given, c
// names no value of that kind (it applies to any) or names the filter's
// (case-insensitively).
func (c Candidate) Matches(f Filters) bool {
	ok := func(want string, have []string) bool {
		want = strings.ToLower(strings.TrimSpace(want))
		return want == "" || len(have) == 0 || slices.Contains(have, want)
	}
	return ok(f.Language, c.Languages) && ok(f.Framework, c.Frameworks) && ok(f.Provider, c.Providers)
}

// Text is what a query's description is compared with.
func (c Candidate) Text() string {
	return c.Title + ". " + c.Description + " " + strings.Join(c.Tags, " ")
}

// MinRelevance is the cosine from which a pitfall is relevant to a
// query's description (the local embedder's scale, decision 226).
const MinRelevance = 0.10

// Rank orders candidates (decision 226): by severity, critical first,
// then by report count; with a description (semantic), the relevant ones
// (Relevance >= MinRelevance) come before the others, and relevance
// breaks the remaining ties. The id breaks the last.
func Rank(cs []Candidate, semantic bool) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if semantic {
			if ra, rb := a.Relevance >= MinRelevance, b.Relevance >= MinRelevance; ra != rb {
				if ra {
					return -1
				}
				return 1
			}
		}
		if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Reports, a.Reports); c != 0 {
			return c
		}
		if semantic {
			if c := cmp.Compare(b.Relevance, a.Relevance); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
