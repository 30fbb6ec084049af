package guardrail_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"svc/domain/guardrail"
	"svc/eventstore/event"
)

func policy(t *testing.T, name string, priority int, rules string, opts ...func(*guardrail.Input)) *guardrail.Policy {
	t.Helper()
	in := guardrail.Input{Name: name, Priority: priority, Rules: json.RawMessage(rules)}
	for _, o := range opts {
		o(&in)
	}
	_, p, err := guardrail.NewPolicy("id-"+name, "org", "key", in)
	if err != nil {
		t.Fatalf("policy %s: %v", name, err)
	}
	return p
}

func action(t *testing.T, raw string) guardrail.Action {
	t.Helper()
	a, err := guardrail.ParseAction(json.RawMessage(raw), "proposed_action")
	if err != nil {
		t.Fatalf("action %s: %v", raw, err)
	}
	return a
}

func TestOperators(t *testing.T) {
	act := `{"type":"http","cost_estimate":150,"budget":"42.5","target":{"url":"https://evil.example/x"},"tags":["prod","pii"],"dry":false,"meta":null}`
	cases := []struct {
		rule string
		want bool
	}{
		{`{"operator":"eq","field":"type","value":"http"}`, true},
		{`{"operator":"eq","field":"cost_estimate","value":150.0}`, true},
		{`{"operator":"eq","field":"dry","value":false}`, true},
		{`{"operator":"eq","field":"meta","value":null}`, true},
		{`{"operator":"eq","field":"tags","value":["prod","pii"]}`, true},
		{`{"operator":"eq","field":"missing","value":null}`, false},
		{`{"operator":"starts_with","field":"target.url","value":"https://evil"}`, true},
		{`{"operator":"starts_with","field":"proposed_action.target.url","value":"https://evil"}`, true},
		{`{"operator":"starts_with","field":"cost_estimate","value":"1"}`, false},
		{`{"operator":"contains","field":"target.url","value":"evil"}`, true},
		{`{"operator":"contains","field":"tags","value":"pii"}`, true},
		{`{"operator":"contains","field":"tags","value":"dev"}`, false},
		{`{"operator":"eq","field":"tags.1","value":"pii"}`, true},
		{`{"operator":"gt","field":"cost_estimate","value":100}`, true},
		{`{"operator":"lt","field":"cost_estimate","value":100}`, false},
		{`{"operator":"gt","field":"budget","value":40}`, true},
		{`{"operator":"gt","field":"type","value":1}`, false},
		{`{"operator":"and","rules":[{"operator":"eq","field":"type","value":"http"},{"operator":"gt","field":"cost_estimate","value":1}]}`, true},
		{`{"operator":"or","rules":[{"operator":"eq","field":"type","value":"db"},{"operator":"gt","field":"cost_estimate","value":1}]}`, true},
		{`{"operator":"not","rules":[{"operator":"eq","field":"type","value":"http"}]}`, false},
		{`{"operator":"not","rules":[{"operator":"eq","field":"type","value":"db"}]}`, true},
	}
	a := action(t, act)
	for _, c := range cases {
		p := policy(t, "p", 0, "["+c.rule+"]")
		if got, _ := p.Triggers(a); got != c.want {
			t.Errorf("%s: triggers %v, want %v", c.rule, got, c.want)
		}
	}
}

func TestEvaluateOrderAndReason(t *testing.T) {
	low := policy(t, "low", 0, `[{"operator":"gt","field":"cost_estimate","value":10}]`)
	high := policy(t, "high", 5, `[{"operator":"starts_with","field":"target.url","value":"https://evil"},{"operator":"gt","field":"cost_estimate","value":100}]`)
	other := policy(t, "other", 9, `[{"operator":"eq","field":"type","value":"db"}]`, func(in *guardrail.Input) { in.ActionTypes = []string{"db"} })
	ps := []*guardrail.Policy{low, other, high}
	guardrail.Order(ps)
	if ps[0] != other || ps[1] != high || ps[2] != low {
		t.Fatalf("order: %s %s %s", ps[0].Spec.Name, ps[1].Spec.Name, ps[2].Spec.Name)
	}
	d := guardrail.Evaluate(ps, action(t, `{"type":"http","cost_estimate":150,"target":{"url":"https://evil.example"}}`))
	want := `Policy high: rule target.url starts_with "https://evil" and cost_estimate gt 100 matched`
	if d.Decision != guardrail.Deny || d.Policy != high || d.Reason != want || d.Evaluated != 2 {
		t.Fatalf("decision %+v", d)
	}
	d = guardrail.Evaluate(ps, action(t, `{"type":"http","cost_estimate":50}`))
	if d.Decision != guardrail.Deny || d.Policy != low {
		t.Fatalf("decision %+v", d)
	}
	d = guardrail.Evaluate(ps, action(t, `{"type":"http","cost_estimate":5}`))
	if d.Decision != guardrail.Allow || d.Policy != nil {
		t.Fatalf("decision %+v", d)
	}
	// an allow policy above a deny one is an exception to it
	exc := policy(t, "exception", 20, `[{"operator":"eq","field":"agent","value":"ops"}]`, func(in *guardrail.Input) { in.Effect = "allow" })
	ps = append(ps, exc)
	guardrail.Order(ps)
	d = guardrail.Evaluate(ps, action(t, `{"type":"http","cost_estimate":50,"agent":"ops"}`))
	if d.Decision != guardrail.Allow || d.Policy != exc {
		t.Fatalf("decision %+v", d)
	}
	// determinism: the same input, the same decision
	for range 10 {
		if again := guardrail.Evaluate(ps, action(t, `{"type":"http","cost_estimate":50,"agent":"ops"}`)); again.Reason != d.Reason {
			t.Fatal("not deterministic")
		}
	}
}

func TestValidationNamesThePath(t *testing.T) {
	cases := []struct{ rules, field string }{
		{``, "rules"},
		{`[]`, "rules"},
		{`{}`, "rules"},
		{`[{"field":"x","value":1}]`, "rules[0].operator"},
		{`[{"operator":"matches","field":"x","value":1}]`, "rules[0].operator"},
		{`[{"operator":"eq","value":1}]`, "rules[0].field"},
		{`[{"operator":"eq","field":"a..b","value":1}]`, "rules[0].field"},
		{`[{"operator":"eq","field":"x"}]`, "rules[0].value"},
		{`[{"operator":"gt","field":"x","value":"1"}]`, "rules[0].value"},
		{`[{"operator":"starts_with","field":"x","value":1}]`, "rules[0].value"},
		{`[{"operator":"eq","field":"x","value":1},{"operator":"or","rules":[{"field":"y"}]}]`, "rules[1].rules[0].operator"},
		{`[{"operator":"eq","field":"x","value":1},{"operator":"and"}]`, "rules[1].rules"},
		{`[{"operator":"not","rules":[]}]`, "rules[0].rules"},
		{`[{"operator":"and","field":"x","rules":[{"operator":"eq","field":"x","value":1}]}]`, "rules[0].field"},
		{`[{"operator":"eq","field":"x","value":1,"rules":[{"operator":"eq","field":"x","value":1}]}]`, "rules[0].rules"},
		{`["eq"]`, "rules[0]"},
	}
	for _, c := range cases {
		_, _, err := guardrail.NewPolicy("id", "org", "key", guardrail.Input{Name: "n", Rules: json.RawMessage(c.rules)})
		var ie *guardrail.InvalidError
		if !errors.As(err, &ie) || ie.Field != c.field || !errors.Is(err, guardrail.ErrInvalid) {
			t.Errorf("%s: %v, want a refusal of %s", c.rules, err, c.field)
		}
	}
	ok := json.RawMessage(`[{"operator":"eq","field":"x","value":1}]`)
	for in, field := range map[*guardrail.Input]string{
		{Rules: ok}:                         "name",
		{Name: "n", Rules: ok, Effect: "x"}: "effect",
		{Name: "n", Rules: ok, ActionTypes: []string{"a", " "}}:                                                          "action_types[1]",
		{Name: "n", Rules: ok, Tests: json.RawMessage(`[{"name":"t","expect":"deny"}]`)}:                                 "tests[0].proposed_action",
		{Name: "n", Rules: ok, Tests: json.RawMessage(`[{"name":"t","proposed_action":{}}]`)}:                            "tests[0].proposed_action.type",
		{Name: "n", Rules: ok, Tests: json.RawMessage(`[{"name":"t","proposed_action":{"type":"a"},"expect":"maybe"}]`)}: "tests[0].expect",
		{Name: "n", Rules: ok, Tests: json.RawMessage(`[{"proposed_action":{"type":"a"},"expect":"deny"}]`)}:             "tests[0].name",
	} {
		_, _, err := guardrail.NewPolicy("id", "org", "key", *in)
		var ie *guardrail.InvalidError
		if !errors.As(err, &ie) || ie.Field != field {
			t.Errorf("%+v: %v, want a refusal of %s", in, err, field)
		}
	}
}

func TestPolicyTests(t *testing.T) {
	rules := json.RawMessage(`[{"operator":"gt","field":"cost_estimate","value":100}]`)
	tests := json.RawMessage(`[{"name":"cheap","proposed_action":{"type":"a","cost_estimate":5},"expect":"allow"},
		{"name":"dear","proposed_action":{"type":"a","cost_estimate":500},"expect":"deny"}]`)
	spec, _, err := guardrail.NewPolicy("id", "org", "key", guardrail.Input{Name: "n", Rules: rules, Tests: tests})
	if err != nil || len(spec.Tests) != 2 {
		t.Fatalf("%v %+v", err, spec)
	}
	bad := json.RawMessage(`[{"name":"cheap","proposed_action":{"type":"a","cost_estimate":5},"expect":"deny"}]`)
	_, _, err = guardrail.NewPolicy("id", "org", "key", guardrail.Input{Name: "n", Rules: rules, Tests: bad})
	var ie *guardrail.InvalidError
	if !errors.As(err, &ie) || ie.Field != "tests[0]" {
		t.Fatalf("failing test: %v", err)
	}
	// the stored policy compiles back to the same behaviour
	p, err := guardrail.Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := p.Triggers(action(t, `{"type":"a","cost_estimate":101}`)); !ok {
		t.Fatal("compiled policy does not trigger")
	}
}

func TestActionAndAgent(t *testing.T) {
	for raw, field := range map[string]string{``: "proposed_action", `[]`: "proposed_action", `{}`: "proposed_action.type",
		`{"type":3}`: "proposed_action.type", `{"type":" "}`: "proposed_action.type"} {
		_, err := guardrail.ParseAction(json.RawMessage(raw), "proposed_action")
		var ie *guardrail.InvalidError
		if !errors.As(err, &ie) || ie.Field != field {
			t.Errorf("%q: %v, want %s", raw, err, field)
		}
	}
	if guardrail.CheckAgent("") == nil || guardrail.CheckAgent("a") != nil {
		t.Fatal("agent id check")
	}
}

func TestNameReservation(t *testing.T) {
	if guardrail.NameKey("o", " Block  Big ") != guardrail.NameKey("o", "block big") {
		t.Fatal("names differing in case and space must share a key")
	}
	n := guardrail.NewName()
	data, err := n.Reserve("p1", "o")
	if err != nil || len(data) != 1 {
		t.Fatal(err)
	}
	if err := n.Apply(event.Recorded("s", 0, time.Now(), data[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Reserve("p2", "o"); !errors.Is(err, guardrail.ErrNameTaken) {
		t.Fatalf("second reservation: %v", err)
	}
	if again, err := n.Reserve("p1", "o"); err != nil || len(again) != 0 {
		t.Fatal("the holder reserving again is nothing")
	}
}

func TestPolicyDeletion(t *testing.T) {
	st := guardrail.NewStored()
	if _, err := st.Delete("o", "k"); !errors.Is(err, guardrail.ErrPolicyNotFound) {
		t.Fatalf("deleting a policy never created: %v", err)
	}
	spec := guardrail.PolicyCreated{PolicyID: "p1", OrgID: "o", Name: "Block big"}
	if err := st.Apply(event.Recorded("s", 0, time.Now(), spec)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete("other", "k"); !errors.Is(err, guardrail.ErrPolicyNotFound) {
		t.Fatalf("another organization deleting it: %v", err)
	}
	data, err := st.Delete("o", "k")
	if err != nil || len(data) != 1 || data[0].(guardrail.PolicyDeleted).DeletedBy != "k" {
		t.Fatalf("delete: %v %v", data, err)
	}
	if err := st.Apply(event.Recorded("s", 1, time.Now(), data[0])); err != nil {
		t.Fatal(err)
	}
	if again, err := st.Delete("o", "k"); err != nil || len(again) != 0 {
		t.Fatalf("deleting again is nothing: %v %v", again, err)
	}

	// the name goes free with it, and only its holder frees it
	n := guardrail.NewName()
	reserved, _ := n.Reserve("p1", "o")
	if err := n.Apply(event.Recorded("n", 0, time.Now(), reserved[0])); err != nil {
		t.Fatal(err)
	}
	if other := n.Release("p2", "o"); len(other) != 0 {
		t.Fatal("a policy that does not hold the name released it")
	}
	released := n.Release("p1", "o")
	if len(released) != 1 {
		t.Fatal("the holder did not release the name")
	}
	if err := n.Apply(event.Recorded("n", 1, time.Now(), released[0])); err != nil {
		t.Fatal(err)
	}
	if data, err := n.Reserve("p2", "o"); err != nil || len(data) != 1 {
		t.Fatalf("a released name is not free: %v", err)
	}
}
