package llm

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
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
	data, err := os.ReadFile("../../domain/catalog/data/frameworks.json")
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
		for _, strategy := range []string{StrategyNormal, StrategyCompressed} {
			r := task(KindStep, fw.Name)
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

func TestFrameworkTableMatchesCatalogue(t *testing.T) {
	for _, fw := range loadCatalogue(t) {
		spec, ok := frameworkTable[fw.Name]
		if !ok {
			t.Errorf("%q is not in frameworkTable (frameworks_table.go); it gets fallback headings %v", fw.Name, Headings(fw.Name))
			continue
		}
		if !reflect.DeepEqual(spec.Sections, fw.Sections) || spec.Domain != fw.Domain || spec.Kind != fw.Kind {
			t.Errorf("%q: table has %s/%s %v, catalogue %s/%s %v; update frameworks_table.go", fw.Name,
				spec.Domain, spec.Kind, spec.Sections, fw.Domain, fw.Kind, fw.Sections)
		}
		if got := inferDomain(fw.Name); got != "" && got != fw.Domain {
			t.Logf("%q: a name-only guess would say %s, catalogue says %s", fw.Name, got, fw.Domain)
		}
	}
}
