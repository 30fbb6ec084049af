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
