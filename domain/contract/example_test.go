package contract_test

import (
	"encoding/json"
	"fmt"

	"svc/domain/contract"
)

// A direct-execution step appends Prompt to the model prompt and validates
// the model's answer; Findings go on the step's output_findings.
func Example() {
	c, err := contract.Parse(json.RawMessage(`{"task_type":"lead_scores","shape":"array",
		"fields":[{"name":"lead","type":"string","description":"company name"},
		          {"name":"score","type":"integer","minimum":0,"maximum":100},
		          {"name":"tier","type":"string","enum":["hot","cold"],"required":false}],
		"count":{"max":2},"selection":{"scoreField":"score","minScore":50,"minCount":1,"maxCount":2}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Prompt())

	answer := "```json\n[{\"lead\":\"Acme\",\"score\":\"91\",\"tier\":\"Hot\"},{\"lead\":\"Initech\",\"score\":40},{\"lead\":\"Globex\",\"score\":77}]\n```"
	r := c.Validate(answer)
	fmt.Println(r.Status, r.OK(), string(r.Findings))

	r = c.Validate(`[{"lead":"Acme","score":120,"colour":"red"}]`)
	fmt.Println(r.Status, r.Violations)
	// Output:
	// Answer with JSON only, no prose and no code fences: a JSON array of 1 to 4 candidate objects, each with exactly these keys and no others:
	// - "lead" (required string): company name
	// - "score" (required integer, 0 to 100)
	// - "tier" (optional string, one of "hot", "cold")
	// The objects are ranked by "score", highest first; those below 50 are dropped; the best 2 are kept.
	// Omit an optional key rather than inventing a value.
	// valid_after_normalization true [{"lead":"Acme","score":91,"tier":"hot"},{"lead":"Globex","score":77}]
	// invalid_schema [{[0].score must be at most 100, got 120} {[0].colour is not declared in the contract}]
}
