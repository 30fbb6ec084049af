package pitfalldb

import (
	"errors"
	"strings"
	"testing"
	"time"

	"svc/eventstore/event"
)

func fold(t *testing.T, p *Pitfall, ds ...Reported) {
	t.Helper()
	for _, d := range ds {
		if err := p.Apply(event.Recorded(Stream(p.ID()), p.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

func checked(t *testing.T, r Report) Report {
	t.Helper()
	c, err := r.Check()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVerificationRule(t *testing.T) {
	r := checked(t, Report{TaskType: "Web Scraping", TaskDescription: "prices", Failure: Failure{ErrorType: "ParseError", ErrorMessage: "unexpected token at 17"}})
	id, starter := PitfallID(r)
	if starter || r.TaskType != "web_scraping" {
		t.Fatalf("id %s starter %v type %q", id, starter, r.TaskType)
	}
	p := New(id)
	d := p.Report("r1", "org-a", r)
	if d.Verified || d.PitfallID != id || d.Severity != string(Medium) {
		t.Fatalf("first report %+v", d)
	}
	fold(t, p, d)
	// the same org again, no fix that worked: still unverified
	d = p.Report("r2", "org-a", r)
	if d.Verified {
		t.Fatal("two reports of one org without a fix verified it")
	}
	fold(t, p, d)
	// a second organization verifies it
	if d = p.Report("r3", "org-b", r); !d.Verified {
		t.Fatal("a second organization did not verify it")
	}
	// or: a fix that worked with two reports
	q := New(id)
	fold(t, q, q.Report("r1", "org-a", r))
	withFix := r
	withFix.Failure.FixApplied, withFix.Failure.FixWorked = "retry", true
	if d := q.Report("r2", "org-a", withFix); !d.Verified {
		t.Fatal("two reports with a fix that worked did not verify it")
	}
	if !Verified(true, 0, 0, 0) || Verified(false, 1, 1, 1) {
		t.Fatal("rule")
	}
}

func TestSignatureClusters(t *testing.T) {
	a := Failure{ErrorType: "TimeoutError", ErrorMessage: `Request to https://a.example.com/x timed out after 30s (id "abc")`}
	b := Failure{ErrorType: "timeout_error", ErrorMessage: `request to https://b.example.org/y/z timed out after 45s (id "zzz")`}
	if a.Signature() != b.Signature() {
		t.Errorf("%q != %q", a.Signature(), b.Signature())
	}
	c := Failure{ErrorType: "TimeoutError", ErrorMessage: "connection refused"}
	if a.Signature() == c.Signature() {
		t.Error("different messages share a signature")
	}
	ra := checked(t, Report{TaskType: "api_integration", TaskDescription: "x", Failure: Failure{ErrorType: "KeyError", ErrorMessage: "missing 'id'"}})
	rb := checked(t, Report{TaskType: "API integration", TaskDescription: "y", Failure: Failure{ErrorType: "KeyError", ErrorMessage: "missing 'name'"}})
	ia, _ := PitfallID(ra)
	ib, _ := PitfallID(rb)
	if ia != ib {
		t.Error("one failure in two spellings of a task type made two pitfalls")
	}
}

func TestStarters(t *testing.T) {
	ss := Starters()
	if len(ss) < 30 {
		t.Fatalf("%d starter pitfalls, want 30 or more", len(ss))
	}
	types := map[string]bool{}
	for _, s := range ss {
		types[s.TaskType] = true
		if s.Description == "" || len(s.Tags) == 0 || len(s.Signals) == 0 || s.AppliesTo.TaskType != s.TaskType {
			t.Errorf("starter %s incomplete", s.Slug)
		}
		for _, sig := range s.Signals {
			if sig != strings.ToLower(sig) {
				t.Errorf("starter %s: signal %q is not lower case", s.Slug, sig)
			}
		}
		if got, ok := StarterByID(s.ID); !ok || got.Slug != s.Slug {
			t.Errorf("starter %s by id", s.Slug)
		}
	}
	for _, want := range []string{"code_generation", "web_scraping", "data_extraction", "sql_generation", "summarization",
		"api_integration", "email_drafting", "research", "translation"} {
		if !types[want] {
			t.Errorf("no starter pitfall for %s", want)
		}
	}
	r := checked(t, Report{TaskType: "web_scraping", TaskDescription: "prices", Failure: Failure{ErrorType: "HTTPError", ErrorMessage: "429 Too Many Requests"}})
	id, starter := PitfallID(r)
	if s, _ := StarterByID(id); !starter || s.Slug != "scrape-rate-limited" {
		t.Fatalf("a 429 while scraping joined %s (starter %v)", id, starter)
	}
	p := New(id)
	if d := p.Report("r", "org", r); !d.Verified || !d.Starter {
		t.Fatalf("a starter pitfall's report %+v", d)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		r     Report
		field string
	}{
		{Report{TaskDescription: "x", Failure: Failure{ErrorType: "E"}}, "task_type"},
		{Report{TaskType: "!!!", TaskDescription: "x", Failure: Failure{ErrorType: "E"}}, "task_type"},
		{Report{TaskType: "t", Failure: Failure{ErrorType: "E"}}, "task_description"},
		{Report{TaskType: "t", TaskDescription: "x", Failure: Failure{FixApplied: "y"}}, "failure"},
		{Report{TaskType: "t", TaskDescription: strings.Repeat("x", MaxText+1), Failure: Failure{ErrorType: "E"}}, "task_description"},
		{Report{TaskType: "t", TaskDescription: "x", Failure: Failure{ErrorType: strings.Repeat("x", MaxShort+1)}}, "failure.error_type"},
	} {
		_, err := c.r.Check()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want a refusal of %s", c.r, err, c.field)
		}
	}
	r := checked(t, Report{TaskType: "t", TaskDescription: "for bob@example.com", Failure: Failure{ErrorMessage: "at /home/bob/x from 10.1.2.3",
		RootCause: "key sk-proj-abcdefghijklmnop1234", FixApplied: "call +1 415 555 0132", Language: "Python"}})
	all := r.TaskDescription + r.Failure.ErrorMessage + r.Failure.RootCause + r.Failure.FixApplied
	for _, bad := range []string{"bob", "10.1.2.3", "sk-proj", "555 0132"} {
		if strings.Contains(all, bad) {
			t.Errorf("%q survived the check: %q", bad, all)
		}
	}
	if got := TaskTypeOf("Email alice@example.com"); got != "email_email" {
		t.Errorf("a task type naming an email: %q", got)
	}
	if r.Failure.Language != "python" {
		t.Errorf("language %q", r.Failure.Language)
	}
}

func TestSeverityOf(t *testing.T) {
	for f, want := range map[Failure]Severity{
		{ErrorType: "DataLoss", ErrorMessage: "rows deleted by the agent"}: Critical,
		{ErrorMessage: "API key leaked in the log"}:                        Critical,
		{ErrorType: "WrongAnswer", RootCause: "the model hallucinated"}:    High,
		{ErrorMessage: "DeprecationWarning: use the new API"}:              Low,
		{ErrorType: "TimeoutError", ErrorMessage: "read timed out"}:        Medium,
	} {
		if got := SeverityOf(f); got != want {
			t.Errorf("%+v: %s, want %s", f, got, want)
		}
	}
}

func TestSummarizeAndRank(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	facts := []Fact{
		{OrgID: "a", ErrorType: "KeyError", ErrorMessage: "missing id", FixApplied: "retry", Language: "Python", Severity: Medium, At: t0},
		{OrgID: "a", ErrorType: "KeyError", ErrorMessage: "missing id", FixApplied: "validate", FixWorked: true, Language: "python", Severity: High, At: t0.Add(time.Hour)},
		{OrgID: "b", ErrorType: "KeyError", ErrorMessage: "missing id", FixApplied: "validate", FixWorked: false, Language: "go", RootCause: "schema drift", Severity: Low, At: t0.Add(2 * time.Hour)},
		{OrgID: "b", ErrorType: "KeyError", FixApplied: "retry", Severity: Low, At: t0.Add(3 * time.Hour)},
	}
	s := Summarize(false, "data_extraction", facts)
	if s.Reports != 4 || s.Orgs != 2 || !s.Verified || s.VerifiedAt == nil || !s.VerifiedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("summary %+v", s)
	}
	if s.Severity != High || s.Title != "KeyError: missing id" || s.Description != "schema drift" {
		t.Errorf("severity %s title %q description %q", s.Severity, s.Title, s.Description)
	}
	if s.Fix != "validate" || s.FixConfidence != 0.5 || s.AppliesTo.Language != "python" || len(s.Languages) != 2 {
		t.Errorf("fix %q %.2f language %q %v", s.Fix, s.FixConfidence, s.AppliesTo.Language, s.Languages)
	}
	if got := Summarize(false, "x", facts[:1]); got.Verified || got.Fix != NoFixYet || got.VerifiedAt != nil {
		t.Errorf("one report: %+v", got)
	}
	if f := Frequency(false, 12, 4); f != "reported 12 times by 4 organizations" {
		t.Error(f)
	}
	if f := Frequency(false, 1, 1); f != "reported 1 time by 1 organization" {
		t.Error(f)
	}

	cs := []Candidate{
		{ID: "low", Severity: Low, Reports: 50},
		{ID: "high-few", Severity: High, Reports: 2},
		{ID: "crit", Severity: Critical, Reports: 1},
		{ID: "high-many", Severity: High, Reports: 9, Relevance: 0.5},
	}
	Rank(cs, false)
	if ids(cs) != "crit high-many high-few low" {
		t.Errorf("ranked %s", ids(cs))
	}
	Rank(cs, true)
	if ids(cs) != "high-many crit high-few low" {
		t.Errorf("ranked with relevance %s", ids(cs))
	}
	c := Candidate{Languages: []string{"python"}}
	if !c.Matches(Filters{Language: "Python"}) || c.Matches(Filters{Language: "go"}) || !(Candidate{}).Matches(Filters{Provider: "openai"}) {
		t.Error("filters")
	}
}

func ids(cs []Candidate) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, " ")
}

func TestPitfallSnapshot(t *testing.T) {
	r := checked(t, Report{TaskType: "t", TaskDescription: "d", Failure: Failure{ErrorType: "E", FixApplied: "f", FixWorked: true}})
	id, _ := PitfallID(r)
	p := New(id)
	fold(t, p, p.Report("1", "a", r))
	fold(t, p, p.Report("2", "b", r))
	raw, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	q, err := FromSnapshot(id, p.Version(), raw)
	if err != nil || q.Reports() != 2 || q.Orgs() != 2 || !q.Verified() || q.Version() != p.Version() || !q.HasOrg("a") {
		t.Fatalf("from snapshot %+v %v", q, err)
	}
	if _, err := FromSnapshot(id, 0, []byte("{")); err == nil {
		t.Fatal("a broken snapshot decoded")
	}
}
