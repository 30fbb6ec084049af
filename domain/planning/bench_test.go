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
