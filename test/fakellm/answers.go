package fakellm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
)

// answer is the content of a valid answer to call c about task.
func (s *Server) answer(c Call, task string) string {
	switch c.Kind {
	case llm.KindStep:
		if c.Markers["composed"] != "" {
			return composedAnswer(c, task)
		}
		return stepAnswer(c, task)
	case llm.KindSynthesis:
		return mustJSON(llm.Deliverable{Title: "Fake deliverable", Sections: []llm.Section{
			{Heading: "Executive Summary", Content: "Fake summary of: " + task},
			{Heading: "Findings", Content: "Fake findings of the earlier steps."},
			{Heading: "Next Steps", Content: "1. Fake next step."},
		}})
	case llm.KindReview, llm.KindCheck:
		score := s.score()
		path := []string{}
		if score < 100 {
			path = append(path, "Fake gap: add evidence.")
		}
		return mustJSON(llm.Review{Score: score, Summary: fmt.Sprintf("Fake review: %d/100.", score), PathTo100: path})
	case llm.KindEnhance:
		return "Objective: " + task + "\nSuccess criteria: fake."
	case llm.KindClassify:
		return classifyAnswer(c)
	}
	if c.JSONFormat {
		return stepAnswer(c, task)
	}
	return "Fake answer."
}

// stepAnswer writes the framework's headings (the call's chunk of them
// under the chunked strategy).
func stepAnswer(c Call, task string) string {
	fw := c.Framework
	if fw == "" {
		fw = "Analysis"
	}
	heads := frameworks.Headings(fw)
	if c.Markers["strategy"] == llm.StrategyChunked {
		heads = chunkOf(heads, c.Markers["chunk"])
	}
	out := llm.StepOutput{Summary: "Fake " + fw + " output for: " + task}
	for _, h := range heads {
		out.Sections = append(out.Sections, llm.Section{Heading: h, Content: "Fake " + h + " content for " + fw + "."})
	}
	return mustJSON(out)
}

// composedAnswer writes one step output per framework of a composed call
// (direct execution): the framework marker joins them with " | ".
func composedAnswer(c Call, task string) string {
	var out llm.ComposedOutput
	for _, fw := range strings.Split(c.Framework, " | ") {
		var s llm.StepOutput
		one := c
		one.Framework, one.Markers = fw, nil
		if err := json.Unmarshal([]byte(stepAnswer(one, task)), &s); err != nil {
			panic(err)
		}
		out.Steps = append(out.Steps, llm.ComposedStep{Framework: fw, StepOutput: s})
	}
	return mustJSON(out)
}

// chunkOf returns part "k/n" (0-based k) of heads, or heads.
func chunkOf(heads []string, chunk string) []string {
	ks, ns, ok := strings.Cut(chunk, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return heads
	}
	lo, hi := k*len(heads)/n, (k+1)*len(heads)/n
	if hi <= lo {
		return heads[:1]
	}
	return heads[lo:hi]
}

// malformed is content the kind's parser rejects.
func malformed(c Call) string {
	if c.Kind == llm.KindEnhance {
		return " "
	}
	return `{"this is": not valid JSON`
}

// mustJSON encodes v; the fake's own types always encode.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
