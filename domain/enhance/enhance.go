// Package enhance is the deterministic tier of POST /api/rigor/enhance: it
// scores a task description from 0 to 100 for how well it specifies the work
// and says, in order of impact, what to add.
//
// The assessment is a sum of seven criteria, each found with English word and
// phrase lexicons and regular expressions over the lower-cased text:
//
//	goal         15  an action verb ("compare", "draft") or a direct question
//	audience     15  who the result is for ("for our CFO", "engineers")
//	scope        20  quantities, named subjects, time frames, markets, in/out
//	format       15  the deliverable's shape ("memo", "table", "json")
//	constraints  15  deadline, budget, tone, rules ("must", "avoid", "GDPR")
//	length       10  an explicit length ("500 words", "one page")
//	context      10  background ("we are a", "currently", "attached")
//
// Each criterion earns full, partial or no credit. Credit only grows when text
// is added, so adding a criterion never lowers the score. Descriptions under
// six words are scaled down (score x words/6). There is no randomness and no
// network access: the same input always gives the same Result.
package enhance

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Result is the deterministic assessment of a task description.
type Result struct {
	Score       int      // 0-100
	Suggestions []string // concrete, actionable, in order of impact; empty only for a complete description
	Missing     []string // which criteria are missing: "audience", "scope", "format", "constraints", "length", "goal", "context"
}

// MaxLength is the longest description accepted (10,000 characters).
const MaxLength = 10000

// ErrTooLong is returned for a description over MaxLength characters (runes).
var ErrTooLong = errors.New("task description exceeds 10000 characters")

// ErrEmpty is returned for an empty or blank description.
var ErrEmpty = errors.New("task description is empty")

// Criterion names, as reported in Result.Missing.
const (
	Goal        = "goal"
	Audience    = "audience"
	Scope       = "scope"
	Format      = "format"
	Constraints = "constraints"
	Length      = "length"
	Context     = "context"
)

// minWords is the word count under which the score is scaled down.
const minWords = 6

type criterion struct {
	name   string
	weight int
	credit func(*text) float64 // 0..1
}

// criteria in canonical order; weights sum to 100.
var criteria = []criterion{
	{Goal, 15, goalCredit},
	{Audience, 15, audienceCredit},
	{Scope, 20, scopeCredit},
	{Format, 15, formatCredit},
	{Constraints, 15, constraintsCredit},
	{Length, 10, lengthCredit},
	{Context, 10, contextCredit},
}

// text is a description prepared for matching.
type text struct {
	raw    string          // as given
	lower  string          // lower-cased
	joined string          // " tok tok ... " with hyphens split, for phrase lookups
	tokens []string        // lower-cased words
	set    map[string]bool // tokens, plus hyphen parts
}

var tokenRe = regexp.MustCompile(`[\p{L}\p{N}]+(?:['’\-][\p{L}\p{N}]+)*`)

func prepare(s string) *text {
	t := &text{raw: s, lower: strings.ToLower(s), set: map[string]bool{}}
	t.tokens = tokenRe.FindAllString(t.lower, -1)
	var parts []string
	for _, tok := range t.tokens {
		tok = strings.ReplaceAll(tok, "’", "'")
		t.set[tok] = true
		for _, p := range strings.Split(tok, "-") {
			t.set[p] = true
			parts = append(parts, p)
		}
	}
	t.joined = " " + strings.Join(parts, " ") + " "
	return t
}

// has reports whether any of the phrases (lower-case, space separated, no
// hyphens) occurs as a whole-word sequence.
func (t *text) has(phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(t.joined, " "+p+" ") {
			return true
		}
	}
	return false
}

func (t *text) hasWord(words map[string]bool) bool {
	for w := range t.set {
		if words[w] {
			return true
		}
	}
	return false
}

// Assess scores a task description. taskType (optional, a task type id such
// as "pricing_strategy") only tailors the examples in the suggestions; it does
// not change the score.
func Assess(description, taskType string) (Result, error) {
	if utf8.RuneCountInString(description) > MaxLength {
		return Result{}, ErrTooLong
	}
	if strings.TrimSpace(description) == "" {
		return Result{}, ErrEmpty
	}
	t := prepare(description)
	ex := examplesFor(taskType)

	type gap struct {
		name    string
		order   int
		lost    float64
		partial bool
	}
	var total float64
	var gaps []gap
	for i, c := range criteria {
		cr := c.credit(t)
		if cr < 0 {
			cr = 0
		}
		if cr > 1 {
			cr = 1
		}
		earned := cr * float64(c.weight)
		total += earned
		if cr < 1 {
			gaps = append(gaps, gap{c.name, i, float64(c.weight) - earned, cr > 0})
		}
	}
	if n := len(t.tokens); n < minWords {
		total = total * float64(n) / minWords
	}
	score := int(math.Round(total))
	if score < 0 {
		score = 0
	}
	if score > 100 {
		score = 100
	}

	// Order of impact: points lost, most first; ties in canonical order.
	sort.SliceStable(gaps, func(i, j int) bool {
		if gaps[i].lost != gaps[j].lost {
			return gaps[i].lost > gaps[j].lost
		}
		return gaps[i].order < gaps[j].order
	})
	res := Result{Score: score, Suggestions: []string{}, Missing: []string{}}
	if n := len(t.tokens); n < minWords {
		res.Suggestions = append(res.Suggestions, fmt.Sprintf(
			"Describe the task in at least one full sentence; %d %s is too short to act on.", n, plural(n, "word", "words")))
	}
	for _, g := range gaps {
		res.Suggestions = append(res.Suggestions, suggestion(g.name, g.partial, ex))
		if !g.partial {
			res.Missing = append(res.Missing, g.name)
		}
	}
	if w := vagueWordsIn(t); len(w) > 0 {
		res.Suggestions = append(res.Suggestions, fmt.Sprintf(
			"Replace vague words (%s) with the specific subject, item or outcome you mean.", quoteList(w)))
	}
	return res, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, ", ")
}

// ---- goal ----

var actionVerbs = wordForms(
	"write", "draft", "create", "compare", "analyze", "analyse", "review", "design", "plan",
	"build", "summarize", "summarise", "assess", "evaluate", "audit", "prepare", "produce",
	"research", "identify", "list", "rank", "rerank", "score", "rate", "tag", "label", "extract",
	"recommend", "propose", "outline", "explain", "estimate", "forecast", "calculate", "define",
	"develop", "map", "find", "check", "investigate", "synthesize", "synthesise", "reduce",
	"increase", "translate", "rewrite", "edit", "compose", "generate", "classify", "cluster",
	"grade", "parse", "convert", "document", "benchmark", "prioritize", "prioritise", "decide",
	"choose", "select", "validate", "verify", "test", "model", "project", "budget", "price",
	"announce", "describe", "critique", "vet", "sketch", "spec", "structure", "organize",
	"organise", "schedule", "launch", "migrate", "refactor", "optimize", "optimise", "improve",
	"streamline", "simplify", "diagnose", "measure", "quantify", "interview", "hire", "onboard",
	"present", "pitch", "negotiate", "survey", "study", "examine", "inspect", "detect", "flag",
	"sort", "group", "filter", "categorize", "categorise", "pull", "collect", "gather",
	"compile", "report", "recap", "brief", "proofread", "shorten", "expand", "turn", "break",
	"justify", "argue", "persuade", "convince", "teach", "train", "set", "coordinate",
	"order", "reorder", "appoint", "give", "tell", "show", "assign", "add", "apply", "mark",
	"grab", "dedupe", "bucket", "raise", "cut", "speed", "lift", "grow", "ship", "move",
	"stress", "dig", "sanity", "answer", "lookup", "update", "replace", "fill",
)

var weakVerbs = wordForms("help", "do", "make", "fix", "handle", "need", "want", "work", "get", "look", "go", "try")

var questionOpeners = []string{
	"should we", "should i", "how do", "how can", "how should", "how much", "how many",
	"what is", "what are", "what's", "what should", "which", "why", "is there", "are we",
	"is our", "does our", "do our", "can we", "where should", "who are",
}

// wordForms expands base verbs to base, -s, -es, -ed, -ing forms.
func wordForms(bases ...string) map[string]bool {
	m := map[string]bool{}
	for _, b := range bases {
		m[b] = true
		m[b+"s"] = true
		m[b+"es"] = true
		m[b+"ed"] = true
		m[b+"d"] = true
		m[b+"ing"] = true
		if strings.HasSuffix(b, "e") {
			m[b[:len(b)-1]+"ing"] = true
		}
		if strings.HasSuffix(b, "y") {
			m[b[:len(b)-1]+"ies"] = true
			m[b[:len(b)-1]+"ied"] = true
		}
	}
	return m
}

func goalCredit(t *text) float64 {
	switch {
	case t.hasWord(actionVerbs):
		return 1
	case strings.Contains(t.raw, "?") || t.has(questionOpeners...):
		return 0.8
	case t.hasWord(weakVerbs):
		return 0.4
	}
	return 0
}

// ---- audience ----

var roleWords = map[string]bool{
	"cfo": true, "ceo": true, "cto": true, "coo": true, "cmo": true, "cio": true, "ciso": true, "cpo": true,
	"vp": true, "vps": true, "board": true, "executives": true, "execs": true, "exec": true,
	"leadership": true, "management": true, "founders": true, "founder": true, "customers": true,
	"customer": true, "clients": true, "client": true, "engineers": true, "engineer": true,
	"developers": true, "developer": true, "devs": true, "investors": true, "investor": true,
	"students": true, "beginners": true, "beginner": true, "novices": true, "experts": true,
	"managers": true, "manager": true, "staff": true, "employees": true, "employee": true,
	"users": true, "user": true, "stakeholders": true, "prospects": true, "buyers": true,
	"recruiters": true, "candidates": true, "partners": true, "regulators": true, "auditors": true,
	"analysts": true, "marketers": true, "readers": true, "audience": true, "readership": true,
	"journalists": true, "press": true, "shareholders": true, "directors": true, "director": true,
	"teachers": true, "parents": true, "patients": true, "doctors": true, "clinicians": true,
	"lawyers": true, "counsel": true, "subscribers": true, "members": true, "donors": true,
	"volunteers": true, "admins": true, "administrators": true, "designers": true,
	"salespeople": true, "reps": true, "committee": true, "ic": true, "lp": true, "lps": true,
	"leads": true, "head": true, "hiring": true, "newcomers": true, "non-technical": true,
	"laypeople": true, "public": true, "team": true, "teams": true, "colleagues": true,
}

var audienceRe = regexp.MustCompile(`\b(?:for|to|at|aimed at|targeting|targeted at|addressed to|intended for|written for|geared to(?:wards)?|read by|used by|audience(?: is| are|:)?)\s+(?:(?:our|the|my|a|an|all|new|senior|junior|non-technical|technical|busy|first-time|existing|potential|prospective|internal|external|c-level|executive|enterprise|smb)\s+)*([\p{L}\-]+)(?:\s+([\p{L}\-]+))?`)

func audienceCredit(t *text) float64 {
	for _, m := range audienceRe.FindAllStringSubmatch(t.lower, -1) {
		if roleWords[m[1]] || roleWords[m[2]] {
			return 1
		}
	}
	if t.has("audience is", "audience are", "target audience", "intended audience", "readers are") {
		return 1
	}
	if t.hasWord(roleWords) {
		return 0.6
	}
	return 0
}

// ---- scope ----

var numberWord = `(?:\d[\d,\.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen|several|a few|top \d+|top (?:three|five|ten))`

var quantityRe = regexp.MustCompile(`\b` + numberWord + `\s+([\p{L}][\p{L}\-]*)`)

var lengthUnits = map[string]bool{
	"word": true, "words": true, "page": true, "pages": true, "paragraph": true, "paragraphs": true,
	"sentence": true, "sentences": true, "line": true, "lines": true, "character": true,
	"characters": true, "chars": true, "minute": true, "minutes": true, "min": true, "mins": true,
	"slide": true, "slides": true, "pager": true, "k": true, "percent": true, "and": true, "or": true,
	"to": true, "of": true, "in": true, "for": true, "at": true,
}

var timeframeRe = regexp.MustCompile(`\b(?:q[1-4]|h[12]|fy\s?\d{2,4}|(?:19|20)\d{2}|january|february|march|april|june|july|august|september|october|november|december|jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec|ytd|year[- ]to[- ]date|(?:last|next|this|past|previous|coming|current|first|second)\s+(?:\d+\s+)?(?:days?|weeks?|months?|quarters?|years?|fiscal year|sprints?|half)|\d+\s+(?:days|weeks|months|quarters|years)|\d+[- ](?:hours?|days?|weeks?|months?|years?)|yesterday|today|tonight|last night|this morning|this week|weekend|since\s+\w+|over the (?:last|past|next))\b`)

var regionRe = regexp.MustCompile(`\b(?:eu|uk|usa|emea|apac|latam|dach|nordics|europe|european|north america|south america|latin america|asia|africa|global|worldwide|domestic|international|germany|france|india|china|japan|brazil|canada|australia|spain|italy|mexico|netherlands|market|markets|region|regions|segment|segments|country|countries|b2b|b2c|smb|smbs|mid-market|enterprise|nationwide|state|city)\b`)

var usRe = regexp.MustCompile(`\b(?:US|U\.S\.)\b`)

var boundaryPhrases = []string{
	"only", "excluding", "exclude", "except", "focus on", "focused on", "focusing on", "limited to",
	"in scope", "out of scope", "restricted to", "covering", "not including", "including",
	"leave out", "ignore", "specifically", "just the", "no more than",
}

var quotedRe = regexp.MustCompile(`"[^"]{2,}"|“[^”]{2,}”|(?:^|\s)'[^']{2,}'(?:\s|[.,;:!?)]|$)|\([^)]*,[^)]*\)`)

var nonNames = map[string]bool{"i": true, "i'm": true, "i've": true, "i'd": true, "ok": true, "please": true}

// named reports a capitalised word that does not start a sentence: a product,
// company, person or place ("Acme", "Kubernetes", "Berlin").
func named(raw string) bool {
	locs := tokenRe.FindAllStringIndex(raw, -1)
	for i, loc := range locs {
		w := raw[loc[0]:loc[1]]
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			continue
		}
		lw := strings.ToLower(w)
		if nonNames[lw] || roleWords[lw] {
			continue
		}
		if i == 0 {
			continue
		}
		// Sentence start: previous non-space character ends a sentence.
		prev := strings.TrimRightFunc(raw[:loc[0]], unicode.IsSpace)
		if prev == "" || strings.ContainsAny(prev[len(prev)-1:], ".!?:;\n") {
			continue
		}
		return true
	}
	return false
}

func scopeCredit(t *text) float64 {
	kinds := 0
	for _, m := range quantityRe.FindAllStringSubmatch(t.lower, -1) {
		if !lengthUnits[m[1]] {
			kinds++
			break
		}
	}
	if timeframeRe.MatchString(t.lower) {
		kinds++
	}
	if regionRe.MatchString(t.lower) || usRe.MatchString(t.raw) {
		kinds++
	}
	if t.has(boundaryPhrases...) {
		kinds++
	}
	if named(t.raw) || quotedRe.MatchString(t.raw) {
		kinds++
	}
	return math.Min(1, float64(kinds)/3)
}

// ---- format ----

var formatPhrases = []string{
	"table", "tables", "bullet", "bullets", "bullet points", "bulleted", "list", "numbered list",
	"memo", "slides", "slide deck", "deck", "presentation", "report", "email", "emails", "json",
	"csv", "yaml", "xml", "markdown", "spreadsheet", "chart", "charts", "graph", "outline",
	"one pager", "summary", "executive summary", "doc", "document", "checklist", "matrix", "faq",
	"diagram", "blog post", "article", "press release", "script", "template", "timeline",
	"headings", "sections", "scorecard", "rubric", "prd", "battlecard", "gantt", "dashboard",
	"infographic", "whitepaper", "newsletter", "tweet", "thread", "letter", "brief", "proposal",
	"plan", "playbook", "roadmap", "canvas", "swot", "pdf", "paragraphs", "q&a", "code", "snippet",
	"ranked list", "comparison table", "csv file", "structured", "news release", "announcement",
	"post", "policy", "posting", "job ad", "listing", "register", "guide", "handbook",
	"bibliography", "readout", "spec", "design doc", "note", "message", "reply", "slack post",
	"postmortem", "sequence", "cadence", "okrs", "kit", "brochure", "landing page", "faq page",
}

func formatCredit(t *text) float64 {
	n := 0
	for _, p := range formatPhrases {
		if t.has(p) {
			n++
			if n >= 2 {
				return 1
			}
		}
	}
	if strings.Contains(t.lower, "q&a") {
		n++
	}
	return math.Min(1, float64(n)*2/3)
}

// ---- constraints ----

var weekday = `(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|tomorrow|tonight|today|eod|eow|cob|end of|the end of|next|noon|midnight|\d)`

var deadlineRe = regexp.MustCompile(`\b(?:(?:by|before|until|due|no later than)\s+` + weekday + `|deadline|asap|urgent|embargo\w*|within\s+\d+\s+(?:hours?|days?|weeks?))`)

var budgetRe = regexp.MustCompile(`(?:\bbudget\b|[$€£]\s?\d|\b\d[\d,\.]*\s?(?:k|m)?\s?(?:usd|eur|gbp|dollars|euros|pounds)\b|\bcost(?:s)? (?:under|below|less than)\b)`)

var tonePhrases = []string{
	"tone", "formal", "informal", "casual", "neutral", "friendly", "professional", "playful",
	"serious", "conversational", "persuasive", "empathetic", "plain english", "plain language",
	"no jargon", "jargon free", "inclusive language", "voice", "upbeat", "warm", "objective",
	"technical level", "non technical", "humorous", "diplomatic", "blunt", "constructive",
}

var rulePhrases = []string{
	"must", "must not", "mustn't", "should not", "shouldn't", "don't", "do not", "avoid", "never",
	"without", "at least", "at most", "no more than", "maximum", "minimum", "required", "requirement",
	"requirements", "mandatory", "compliance", "compliant", "gdpr", "hipaa", "soc 2", "pci",
	"iso 27001", "cite", "citations", "sources", "confidential", "in english", "in german",
	"in french", "in spanish", "no more", "limit", "cannot", "can't", "not allowed", "approved",
	"brand guidelines", "style guide", "accessible", "wcag",
}

func constraintsCredit(t *text) float64 {
	kinds := 0
	if deadlineRe.MatchString(t.lower) {
		kinds++
	}
	if budgetRe.MatchString(t.lower) {
		kinds++
	}
	if t.has(tonePhrases...) {
		kinds++
	}
	if t.has(rulePhrases...) {
		kinds++
	}
	return math.Min(1, float64(kinds)/2)
}

// ---- length ----

var lengthRe = regexp.MustCompile(`(?:\b|~)(?:\d[\d,\.]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|a single|single|half a|half)\s?(?:k\s)?[\s\-]?(?:words?|pages?|paragraphs?|sentences?|slides?|bullets?|bullet points|lines?|minutes?|mins?|characters?|chars|tweets?|pager|screens?|items?|points|sections|questions|emails|touches|steps)\b`)

var vagueLength = []string{"short", "brief", "concise", "long form", "detailed", "in depth", "lengthy", "comprehensive", "tl;dr", "tldr", "one liner", "succinct", "extensive"}

func lengthCredit(t *text) float64 {
	if lengthRe.MatchString(t.lower) {
		return 1
	}
	if t.has(vagueLength...) {
		return 0.4
	}
	return 0
}

// ---- context ----

var contextPhrases = []string{
	"we are", "we're", "i am", "i'm", "we have", "we've", "we use", "we sell", "we run", "we build",
	"we make", "we offer", "we serve", "we currently", "currently", "at the moment", "right now",
	"background", "context", "attached", "see below", "below", "the following", "here is",
	"here are", "here's", "our company", "our product", "our startup", "our team", "our business",
	"our customers", "our clients", "our users", "startup", "founded", "last year", "last quarter",
	"previously", "so far", "because", "since we", "we want", "we need", "we plan", "we were",
	"we had", "we just", "our current", "existing", "today we", "as of",
}

var contextRe = regexp.MustCompile(`\b\d[\d,]*[- ](?:person|people|employee|employees|staff|seat|seats)\b|\b\d[\d,\.]*\s?[km]?\s?(?:arr|mrr|revenue|customers|users)\b|\$\d[\d,\.]*\s?[km]?\s?(?:arr|mrr|revenue)`)

var possessives = map[string]bool{"our": true, "my": true, "we": true, "us": true, "i": true}

func contextCredit(t *text) float64 {
	if t.has(contextPhrases...) || contextRe.MatchString(t.lower) {
		return 1
	}
	if t.hasWord(possessives) {
		return 0.5
	}
	return 0
}

// ---- vague words ----

var vagueWords = []string{"stuff", "thing", "things", "something", "somehow", "whatever", "etc", "and so on", "the usual", "make it better", "make it pop"}

func vagueWordsIn(t *text) []string {
	var out []string
	for _, w := range vagueWords {
		if t.has(w) {
			out = append(out, w)
		}
	}
	return out
}
