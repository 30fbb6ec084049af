package qualitygate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"svc/eventstore/event"
)

func words(t *testing.T, s string) Directive {
	t.Helper()
	ds, err := ParseWords(s)
	if err != nil || len(ds) != 1 {
		t.Fatalf("ParseWords(%q) = %v, %v", s, ds, err)
	}
	return ds[0]
}

func TestParseWords(t *testing.T) {
	for _, c := range []struct{ in, typ, value string }{
		{"must include pricing", "must_include", "pricing"},
		{"Mention \"SLA\".", "must_include", "SLA"},
		{"must not mention competitors", "must_not_include", "competitors"},
		{"Do not mention 'Acme'", "must_not_include", "Acme"},
		{"avoid jargon", "must_not_include", "jargon"},
		{"no more than 500 words", "max_length", "500 words"},
		{"Keep it under 200 words", "max_length", "199 words"},
		{"at least 3 lines", "min_length", "3 lines"},
		{"max length 1000", "max_length", "1000 characters"},
		{"respond in JSON", "format", "json"},
		{"must match /^#\\s/m", "must_match", "(?m)^#\\s"},
		{"must not match /lorem/i", "must_not_match", "(?i)lorem"},
		{"TypeScript", "must_include", "TypeScript"},
		{"Use a professional tone", "unrecognised", "Use a professional tone"},
		{"The answer should read like a friendly note to a customer", "unrecognised", "The answer should read like a friendly note to a customer"},
	} {
		d := words(t, c.in)
		if string(d.Type) != c.typ || d.Value != c.value || d.Text != c.in {
			t.Errorf("%q: got %s %q", c.in, d.Type, d.Value)
		}
	}
	ds, err := ParseWords(`must include "alpha" and "beta"`)
	if err != nil || len(ds) != 2 || ds[0].Value != "alpha" || ds[1].Value != "beta" {
		t.Errorf("two quoted values: %+v %v", ds, err)
	}
	if _, err := ParseWords("must match /(/"); !errors.Is(err, ErrPattern) {
		t.Errorf("bad pattern in words: %v", err)
	}
	if _, err := ParseWords("  "); !errors.Is(err, ErrDirectiveValue) {
		t.Errorf("empty: %v", err)
	}
}

func TestNewDirective(t *testing.T) {
	if _, err := NewDirective("must_shout", "x", ""); !errors.Is(err, ErrDirectiveType) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := NewDirective("must_match", "a(b", ""); !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), "a(b") {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := NewDirective("max_length", "lots", ""); !errors.Is(err, ErrDirectiveValue) {
		t.Errorf("bad length: %v", err)
	}
	if _, err := NewDirective("must_include", " ", ""); !errors.Is(err, ErrDirectiveValue) {
		t.Errorf("empty include: %v", err)
	}
	d, err := NewDirective("min_length", "20 words", "long enough")
	if n, u := d.Length(); err != nil || n != 20 || u != UnitWords || d.Label() != "long enough" {
		t.Errorf("min_length: %+v %v", d, err)
	}
}

func run(t *testing.T, r Request, output string) *Result {
	t.Helper()
	p, err := NewPlan(r)
	if err != nil {
		t.Fatal(err)
	}
	res := p.Check(output)
	res.Finish(false, "")
	return res
}

func must(t *testing.T, typ, value string) Directive {
	t.Helper()
	d, err := NewDirective(typ, value, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDirectives(t *testing.T) {
	out := "Hello World.\nThe price is 42 USD.\nAcme is a competitor."
	ds := []Directive{
		must(t, "must_include", "hello world"), // passes (case-insensitive)
		must(t, "must_contain", "hello world"), // fails (case-sensitive)
		must(t, "must_not_include", "acme"),    // fails at 3:1
		must(t, "must_match", `\d+ USD`),       // passes
		must(t, "must_not_match", `price is \d+`),
		must(t, "max_length", "5 words"),
		must(t, "min_length", "2 lines"),
	}
	r := run(t, Request{Directives: ds}, out)
	if got := r.CheckTypes; len(got) != 2 || got[0] != DirectiveCompliance || got[1] != LengthCheck {
		t.Fatalf("inferred check types %v", got)
	}
	if r.Verdict != Fail || r.CheckedVerdict != Fail {
		t.Errorf("verdict %s", r.Verdict)
	}
	byDir := map[string]Issue{}
	for _, i := range r.Issues {
		byDir[i.Directive] = i
	}
	if i, ok := byDir["must_not_include: acme"]; !ok || i.Line != 3 || i.Column != 1 {
		t.Errorf("must_not_include issue %+v", i)
	}
	if i, ok := byDir["must_not_match: price is \\d+"]; !ok || i.Line != 2 || i.Column != 5 {
		t.Errorf("must_not_match issue %+v", i)
	}
	if i := byDir["max_length: 5 words"]; i.CheckType != "length" || i.Line != 2 || i.Column != 14 {
		t.Errorf("max_length issue %+v", i)
	}
	if _, ok := byDir["must_contain: hello world"]; !ok {
		t.Error("must_contain is case-sensitive")
	}
	if len(r.Issues) != 4 {
		t.Errorf("issues %+v", r.Issues)
	}
	// 3 of 7 directives pass
	if r.Score != 42.9 {
		t.Errorf("score %v", r.Score)
	}
	if s := r.SuggestedPromptAddition(); !strings.Contains(s, `Do not mention "acme".`) || !strings.Contains(s, "at most 5 words") {
		t.Errorf("suggestion %q", s)
	}
	if len(r.Directives) != 7 || r.Directives[0].Passed != true || r.Directives[1].Passed {
		t.Errorf("directive results %+v", r.Directives)
	}
}

func TestScoreVerdictOverride(t *testing.T) {
	r := run(t, Request{Directives: []Directive{must(t, "must_include", "x")}}, "x marks the spot")
	if r.Verdict != Pass || r.Score != 100 || r.SuggestedPromptAddition() != "" || !strings.Contains(r.Recommendation(), "passes") {
		t.Errorf("pass: %+v", r)
	}
	p, _ := NewPlan(Request{Directives: []Directive{must(t, "must_include", "y")}})
	r = p.Check("x")
	r.Finish(true, " customer approved ")
	if r.Verdict != Pass || r.CheckedVerdict != Fail || !r.Override || r.OverrideReason != "customer approved" || len(r.Issues) != 1 {
		t.Errorf("override: %+v", r)
	}
	v, err := NewValidation().Record(Record{ValidationID: "v", OrgID: "o", Credits: 1}, *r)
	if err != nil || v.Verdict != "pass" || v.CheckedVerdict != "fail" || !v.Override || len(v.Directives) != 1 || v.Directives[0].Passed ||
		len(v.Checks) != 1 || v.Checks[0].Passed || v.OutputLength != 1 || len(v.OutputSHA256) != 64 {
		t.Errorf("record %+v %v", v, err)
	}
	r.OverrideReason = ""
	if _, err := NewValidation().Record(Record{}, *r); !errors.Is(err, ErrOverrideReason) {
		t.Errorf("override without reason: %v", err)
	}
	// LLM judgement: a warning between 50 and 80
	p, _ = NewPlan(Request{CheckTypes: []CheckType{Tone}})
	r = p.Check("fine")
	r.AddJudgement(Tone, Judgement{Score: 70, Summary: "a bit harsh", Findings: []string{"Soften the second sentence."}})
	r.Finish(false, "")
	if r.Verdict != Warn || r.Score != 70 || r.Issues[0].Severity != "warning" {
		t.Errorf("judgement %+v", r)
	}
	p, _ = NewPlan(Request{CheckTypes: []CheckType{Tone, LengthCheck}})
	r = p.Check("fine")
	r.SkipLLM(p.LLMChecks())
	r.Finish(false, "")
	if !r.LLMSkipped || r.Verdict != Pass || r.Score != 100 {
		t.Errorf("skipped %+v", r)
	}
}

func TestPlanNeeds(t *testing.T) {
	var ie *InputError
	if _, err := NewPlan(Request{}); !errors.As(err, &ie) || ie.Field != "check_types" {
		t.Errorf("nothing: %v", err)
	}
	if _, err := NewPlan(Request{CheckTypes: []CheckType{SchemaValidation}}); !errors.As(err, &ie) || ie.Field != "schema" {
		t.Errorf("schema: %v", err)
	}
	if _, err := NewPlan(Request{CheckTypes: []CheckType{CodeSyntax}}); !errors.As(err, &ie) || ie.Field != "language" {
		t.Errorf("language: %v", err)
	}
	if _, err := NewPlan(Request{CheckTypes: []CheckType{DirectiveCompliance}}); !errors.As(err, &ie) || ie.Field != "directives" {
		t.Errorf("directives: %v", err)
	}
	r := run(t, Request{CheckTypes: []CheckType{LengthCheck}}, "  ")
	if r.Verdict != Fail {
		t.Errorf("empty output under length: %+v", r)
	}
}

func TestSchema(t *testing.T) {
	if _, err := CompileSchema([]byte(`{"type": 3}`)); !errors.Is(err, ErrSchema) {
		t.Errorf("bad schema: %v", err)
	}
	if _, err := CompileSchema([]byte(`{"$ref": "file:///etc/passwd"}`)); !errors.Is(err, ErrSchema) {
		t.Errorf("a schema loaded a file: %v", err)
	}
	s, err := CompileSchema([]byte(`{"type":"object","required":["name","age"],"properties":{"age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, Request{Schema: s}, "{\n  \"name\": \"x\",\n  \"age\": \"old\",\n  \"tags\": [\"a\", 2]\n}")
	if r.Verdict != Fail || len(r.Issues) != 2 {
		t.Fatalf("issues %+v", r.Issues)
	}
	at := map[string]Issue{}
	for _, i := range r.Issues {
		at[i.Path] = i
	}
	if i := at["/age"]; i.Line != 3 || i.Column != 10 {
		t.Errorf("/age %+v", i)
	}
	if i := at["/tags/1"]; i.Line != 4 || i.Column != 17 {
		t.Errorf("/tags/1 %+v", i)
	}
	// a ```json block inside prose
	r = run(t, Request{Schema: s}, "Here it is:\n```json\n{\"name\": \"x\"}\n```\n")
	if len(r.Issues) != 1 || r.Issues[0].Path != "" || r.Issues[0].Line != 3 || r.Issues[0].Column != 1 {
		t.Errorf("fenced %+v", r.Issues)
	}
	r = run(t, Request{Schema: s}, "{\"name\": \"x\",\n \"age\": }")
	if len(r.Issues) != 1 || r.Issues[0].Line != 2 || !strings.Contains(r.Issues[0].Message, "not JSON") {
		t.Errorf("not JSON %+v", r.Issues)
	}
	r = run(t, Request{Schema: s}, `{"name":"x","age":3}`)
	if r.Verdict != Pass {
		t.Errorf("valid %+v", r.Issues)
	}
}

func TestSyntax(t *testing.T) {
	for _, c := range []struct {
		lang      Language
		code      string
		line, col int
	}{
		{Python, "def f(x):\n    return x +\n", 2, 0},
		{Python, "def f(x):\n    return x + 1\n", 0, 0},
		{JavaScript, "const a = 1;\nconst = 5;\n", 2, 7},
		{JavaScript, "const a = (b) => b * 2;\n", 0, 0},
		{TypeScript, "let x: number = 1;\nlet y: = 2;\n", 2, 8},
		{TypeScript, "interface A { b: string }\nconst a: A = { b: 'c' };\n", 0, 0},
		{JSON, "{\"a\": 1,\n\"b\": }", 2, 6},
		{JSON, "[1, 2]", 0, 0},
	} {
		r := run(t, Request{Language: c.lang}, c.code)
		if c.line == 0 {
			if len(r.Issues) != 0 {
				t.Errorf("%s %q: %+v", c.lang, c.code, r.Issues)
			}
			continue
		}
		if len(r.Issues) == 0 || r.Issues[0].Line != c.line || (c.col != 0 && r.Issues[0].Column != c.col) || r.Verdict != Fail {
			t.Errorf("%s %q: %+v", c.lang, c.code, r.Issues)
		}
	}
	// the fenced python block is parsed, positions are the output's
	r := run(t, Request{Language: Python}, "Here:\n\n```python\nprint('a'\n```\n")
	if len(r.Issues) == 0 || r.Issues[0].Line < 4 {
		t.Errorf("fenced python %+v", r.Issues)
	}
	if _, err := ParseLanguage("cobol"); !errors.Is(err, ErrLanguage) {
		t.Errorf("cobol: %v", err)
	}
	if l, err := ParseLanguage("TS"); err != nil || l != TypeScript {
		t.Errorf("TS: %v %v", l, err)
	}
}

func TestRecordOnce(t *testing.T) {
	v := NewValidation()
	p, _ := NewPlan(Request{CheckTypes: []CheckType{LengthCheck}})
	r := p.Check("x")
	r.Finish(false, "")
	d, err := v.Record(Record{ValidationID: "id", OrgID: "org"}, *r)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Apply(eventOf(d)); err != nil || v.Verdict() != "pass" || v.OrgID() != "org" {
		t.Fatalf("apply: %v %+v", err, v)
	}
	if _, err := v.Record(Record{ValidationID: "id"}, *r); !errors.Is(err, ErrRecorded) {
		t.Errorf("second record: %v", err)
	}
}

// eventOf is d as the first event of its stream, decoded from JSON as the
// store would give it.
func eventOf(d Validated) event.Event {
	raw, _ := json.Marshal(d)
	return event.Event{StreamID: Stream(d.ValidationID), Version: 0, Type: d.EventType(), Data: raw, RecordedAt: time.Now()}
}

func TestUnrecognisedIsReportedNotScored(t *testing.T) {
	ds, err := ParseWords("Use a professional tone with our customers")
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ds, must(t, "must_include", "x"))
	r := run(t, Request{Directives: ds}, "x")
	if r.Verdict != Pass || r.Score != 100 || len(r.Issues) != 1 || r.Issues[0].Severity != "info" || len(r.Directives) != 1 {
		t.Errorf("unrecognised directive: %+v", r)
	}
	two, _ := ParseWords(`must include "alpha" and "beta"`)
	if two[0].Label() == two[1].Label() {
		t.Errorf("two values share a label: %q", two[0].Label())
	}
}

// Checks run concurrently (one per request): the parsers share nothing
// mutable.
func TestConcurrentChecks(t *testing.T) {
	done := make(chan []Issue)
	for i := range 8 {
		lang := []Language{Python, JavaScript, TypeScript, JSON}[i%4]
		go func() {
			p, _ := NewPlan(Request{Language: lang})
			done <- p.Check("x = (1,\n").Issues
		}()
	}
	for range 8 {
		if issues := <-done; len(issues) == 0 {
			t.Error("a syntax error was missed")
		}
	}
}
