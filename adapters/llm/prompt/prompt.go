// Package prompt builds the chat messages an OpenAI-compatible provider
// sends for an llm.Request: a system prompt stating the writer's role and
// the answer format, and a user prompt with the task, its context and the
// material of earlier steps. The first line of every system prompt carries
// machine-readable markers ([svc:key=value]) so that a fake API
// (test/fakellm) can tell the kind of a call and its framework (Markers).
// The offline writer estimates its usage from the same messages.
package prompt

import (
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/internal/textutil"
)

// Message is one chat message of an OpenAI-compatible request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Input limits of the prompts, in characters.
const (
	maxContextChars           = 24000 // context, normal strategy
	maxContextCharsCompressed = 3000
	maxInheritedChars         = 128000 // inherited from a prior workflow: execute admits 32,000 tokens of ~4 characters
	maxDescriptionCompressed  = 3000
	maxPriorSectionChars      = 1500 // one prior step section, normal strategy
	maxPriorSummaryCompressed = 400
	maxReviewSectionChars     = 4000 // one deliverable section under review
	maxReviewSectionCompact   = 600
)

// Markers are machine-readable tags on the first line of every system prompt,
// "[svc:key=value]", so a fake server (test/fakellm) can tell the kind of a
// call and its framework: kind, framework (llm.KindStep), step ("2/5"),
// strategy and chunk ("1/3", 0-based part) when set.
const markerPrefix = "[svc:"

// Markers parses the [svc:key=value] markers on the first line of a system
// prompt.
func Markers(system string) map[string]string {
	m := map[string]string{}
	rest, _, _ := strings.Cut(system, "\n")
	for {
		i := strings.Index(rest, markerPrefix)
		if i < 0 {
			return m
		}
		rest = rest[i+len(markerPrefix):]
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return m
		}
		if k, v, ok := strings.Cut(rest[:j], "="); ok {
			m[k] = v
		}
		rest = rest[j+1:]
	}
}

// marker formats one marker; brackets and line breaks in the value are
// replaced.
func marker(key, value string) string {
	value = strings.NewReplacer("[", "(", "]", ")", "\n", " ", "\r", " ").Replace(value)
	return markerPrefix + key + "=" + value + "]"
}

// Build builds the chat messages of r: a system prompt with the markers,
// the role and the answer format, and a user prompt with the task, its
// context, guidance and the material of earlier steps.
func Build(r llm.Request) []Message {
	return []Message{
		{Role: "system", Content: systemPrompt(r)},
		{Role: "user", Content: userPrompt(r)},
	}
}

// systemPrompt states the markers, the writer's role and the answer format.
func systemPrompt(r llm.Request) string {
	var b strings.Builder
	tags := []string{marker("kind", r.Kind)}
	if r.Kind == llm.KindStep {
		tags = append(tags, marker("framework", stepFramework(r)))
	}
	tags = append(tags, directMarkers(r)...)
	if r.TotalSteps > 0 {
		tags = append(tags, marker("step", fmt.Sprintf("%d/%d", r.Step, r.TotalSteps)))
	}
	if r.Strategy != "" {
		tags = append(tags, marker("strategy", r.Strategy))
	}
	if r.Strategy == llm.StrategyChunked {
		tags = append(tags, marker("chunk", fmt.Sprintf("%d/%d", r.Chunk, r.Chunks)))
	}
	b.WriteString(strings.Join(tags, " "))
	b.WriteString("\n\n")
	switch promptKind(r) {
	case kindComposed:
		b.WriteString(composedSystem(r))
	case kindContract:
		b.WriteString(contractSystem(r))
	case llm.KindStep:
		spec := frameworks.ForStep(r)
		fmt.Fprintf(&b, "You are a senior analyst carrying out one step of a structured workflow: apply the framework %q to the user's task.", r.Framework)
		if spec.Purpose != "" {
			b.WriteString(" The framework: " + spec.Purpose)
		}
		b.WriteString("\nBe specific to the task; use its own terms, the context given and the earlier steps. Do not invent figures or sources; say what must be verified.")
		b.WriteString("\nAnswer with one JSON object and nothing else: {\"summary\": string (2-3 sentences), \"sections\": [{\"heading\": string, \"content\": string}]}.")
		fmt.Fprintf(&b, "\nWrite these sections, in this order, with exactly these headings: %s.", strings.Join(chunkHeadings(r, spec.Sections), "; "))
	case llm.KindSynthesis:
		b.WriteString("You are a senior analyst writing the final deliverable of a structured workflow from the outputs of its earlier steps.")
		b.WriteString("\nAnswer with one JSON object and nothing else: {\"title\": string, \"sections\": [{\"heading\": string, \"content\": string}]}.")
		b.WriteString("\nStart with an \"Executive Summary\" section, give the substance of every earlier step, and end with a \"Next Steps\" section. Do not invent figures or sources.")
	case llm.KindReview:
		b.WriteString("You are an independent reviewer scoring a deliverable against the task it was written for: completeness, specificity to the task, internal consistency, evidence and actionability.")
		b.WriteString("\nAnswer with one JSON object and nothing else: {\"score\": integer 0-100, \"summary\": string, \"path_to_100\": [string]}.")
		b.WriteString("\npath_to_100 lists the concrete changes that would raise the score to 100; it is empty only for a score of 100.")
	case llm.KindEnhance:
		b.WriteString("You rewrite a task description so that it can be executed without questions: objective, scope, audience, context, constraints, deliverable format and success criteria.")
		b.WriteString("\nKeep every fact the user gave, invent none, and mark what the user still has to specify. Answer with the rewritten description as plain text, no preamble.")
	case llm.KindClassify:
		b.WriteString(classifySystem())
	case llm.KindCheck:
		b.WriteString(checkSystem(r.Criterion))
	}
	if framesExternal(r) {
		b.WriteString(externalRule)
	}
	if !textutil.EnglishLanguage(r.Language) && r.Kind != llm.KindClassify {
		fmt.Fprintf(&b, "\nWrite all prose in the language %q; keep the JSON keys in English.", r.Language)
	}
	if r.MaxTokens > 0 {
		fmt.Fprintf(&b, "\nKeep the answer under %d tokens.", r.MaxTokens)
	}
	return b.String()
}

// userPrompt gives the task and the material of the call.
func userPrompt(r llm.Request) string {
	compressed := r.Strategy == llm.StrategyCompressed
	var b strings.Builder
	section := func(title, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + title + "\n" + strings.TrimSpace(body))
	}
	desc := r.Description
	if compressed {
		desc = textutil.Clip(desc, maxDescriptionCompressed)
	}
	if r.Kind == llm.KindClassify {
		desc = textutil.Clip(desc, maxClassifyDescription)
	}
	section("Task", desc)
	if r.TaskLabel != "" || r.TaskType != "" {
		section("Task type", strings.TrimSpace(r.TaskLabel+" ("+r.TaskType+")"))
	}
	section("Workflow title", r.Title)
	ctxLimit := maxContextChars
	if compressed {
		ctxLimit = maxContextCharsCompressed
	}
	ctxTitle := "Context"
	if r.Kind == llm.KindCheck {
		ctxTitle = "Output to check"
	}
	section(ctxTitle, textutil.Clip(r.Context, ctxLimit))
	if framesExternal(r) {
		limit := maxExternalChars
		if compressed {
			limit = maxExternalCharsCompressed
		}
		section(externalTitle, externalText(r.External, limit))
	}
	inheritedLimit := maxInheritedChars
	if compressed {
		inheritedLimit = maxContextCharsCompressed
	}
	section("Inherited from a prior workflow", textutil.Clip(r.Inherited, inheritedLimit))
	section("Guidance", r.Guidance)
	section("Earlier steps", priorText(r.Prior, compressed))
	switch promptKind(r) {
	case kindComposed:
		section("This step", composedStep(r))
	case kindContract:
		section("This step", "Produce the output the contract describes, from the task, its context and the earlier steps.")
	case llm.KindStep:
		step := "Framework: " + r.Framework
		if r.TotalSteps > 0 {
			step = fmt.Sprintf("Step %d of %d. %s", r.Step, r.TotalSteps, step)
		}
		section("This step", step+chunkNote(r))
	case llm.KindSynthesis:
		section("This step", "Write the deliverable."+chunkNote(r))
	case llm.KindReview:
		section("Deliverable to review", deliverableText(r.Deliverable, compressed))
		section("This step", "Score the deliverable."+chunkNote(r))
	case llm.KindEnhance:
		section("This step", "Rewrite the task description above.")
	case llm.KindCheck:
		section("This step", "Judge the output above on "+r.Criterion+" only.")
	case llm.KindClassify:
		section(choicesTitle, choicesText(r.Choices))
		section("This step", "Name the task type of the task above, with your confidence.")
	}
	return b.String()
}

// chunkNote asks a chunked call for its part.
func chunkNote(r llm.Request) string {
	if r.Strategy != llm.StrategyChunked || r.Chunks <= 1 {
		return ""
	}
	what := "sections"
	if r.Kind == llm.KindReview {
		what = "sections of the deliverable; score only those"
	}
	return fmt.Sprintf("\nThis call covers only part %d of %d of the %s (the parts split the sections in order).", r.Chunk+1, r.Chunks, what)
}

// priorText renders earlier steps: summaries, and under the normal strategy
// their sections (each clipped).
func priorText(prior []llm.PriorStep, compressed bool) string {
	var b strings.Builder
	for _, p := range prior {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "### Step %d: %s\n", p.Step, p.Name)
		if compressed {
			b.WriteString(textutil.Clip(p.Summary, maxPriorSummaryCompressed))
			continue
		}
		b.WriteString(strings.TrimSpace(p.Summary))
		for _, s := range p.Sections {
			fmt.Fprintf(&b, "\n- %s: %s", s.Heading, textutil.Clip(s.Content, maxPriorSectionChars))
		}
	}
	return b.String()
}

// deliverableText renders a deliverable under review.
func deliverableText(d *llm.Deliverable, compressed bool) string {
	if d == nil {
		return ""
	}
	limit := maxReviewSectionChars
	if compressed {
		limit = maxReviewSectionCompact
	}
	var b strings.Builder
	b.WriteString("# " + d.Title)
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "\n\n## %s\n%s", s.Heading, textutil.Clip(s.Content, limit))
	}
	return b.String()
}

// chunkHeadings returns the headings of r's part under the chunked
// strategy, or all of them.
func chunkHeadings(r llm.Request, headings []string) []string {
	if r.Strategy != llm.StrategyChunked {
		return headings
	}
	lo, hi, ok := textutil.ChunkBounds(len(headings), r.Chunk, r.Chunks)
	if !ok {
		return headings
	}
	return headings[lo:hi]
}

// checkCriteria say what a KindCheck call judges, by criterion.
var checkCriteria = map[string]string{
	llm.CheckTone:                "tone: is it neutral and professional, without insults, shouting, sarcasm or overconfident hype?",
	llm.CheckFactualClaims:       "factual claims: are its figures, dates and statements of fact plausible and supported (a source, or marked as an estimate), with nothing invented?",
	llm.CheckInternalConsistency: "internal consistency: do its figures, names, dates and conclusions agree with each other everywhere in it?",
}

// checkSystem is the system prompt of a KindCheck call.
func checkSystem(criterion string) string {
	what, ok := checkCriteria[criterion]
	if !ok {
		what = criterion
	}
	return "You are a strict quality gate judging an AI agent's output on one criterion only: " + what +
		"\nAnswer with one JSON object and nothing else: {\"score\": integer 0-100 (100: no problem at all), \"summary\": string (one sentence), \"path_to_100\": [string]}." +
		"\npath_to_100 lists each problem found, quoting the words at fault and saying how to fix them; it is empty only for a score of 100."
}
