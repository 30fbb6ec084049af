package contract_test

import (
	"testing"
)

func TestPrompt(t *testing.T) {
	for _, tc := range []struct{ contract, want string }{
		{leads, `Answer with JSON only, no prose and no code fences: a JSON array of 1 to 3 objects, each with exactly these keys and no others:
- "lead" (required string): company name
- "score" (required integer, 0 to 100)
- "tier" (required string, one of "Hot", "Cold")
- "tags" (optional array of string, one of "b2b", "b2c")
- "meta" (optional object with exactly these keys)
  - "source" (required string)
  - "verified" (optional boolean)
Omit an optional key rather than inventing a value.`},
		{`{"task_type":"t","shape":"array","fields":[{"name":"rows","type":"array","items":{"type":"object","description":"one row",
			"properties":[{"name":"v","type":"number","minimum":1,"description":"value"}]}}]}`,
			`Answer with JSON only, no prose and no code fences: a JSON array of objects, one per input item, each with exactly these keys and no others:
- "rows" (required array of object with exactly these keys, each one row)
  - "v" (required number, at least 1): value`},
		{`{"task_type":"t","shape":"array","fields":[{"name":"a","type":"integer","maximum":9}],"count":{"min":2,"max":2}}`,
			`Answer with JSON only, no prose and no code fences: a JSON array of exactly 2 objects, each with exactly these keys and no others:
- "a" (required integer, at most 9)`},
		{person, `Answer with JSON only, no prose and no code fences: one JSON object with exactly these keys and no others:
- "name" (required string)
- "age" (optional integer)
- "ratio" (optional number)
- "active" (optional boolean)
Omit an optional key rather than inventing a value.`},
	} {
		if got := mustParse(t, tc.contract).Prompt(); got != tc.want {
			t.Errorf("prompt:\n%s\nwant:\n%s", got, tc.want)
		}
	}
}
