package providers

import (
	"reflect"
	"testing"

	"svc/domain/planning"
)

func TestModels(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want planning.Models
	}{
		{map[string]string{}, planning.Models{Tier1: []string{"offline-writer"}, Tier2: []string{"offline-writer"}}},
		{map[string]string{envBaseURL: "http://llm"}, planning.Models{Tier1: []string{"gpt-4o"}, Tier2: []string{"gpt-4o-mini"}}},
		{map[string]string{envBaseURL: "http://llm", envModel: "big"}, planning.Models{Tier1: []string{"big"}, Tier2: []string{"big"}}},
		{map[string]string{envBaseURL: "http://llm", envModel: "big", envModelTier2: "small", envFallbackBaseURL: "http://fb"},
			planning.Models{Tier1: []string{"big", "big"}, Tier2: []string{"small", "small"}}},
		{map[string]string{envBaseURL: "http://llm", envModel: "big", envModelTier2: "small", envFallbackBaseURL: "http://fb",
			envFallbackModel: "fb-big", envFallbackModelTier2: "fb-small"},
			planning.Models{Tier1: []string{"big", "fb-big"}, Tier2: []string{"small", "fb-small"}}},
	} {
		if got := Models(func(k string) string { return c.env[k] }); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %+v, want %+v", c.env, got, c.want)
		}
	}
}
