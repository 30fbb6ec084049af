package burnrate

import (
	"math"
	"strings"
	"unicode"
)

// Token estimation: what a step's tokens are when the caller does not
// give them, from a prompt length bucket, a sample of the prompt's text,
// or the kind of action.

// PromptLengths are the prompt length buckets and the input tokens each
// stands for.
var PromptLengths = map[string]int64{"short": 300, "medium": 1500, "long": 6000, "very_long": 24000}

// PromptLengthNames lists the buckets, shortest first.
var PromptLengthNames = []string{"short", "medium", "long", "very_long"}

// DefaultInputTokens are a step's input tokens when nothing tells them
// (the medium bucket).
const DefaultInputTokens = 1500

// How a step's tokens were found (the answer's input_tokens_source and
// output_tokens_source).
const (
	SourceGiven        = "given"
	SourceSample       = "prompt_text_sample"
	SourceLength       = "prompt_length"
	SourceSampleLength = "prompt_text_sample_and_length"
	SourceDefault      = "default"
	SourceAction       = "action_kind"
	SourceNone         = "none"
)

// Action kinds, by what their output usually is.
const (
	KindSearch    = "search"
	KindEmbed     = "embed"
	KindClassify  = "classify"
	KindExtract   = "extract"
	KindSummarize = "summarize"
	KindReason    = "reason"
	KindGenerate  = "generate"
	KindLLM       = "llm_call"
)

// actionKinds map words of an action's name to its kind, first match
// first, and the output tokens a step of the kind usually writes.
var actionKinds = []struct {
	kind   string
	words  []string
	output int64
}{
	{KindReason, []string{"research"}, 1000}, // before search, which it contains
	{KindSearch, []string{"search", "browse", "crawl", "scrape", "fetch", "lookup", "look_up"}, 0},
	{KindEmbed, []string{"embed"}, 0},
	{KindClassify, []string{"classif", "route", "routing", "label", "tag", "detect", "moderat", "filter", "rank", "score", "judge", "grade", "validat", "check", "verify"}, 100},
	{KindExtract, []string{"extract", "parse", "convert"}, 400},
	{KindSummarize, []string{"summar", "condense", "tldr", "digest"}, 500},
	{KindReason, []string{"plan", "reason", "analy", "think", "decide", "research", "review", "critique", "evaluat", "compare"}, 1000},
	{KindGenerate, []string{"write", "draft", "generat", "compose", "create", "code", "implement", "report", "rewrite", "translat", "answer", "respond", "reply", "chat"}, 1200},
}

// DefaultOutputTokens are the output tokens of an action of no known kind.
const DefaultOutputTokens = 800

// ActionKind is the kind of action name and the output tokens it usually
// writes.
func ActionKind(action string) (kind string, output int64) {
	a := strings.ToLower(action)
	for _, k := range actionKinds {
		for _, w := range k.words {
			if strings.Contains(a, w) {
				return k.kind, k.output
			}
		}
	}
	return KindLLM, DefaultOutputTokens
}

// CountTokens estimates the tokens of text as a BPE tokenizer of current
// models (cl100k, o200k, Claude's) counts them: a word of ASCII letters or
// digits is a token per 4 characters (at least one), punctuation a token
// each, a CJK character a token, other non-ASCII letters a token per two;
// spaces join the word after them.
func CountTokens(text string) int64 {
	var tokens float64
	word := 0
	flush := func() {
		if word > 0 {
			tokens += math.Ceil(float64(word) / 4)
			word = 0
		}
	}
	for _, r := range text {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word++
		case r < 128 && unicode.IsSpace(r):
			flush()
		case r < 128:
			flush()
			tokens++
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flush()
			tokens++
		case unicode.IsSpace(r):
			flush()
		default:
			tokens += 0.5
		}
	}
	flush()
	return int64(math.Ceil(tokens))
}
