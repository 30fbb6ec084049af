package enhance

import "testing"

func TestWeightsSumTo100(t *testing.T) {
	sum := 0
	seen := map[string]bool{}
	for _, c := range criteria {
		sum += c.weight
		if seen[c.name] {
			t.Errorf("criterion %q twice", c.name)
		}
		seen[c.name] = true
	}
	if sum != 100 {
		t.Errorf("weights sum to %d, want 100", sum)
	}
}
