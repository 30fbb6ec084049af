package classify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/offline"
	"svc/domain/catalog"
)

// stub answers every call with text or err and keeps the last request.
type stub struct {
	text string
	err  error
	last llm.Request
}

func (s *stub) Name() string { return "stub" }

func (s *stub) Complete(_ context.Context, r llm.Request) (llm.Response, error) {
	s.last = r
	if s.err != nil {
		return llm.Response{}, s.err
	}
	return llm.Response{Text: s.text}, nil
}

func TestClassifyTask(t *testing.T) {
	types := catalog.Default().TaskTypes()
	p := &stub{text: `{"task_type":"press_release","confidence":0.7}`}
	tt, conf, err := New(p).ClassifyTask(context.Background(), "Announce our series A to journalists", types)
	if err != nil || tt != "press_release" || conf != 0.7 {
		t.Fatalf("ClassifyTask = %q, %v, %v", tt, conf, err)
	}
	r := p.last
	if r.Kind != llm.KindClassify || r.Tier != Tier || r.MaxTokens != MaxTokens || r.Description != "Announce our series A to journalists" || len(r.Choices) != len(types) {
		t.Fatalf("request %+v", r)
	}
	for i, c := range r.Choices {
		if c.ID != types[i].ID || c.Label != types[i].Label || c.Description == "" || strings.Contains(c.Description, "\n") {
			t.Fatalf("choice %d %+v of %+v", i, c, types[i])
		}
	}
	if err := llm.CheckRequest(r); err != nil {
		t.Fatal(err)
	}
}

func TestClassifyTaskErrors(t *testing.T) {
	types := catalog.Default().TaskTypes()
	ctx := context.Background()
	for name, c := range map[string]struct {
		p    llm.Provider
		want error
	}{
		"provider failed": {&stub{err: llm.ErrExhausted}, llm.ErrExhausted},
		"timed out":       {&stub{err: context.DeadlineExceeded}, context.DeadlineExceeded},
		"unknown id":      {&stub{text: `{"task_type":"poem","confidence":0.7}`}, llm.ErrMalformed},
		"confidence":      {&stub{text: `{"task_type":"blog_post","confidence":7}`}, llm.ErrMalformed},
		"offline":         {offline.New(), llm.ErrBadRequest},
	} {
		if tt, conf, err := New(c.p).ClassifyTask(ctx, "Announce our series A", types); !errors.Is(err, c.want) || tt != "" || conf != 0 {
			t.Errorf("%s: %q, %v, %v; want %v", name, tt, conf, err, c.want)
		}
	}
	if _, _, err := New(&stub{text: llmtest.ClassifyJSON}).ClassifyTask(ctx, "x y", nil); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("no types: %v", err)
	}
}

func TestChoices(t *testing.T) {
	got := Choices([]catalog.TaskType{
		{ID: "a", Label: "A", Description: "First sentence.  Second\nsentence.", Capability: "Cap."},
		{ID: "b", Label: "B", Capability: "Produces b. Really."},
		{ID: "c", Label: "C", Description: "No full stop"},
	})
	want := []llm.TaskChoice{{ID: "a", Label: "A", Description: "First sentence."}, {ID: "b", Label: "B", Description: "Produces b."}, {ID: "c", Label: "C", Description: "No full stop"}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("choice %d %+v, want %+v", i, got[i], want[i])
		}
	}
}
