package offline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"svc/adapters/llm"
)

func TestCheckIsDeterministic(t *testing.T) {
	w := New()
	for _, c := range []struct {
		criterion, output string
		clean             bool
		finding           string
	}{
		{llm.CheckTone, "Thanks for the report; the fix ships on Monday.", true, ""},
		{llm.CheckTone, "This is a STUPID idea and it is GUARANTEED to fail!!", false, "stupid"},
		{llm.CheckFactualClaims, "Revenue grew 40% in 2024.", false, "source of the figure"},
		{llm.CheckFactualClaims, "According to the 2024 annual report, revenue grew 40%.", true, ""},
		{llm.CheckInternalConsistency, "The budget is $10,000. Later on, the budget is $12,000.", false, "the budget"},
		{llm.CheckInternalConsistency, "The budget is $10,000. As said, the budget is $10,000.", true, ""},
	} {
		r := llm.Request{Kind: llm.KindCheck, Criterion: c.criterion, Context: c.output}
		a, err := w.Complete(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := w.Complete(context.Background(), r)
		if a.Text != b.Text {
			t.Errorf("not deterministic: %s / %s", a.Text, b.Text)
		}
		rv, err := llm.ParseReview(a.Text)
		if err != nil {
			t.Fatal(err)
		}
		if c.clean != (rv.Score == 100 && len(rv.PathTo100) == 0) {
			t.Errorf("%s %q: %+v", c.criterion, c.output, rv)
		}
		if c.finding != "" && !strings.Contains(strings.ToLower(strings.Join(rv.PathTo100, " ")), c.finding) {
			t.Errorf("%s %q: no %q in %+v", c.criterion, c.output, c.finding, rv)
		}
	}
	if _, err := w.Complete(context.Background(), llm.Request{Kind: llm.KindCheck, Criterion: "vibes"}); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("unknown criterion: %v", err)
	}
}
