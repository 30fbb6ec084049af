package frameworks

import "testing"

func TestEveryAliasResolves(t *testing.T) {
	for alias, name := range frameworkAliases {
		if _, ok := frameworkTable[name]; !ok {
			t.Errorf("alias %q names %q, which the catalogue does not hold", alias, name)
		}
	}
}
