package planning_test

import (
	"testing"

	"svc/domain/planning"
)

// BenchmarkPlan is classification plus plan building, without persistence.
func BenchmarkPlan(b *testing.B) {
	pl := planning.NewPlanner(cat)
	req := planning.Request{Description: "compare our pricing with three competitors for the board", Preferences: planning.Preferences{RigorLevel: "standard"}}
	for b.Loop() {
		if _, err := pl.Plan(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify is the classifier alone, on a typical description.
func BenchmarkClassify(b *testing.B) {
	cl := planning.NewClassifier(cat)
	for b.Loop() {
		cl.Classify("compare our pricing with three competitors for the board")
	}
}

// BenchmarkNewClassifier indexes the catalogue (once per planner).
func BenchmarkNewClassifier(b *testing.B) {
	for b.Loop() {
		planning.NewClassifier(cat)
	}
}

// BenchmarkAnalyze is the whole reading of a long description with
// background, figures and two asks (clauses, deliverables, both tiers).
func BenchmarkAnalyze(b *testing.B) {
	cl := planning.NewClassifier(cat)
	const d = "We're a 40-person fintech in Lisbon; churn went from 3% to 5% last quarter and the board meets on the 12th. " +
		"Write a short internal announcement about the new retention team, and separately put together a risk assessment of moving our payments provider."
	for b.Loop() {
		cl.Analyze(d)
	}
}

// BenchmarkAnalyzeGerman reads a German description (lexicon, compounds).
func BenchmarkAnalyzeGerman(b *testing.B) {
	cl := planning.NewClassifier(cat)
	for b.Loop() {
		cl.Analyze("Bitte erstelle eine Wettbewerbsanalyse unserer drei wichtigsten Konkurrenten im Kundenabwanderungsmarkt.")
	}
}
