package httpapi

import (
	"encoding/json"
	"testing"
	"time"
)

type innerLists struct {
	Names []string `json:"names"`
}

type embeddedLists struct {
	Tags []string `json:"tags"`
}

type listsResponse struct {
	embeddedLists
	Items    []int           `json:"items"`
	Optional []string        `json:"optional,omitempty"`
	Raw      json.RawMessage `json:"raw"`
	Inner    *innerLists     `json:"inner"`
	Nested   []innerLists    `json:"nested"`
	Any      any             `json:"any"`
	At       time.Time       `json:"at"`
	Missing  *innerLists     `json:"missing"`
	ByKey    map[string][]string
}

// Lists are [] at every depth, embedded ones included; []byte-like
// values, nil pointers and omitted fields keep their encoding.
func TestEncodedListsAreNeverNull(t *testing.T) {
	v := listsResponse{Inner: &innerLists{}, Nested: []innerLists{{}}, Any: innerLists{}, ByKey: map[string][]string{"k": nil}}
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tags":[],"items":[],"raw":null,"inner":{"names":[]},"nested":[{"names":[]}],"any":{"names":[]},"at":"0001-01-01T00:00:00Z","missing":null,"ByKey":{"k":[]}}`
	if string(b) != want {
		t.Fatalf("encoded\n%s\nwant\n%s", b, want)
	}
	if v.Items != nil || v.Inner.Names != nil {
		t.Fatal("the caller's value was changed")
	}
	if b, _ := marshal(struct{ N int }{3}); string(b) != `{"N":3}` {
		t.Fatalf("a value without lists: %s", b)
	}
}
