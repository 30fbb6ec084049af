package openai

import (
	"context"
	"errors"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/prompt"
)

func TestOpenAIClassify(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: "```json\n{\"task_type\":\"Blog_Post\",\"confidence\":0.8}\n```"})
	r := llmtest.Classify()
	r.MaxTokens = 0
	resp, err := client(t, f.URL).Complete(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != llmtest.ClassifyJSON || resp.Model != "gpt-4o-mini" || resp.Attempts != 1 {
		t.Fatalf("response %+v", resp)
	}
	b := f.Bodies[0]
	if b.ResponseFormat == nil || b.ResponseFormat.Type != "json_object" || b.MaxTokens != classifyMaxTokens || b.Model != "gpt-4o-mini" {
		t.Fatalf("request body %+v", b)
	}
	if m := prompt.Markers(b.Messages[0].Content); m["kind"] != llm.KindClassify {
		t.Fatalf("markers %v", m)
	}
	if f.Headers[0].Get("Authorization") != "Bearer sk-test" || f.Paths[0] != "/v1/chat/completions" {
		t.Fatalf("auth %q path %q", f.Headers[0].Get("Authorization"), f.Paths[0])
	}
}

func TestOpenAIClassifyRejectsInvalidAnswers(t *testing.T) {
	for name, content := range map[string]string{
		"unknown id":    `{"task_type":"poem","confidence":0.8}`,
		"bad JSON":      `{"task_type":`,
		"out of range":  `{"task_type":"blog_post","confidence":80}`,
		"no confidence": `{"task_type":"blog_post"}`,
	} {
		f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: content})
		_, err := client(t, f.URL).Complete(context.Background(), llmtest.Classify())
		if !errors.Is(err, llm.ErrMalformed) || f.Calls.Load() != 3 {
			t.Errorf("%s: %v after %d calls; want ErrMalformed after 3", name, err, f.Calls.Load())
		}
	}
	// a malformed answer is retried like any other
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: `{"task_type":"poem","confidence":0.8}`}, llmtest.Reply{Content: llmtest.ClassifyJSON})
	if resp, err := client(t, f.URL).Complete(context.Background(), llmtest.Classify()); err != nil || resp.Attempts != 2 {
		t.Fatalf("retry: %+v, %v", resp, err)
	}
	// no choices: refused without a request
	f = llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.ClassifyJSON})
	r := llmtest.Classify()
	r.Choices = nil
	if _, err := client(t, f.URL).Complete(context.Background(), r); !errors.Is(err, llm.ErrBadRequest) || f.Calls.Load() != 0 {
		t.Fatalf("no choices: %v after %d calls", err, f.Calls.Load())
	}
}
