package offline

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
)

// catalogueFramework is the part of a catalogue framework the tests read.
type catalogueFramework struct {
	Name     string   `json:"name"`
	Domain   string   `json:"domain"`
	Kind     string   `json:"kind"`
	Sections []string `json:"sections"`
}

// loadCatalogue reads the frameworks of the planner's catalogue.
func loadCatalogue(t *testing.T) []catalogueFramework {
	t.Helper()
	data, err := os.ReadFile("../../../domain/catalog/data/frameworks.json")
	if err != nil {
		t.Fatal(err)
	}
	var fws []catalogueFramework
	if err := json.Unmarshal(data, &fws); err != nil {
		t.Fatal(err)
	}
	if len(fws) == 0 {
		t.Fatal("empty catalogue")
	}
	return fws
}

func TestEveryCatalogueFrameworkWrites(t *testing.T) {
	for _, fw := range loadCatalogue(t) {
		for _, strategy := range []string{llm.StrategyNormal, llm.StrategyCompressed} {
			r := llmtest.Task(llm.KindStep, fw.Name)
			r.Strategy = strategy
			out := step(t, r)
			filled := 0
			for _, s := range out.Sections {
				if len(strings.TrimSpace(s.Content)) > 40 {
					filled++
				}
			}
			if filled < 2 || filled != len(out.Sections) {
				t.Errorf("%s (%s): %d of %d sections filled", fw.Name, strategy, filled, len(out.Sections))
			}
		}
	}
}
