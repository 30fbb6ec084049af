package contract_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"svc/domain/contract"
)

type validateCase struct {
	name, contract, answer string
	status                 contract.Status
	paths                  []string // every violation's path, in order
	findings               string   // when set, the exact findings
}

func lead(name string, score int) string {
	return fmt.Sprintf(`{"lead":%q,"score":%d,"tier":"Hot"}`, name, score)
}

func candidates(scores ...string) string {
	var recs []string
	for i, s := range scores {
		recs = append(recs, fmt.Sprintf(`{"id":"%c","score":%s}`, 'a'+i, s))
	}
	return "[" + strings.Join(recs, ",") + "]"
}

var validateCases = []validateCase{
	// valid
	{"object", person, `{"name":"Ada","age":36}`, contract.Valid, nil, `{"name":"Ada","age":36}`},
	{"array", leads, "[" + lead("Acme", 90) + "]", contract.Valid, nil, `[{"lead":"Acme","score":90,"tier":"Hot"}]`},
	{"contract key order", person, `{"age":1,"name":"A"}`, contract.Valid, nil, `{"name":"A","age":1}`},
	{"no html escaping", person, `{"name":"<b>&"}`, contract.Valid, nil, `{"name":"<b>&"}`},
	{"nested", leads, `[{"lead":"A","score":0,"tier":"Cold","tags":["b2b"],"meta":{"source":"crm","verified":false}}]`, contract.Valid, nil,
		`[{"lead":"A","score":0,"tier":"Cold","tags":["b2b"],"meta":{"source":"crm","verified":false}}]`},
	{"selection", ranked, candidates("0.9", "0.2", "0.7", "0.95", "0.6"), contract.Valid, nil,
		`[{"id":"d","score":0.95},{"id":"a","score":0.9},{"id":"c","score":0.7}]`},
	{"selection drops a missing optional score", `{"task_type":"t","shape":"array","fields":[{"name":"id","type":"string"},{"name":"s","type":"integer","required":false}],
		"selection":{"scoreField":"s","minScore":1}}`, `[{"id":"a"},{"id":"b","s":2}]`, contract.Valid, nil, `[{"id":"b","s":2}]`},
	{"selection keeps ties in order", ranked, candidates("0.6", "0.6"), contract.Valid, nil, `[{"id":"a","score":0.6},{"id":"b","score":0.6}]`},

	// valid after normalisation
	{"code fence", person, "Here you go:\n```json\n{\"name\":\"Ada\"}\n```\nThanks!", contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},
	{"leading prose", person, `Sure! {"name":"Ada"} Hope it helps.`, contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},
	{"citation before json", person, `See [1]. {"name":"Ada"}`, contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},
	{"bracketed prose before json", person, `[note: see {"name":"Ada"} below]`, contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},
	{"object wrapped", leads, lead("Acme", 90), contract.ValidAfterNormalization, nil, `[{"lead":"Acme","score":90,"tier":"Hot"}]`},
	{"envelope unwrapped", leads, `{"results":[` + lead("Acme", 90) + `]}`, contract.ValidAfterNormalization, nil, `[{"lead":"Acme","score":90,"tier":"Hot"}]`},
	{"one-element array unwrapped", person, `[{"name":"Ada"}]`, contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},
	{"numeric strings", person, `{"name":"Ada","age":"36","ratio":" 0.5 "}`, contract.ValidAfterNormalization, nil, `{"name":"Ada","age":36,"ratio":0.5}`},
	{"integral float", person, `{"name":"Ada","age":36.0}`, contract.ValidAfterNormalization, nil, `{"name":"Ada","age":36}`},
	{"exponent integer", person, `{"name":"Ada","age":"1e2"}`, contract.ValidAfterNormalization, nil, `{"name":"Ada","age":100}`},
	{"boolean string", person, `{"name":"Ada","active":" TRUE"}`, contract.ValidAfterNormalization, nil, `{"name":"Ada","active":true}`},
	{"enum spelling", leads, `[{"lead":"A","score":1,"tier":" hot ","tags":["B2C"]}]`, contract.ValidAfterNormalization, nil,
		`[{"lead":"A","score":1,"tier":"Hot","tags":["b2c"]}]`},
	{"null optional dropped", person, `{"name":"Ada","age":null}`, contract.ValidAfterNormalization, nil, `{"name":"Ada"}`},

	// invalid schema: every violation, by path
	{"record violations", leads,
		`[{"lead":"A","score":101,"tier":"warm","extra":1},{"score":"x","tier":"Hot","tags":["b2b","x"],"meta":{"source":5,"verified":"maybe","other":1}}]`,
		contract.InvalidSchema, []string{"[0].score", "[0].tier", "[0].extra", "[1].lead", "[1].score", "[1].tags[1]", "[1].meta.source", "[1].meta.verified", "[1].meta.other"}, ""},
	{"object violations", person, `{"name":null,"age":3.5,"ratio":1e400,"active":1}`, contract.InvalidSchema, []string{".name", ".age", ".ratio", ".active"}, ""},
	{"wrong container types", leads, `[{"lead":"A","score":1,"tier":"Hot","tags":"b2b","meta":[1]}]`, contract.InvalidSchema, []string{"[0].tags", "[0].meta"}, ""},
	{"element not an object", leads, `[1,` + lead("A", 1) + `]`, contract.InvalidSchema, []string{"[0]"}, ""},
	{"below minimum", leads, `[{"lead":"A","score":-1,"tier":"Hot"}]`, contract.InvalidSchema, []string{"[0].score"}, ""},
	{"schema before count", leads, `[{"lead":"A"},{},{},{}]`, contract.InvalidSchema,
		[]string{"[0].score", "[0].tier", "[1].lead", "[1].score", "[1].tier", "[2].lead", "[2].score", "[2].tier", "[3].lead", "[3].score", "[3].tier"}, ""},

	// invalid count
	{"too many", leads, "[" + strings.Repeat(lead("A", 1)+",", 3) + lead("B", 2) + "]", contract.InvalidCount, []string{""}, ""},
	{"too few", leads, `[]`, contract.InvalidCount, []string{""}, ""},
	{"selection below minCount", ranked, candidates("0.9", "0.1", "0.2"), contract.InvalidCount, []string{"", ""}, ""},

	// invalid shape
	{"array for object", person, `[{"name":"a"},{"name":"b"}]`, contract.InvalidShape, []string{""}, ""},
	{"scalar", person, `42`, contract.InvalidShape, []string{""}, ""},
	{"string for array", leads, `"Acme, 90, Hot"`, contract.InvalidShape, []string{""}, ""},

	// unparseable and empty
	{"prose", person, `I cannot help with that.`, contract.Unparseable, []string{""}, ""},
	{"truncated", person, `{"name": "Ad`, contract.Unparseable, []string{""}, ""},
	{"truncated list", leads, `Here: [` + lead("A", 1) + `,{"lead":"B"`, contract.Unparseable, []string{""}, ""},
	{"broken fenced list", leads, "```json\n[" + lead("A", 1) + ", oops]\n```", contract.Unparseable, []string{""}, ""},
	{"empty", person, ``, contract.Empty, []string{""}, ""},
	{"whitespace", leads, " \n\t ", contract.Empty, []string{""}, ""},
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, tc.contract)
			r := c.Validate(tc.answer)
			var paths []string
			for _, v := range r.Violations {
				paths = append(paths, v.Path)
				if v.Message == "" {
					t.Errorf("violation at %q has no message", v.Path)
				}
			}
			if r.Status != tc.status || !slices.Equal(paths, tc.paths) {
				t.Fatalf("status %s, paths %q, want %s, %q\n%+v", r.Status, paths, tc.status, tc.paths, r.Violations)
			}
			if r.OK() != (r.Findings != nil) {
				t.Fatalf("OK %v but findings %s", r.OK(), r.Findings)
			}
			if tc.findings != "" && string(r.Findings) != tc.findings {
				t.Fatalf("findings %s, want %s", r.Findings, tc.findings)
			}
			if r.OK() { // normalisation is idempotent: the findings are valid as they stand
				again := c.Validate(string(r.Findings))
				if again.Status != contract.Valid || string(again.Findings) != string(r.Findings) {
					t.Fatalf("findings revalidate as %s: %s", again.Status, again.Findings)
				}
			}
		})
	}
}

func TestValidateMessages(t *testing.T) {
	r := mustParse(t, leads).Validate(`[{"lead":"A","score":101,"tier":"warm"}]`)
	want := []contract.Violation{
		{Path: "[0].score", Message: "must be at most 100, got 101"},
		{Path: "[0].tier", Message: `must be one of "Hot", "Cold", got "warm"`},
	}
	if !slices.Equal(r.Violations, want) {
		t.Fatalf("violations %+v", r.Violations)
	}
	r = mustParse(t, ranked).Validate(candidates("0.9", "0.1"))
	if len(r.Violations) != 2 || r.Violations[0].Message != "1 record left after selection; at least 2 required" {
		t.Fatalf("selection violations %+v", r.Violations)
	}
}
