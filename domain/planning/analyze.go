package planning

import (
	"context"
	"fmt"
	"strings"
)

// Tiers of classification, recorded on the WorkflowPlanned event.
const (
	TierGiven     = "given"     // the caller named the task type
	TierLexical   = "lexical"   // deliverable phrases and the naive Bayes over the catalogue
	TierEmbedding = "embedding" // nearest catalogue examples by embedding
	TierLLM       = "llm"       // the LLM fallback, below the confidence threshold
)

// Analysis is what the classifier makes of a description: its language,
// whether it is too vague to plan, and the deliverables it asks for.
type Analysis struct {
	Language string // "en", "de", "fr" or "es"
	// Vague is a request with no object or deliverable to plan.
	Vague bool
	// Classification is the type of the description as one deliverable.
	Classification Classification
	// Intents holds two or more independent deliverables, or nothing.
	Intents []Intent
	// Reason says why a description was split.
	Reason string
	// Tier names the tier that decided.
	Tier string
	// Context is the text of the description's context clauses
	// (background, figures, constraints), given to every intent.
	Context string
}

// Analyze reads a description as a request: it carries it into English,
// cuts it into clauses and tells asks from context, finds the deliverables
// asked for, and classifies. Context never becomes an intent of its own;
// the deliverable decides the type and the topic only breaks ties.
func (cl *Classifier) Analyze(description string) Analysis {
	return cl.AnalyzeContext(context.Background(), description)
}

// AnalyzeContext is Analyze with a context for a provider's embeddings.
func (cl *Classifier) AnalyzeContext(ctx context.Context, description string) Analysis {
	toks, lang := toEnglish(description)
	a := Analysis{Language: lang, Tier: TierLexical}
	clauses := segment(toks)
	var asks []clause
	var context []string
	empty := false // an ask for nothing in particular ("thoughts?", "not sure what to do")
	for _, c := range clauses {
		if emptyAsk(c) {
			empty = true
		}
		if c.ask && !emptyAsk(c) {
			asks = append(asks, c)
		} else {
			context = append(context, source(description, c.toks))
		}
	}
	asked := len(asks) > 0
	if !asked {
		asks = []clause{{toks: toks}}
	}
	if intents := cl.intentsOf(description, asks); len(intents) > 1 {
		a.Intents = intents
		a.Classification = cl.Classify(tokenText(toks))
		a.Reason = splitReason(intents)
		a.Context = strings.Join(context, " ")
		return a
	}
	var lexical float64
	a.Classification, a.Tier, lexical = cl.single(ctx, toks, asks)
	a.Vague = cl.vague(asks, asked, empty, toks, lexical)
	return a
}

// single classifies the description as one deliverable: the first strong
// deliverable phrase of its asks when there is one, else the naive Bayes
// over its asks, or over the whole text when the asks alone say too little.
// The lexical confidence is returned too: vagueness is judged on it.
func (cl *Classifier) single(ctx context.Context, all []token, asks []clause) (Classification, string, float64) {
	for _, c := range asks {
		if tt := askedDeliverable(c.toks); tt != "" {
			return decided(cl.Classify(tokenText(c.toks)), tt), TierLexical, 1
		}
	}
	var askToks []token
	for _, c := range asks {
		askToks = append(askToks, c.toks...)
	}
	best := cl.Classify(tokenText(askToks))
	if len(askToks) != len(all) {
		if whole := cl.Classify(tokenText(all)); whole.Confidence > best.Confidence+0.15 {
			best = whole
		}
	}
	verb := ""
	if len(asks) > 0 {
		verb = leadVerb(asks[0].toks)
		if verb == "" && len(asks[0].toks) > 0 && asks[0].toks[0].text == "from" {
			verb = firstVerb(asks[0].toks) // "From this stack trace, just give me the exception type"
		}
	}
	if tt := verbKind(verb, scoringKind(best.TaskType, askToks), askToks); tt != best.TaskType {
		return decided(best, tt), TierLexical, best.Confidence
	}
	if q := asks[len(asks)-1]; factualQuestion(q) && best.TaskType != "quick_research" && onlyLeadIns(asks[:len(asks)-1]) {
		// "from what date do the EU AI Act rules apply?" asks for a fact,
		// whatever its topic
		return decided(best, "quick_research"), TierLexical, best.Confidence
	}
	var weak string
	for _, c := range asks {
		for _, d := range deliverables(c.toks) {
			if !d.strong && weak == "" {
				weak = d.taskType
			}
		}
	}
	if weak != "" && best.TaskType != weak && (best.Confidence < 0.6 || len(asks) > 0 && makesWeak(asks[0].toks)) {
		return decided(best, weak), TierLexical, best.Confidence
	}
	if best.Confidence >= embedBelow || best.TaskType == "" {
		return best, TierLexical, best.Confidence
	}
	typ, _, lead := cl.byEmbedding(ctx, tokenText(all))
	if typ < 0 {
		return best, TierLexical, best.Confidence
	}
	tt := cl.types[typ].ID
	if tt == best.TaskType {
		return best, TierLexical, best.Confidence
	}
	if lead >= embedMargin {
		c := best
		c.TaskType, c.Runner, c.Evidence = tt, best.TaskType, nil
		c.Confidence = round3(max(best.Confidence, min(0.9, 0.5+lead*5)))
		return c, TierEmbedding, best.Confidence
	}
	return best, TierLexical, best.Confidence
}

// leadVerb is the request verb a clause opens with, after fillers, or "".
func leadVerb(ts []token) string {
	for _, t := range ts {
		switch {
		case fillers[t.text] || splitters[t.text] || t.text == ",":
			continue
		case requestVerbs[t.text]:
			return t.text
		}
		return ""
	}
	return ""
}

// verbKind lets the verb of an atomic ask decide between neighbours the
// naive Bayes confuses: "cluster these reviews into themes" is `cluster`,
// not a research synthesis; "grade these answers" is `grade_set`;
// "classify each supplier as …" is `quick_classification`.
func verbKind(verb, tt string, ts []token) string {
	for len(ts) > 0 && (fillers[ts[0].text] || splitters[ts[0].text] || ts[0].text == ",") {
		ts = ts[1:] // "and is this ticket a bug or a feature request?"
	}
	has := func(words ...string) bool {
		for _, t := range ts {
			for _, w := range words {
				if t.text == w {
					return true
				}
			}
		}
		return false
	}
	outOf := false
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].text == "out" && ts[i+1].text == "of" || i == 0 && ts[0].text == "from" {
			outOf = true
		}
	}
	switch {
	case (verb == "extract" || verb == "pull" || verb == "get" || verb == "grab" || verb == "give") && outOf:
		// "pull the version number out of this changelog", "from the term sheet give me the valuation"
		if has("people", "companies", "names", "organizations", "organisations", "places", "locations", "entities", "persons", "regulators") {
			return "extract_entities"
		}
		return "quick_extraction"
	case (verb == "analyze" || verb == "analyse" || verb == "dig") && tt != "data_analysis_report" &&
		has("data", "dataset", "csv", "export", "spreadsheet", "numbers", "figures"):
		return "data_analysis_report"
	case verb == "vet" && tt != "vendor_due_diligence":
		return "vendor_due_diligence"
	case (verb == "synthesize" || verb == "synthesise") && has("interviews", "interview", "notes", "survey", "feedback", "verbatims"):
		return "user_research_synthesis"
	case (verb == "score" || verb == "rate") && families[tt] != 1 && (has("each", "these", "every", "all") || hasNumber(ts)):
		return scoringKind("score", ts)
	case verb == "parse" && tt != "parse_query":
		return "parse_query"
	case len(ts) > 2 && (ts[0].text == "is" || ts[0].text == "are") && (ts[1].text == "this" || ts[1].text == "it" || ts[1].text == "these") && has("or"):
		return "quick_classification" // "is this log line error, warning or info?"
	case len(ts) > 2 && ts[0].text == "which" && has("category", "class", "bucket", "categories"):
		return "quick_classification" // "which category does this defect fall into: …?"
	case (verb == "label" || verb == "tag") && families[tt] != 2:
		return "tag"
	case (verb == "translate" || verb == "break" || verb == "turn" || verb == "convert" || verb == "map") && has("into") &&
		has("filter", "filters", "fields", "structured", "query"):
		return "parse_query" // "break down '…' into structured fields"
	case len(ts) > 2 && (ts[0].text == "what's" || ts[0].text == "what" || ts[0].text == "whats") && docWithin(ts):
		return "quick_extraction" // "what's the interest rate and maturity date in this term sheet excerpt?"
	case (verb == "cluster" || verb == "group") && tt == "user_research_synthesis":
		return "cluster"
	case (verb == "grade" || verb == "mark") && (tt == "score" || tt == "quick_scoring"):
		return "grade_set"
	case (verb == "classify" || verb == "categorize" || verb == "categorise") && tt != "tag":
		return "quick_classification"
	case (verb == "rerank" || verb == "re-rank" || verb == "reorder") && tt != "rerank":
		return "rerank"
	}
	return tt
}

// hasNumber reports whether ts hold a number ("our 15 candidate vendors").
func hasNumber(ts []token) bool {
	for _, t := range ts {
		if isDigits(t.text) {
			return true
		}
	}
	return false
}

// docWithin reports whether ts point into a document given: "in this",
// "on this", "from this", "in the attached".
func docWithin(ts []token) bool {
	for i := 0; i+1 < len(ts); i++ {
		if (ts[i].text == "in" || ts[i].text == "on" || ts[i].text == "from") && (ts[i+1].text == "this" || ts[i+1].text == "these" || ts[i+1].text == "the" && i+2 < len(ts) && ts[i+2].text == "attached") {
			return true
		}
	}
	return false
}

// families are atomic types that one ask often touches together: a
// second clause of the same family is the same job.
var families = map[string]int{"score": 1, "quick_scoring": 1, "grade_set": 1, "tag": 2, "quick_classification": 2,
	"extract_entities": 3, "quick_extraction": 3, "cluster": 4, "user_research_synthesis": 4}

func siblings(a, b string) bool { return families[a] != 0 && families[a] == families[b] }

// actions group the verbs of one atomic action: "grade these replies …
// and mark each pass/fail" is one job.
var actions = map[string]int{"grade": 1, "mark": 1, "score": 1, "rate": 1, "rank": 1, "tag": 2, "label": 2, "classify": 2,
	"categorize": 2, "categorise": 2, "extract": 3, "pull": 3, "grab": 3}

func sameAction(a, b string) bool { return actions[a] != 0 && actions[a] == actions[b] }

// scoringKind tells the two scoring types apart: several criteria ("against
// our ICP: size, industry, budget", "with RICE") make a `score`; a quick
// pass on one dimension ("quickly rate each 1-5 for urgency") a
// `quick_scoring`. Other types pass through.
func scoringKind(tt string, ts []token) string {
	if tt != "score" && tt != "quick_scoring" {
		return tt
	}
	quick, criteria, commas := false, false, 0
	on, listed := false, 0
	for _, t := range ts {
		switch {
		case quickMarkers[t.text]:
			quick = true
		case criteriaMarkers[t.text]:
			criteria = true
		case t.text == ",":
			commas++
		}
		switch {
		case t.text == "on" || t.text == "across" || t.text == "by":
			on = true
		case on && (t.text == "," || t.text == "and"):
			listed++ // "on impact, effort and confidence"
		}
	}
	if listed >= 2 {
		criteria = true
	}
	single := false
	for _, t := range ts {
		switch t.text {
		case "this", "one":
			single = true
		case "these", "each", "every", "all":
			single = false
			goto counted
		}
	}
counted:
	if single && !criteria {
		return "quick_scoring" // "rate this commit message 1-5 for clarity"
	}
	switch {
	case quick && (!criteria || commas < 2):
		return "quick_scoring"
	case criteria || commas >= 3:
		return "score"
	}
	return tt
}

var (
	quickMarkers    = set(`quick quickly fast rapid just only simple snap`)
	criteriaMarkers = set(`criteria criterion rice ice icp weighted weights rubric scorecard dimensions factors against requirements`)
)

// makesWeak reports whether a clause asks to make the thing its weak
// deliverable word names ("draft the return and exchange policy"), not a
// message about it ("write the memo telling everyone about the policy").
func makesWeak(ts []token) bool {
	if !makingVerbs[stemWord(leadVerb(ts))] {
		return false
	}
	for _, t := range ts {
		w := stemWord(t.text)
		if commNouns[w] {
			return false
		}
		if _, weak := weakDeliverables[w]; weak {
			return true
		}
	}
	return false
}

// commas counts the commas of ts.
func commas(ts []token) int {
	n := 0
	for _, t := range ts {
		if t.text == "," {
			n++
		}
	}
	return n
}

// firstVerb is the first request verb of ts, or "".
func firstVerb(ts []token) string {
	for _, t := range ts {
		if requestVerbs[t.text] && !fillers[t.text] {
			return t.text
		}
	}
	return ""
}

// onlyLeadIns reports whether asks say nothing but "quickly check:".
func onlyLeadIns(asks []clause) bool {
	for _, a := range asks {
		if contentWords(a.toks) > 0 {
			return false
		}
	}
	return true
}

// factualQuestion reports whether an ask is a question for one fact:
// "who is …", "when did …", "how many …", "what is the current …", "from
// what date …", with no request verb.
func factualQuestion(c clause) bool {
	if !c.question || c.verb {
		return false
	}
	for _, t := range c.toks {
		if ownWords[t.text] {
			return false // "how much should we charge…", "who are our main competitors": advice, not a fact
		}
	}
	if first := c.toks[0].text; first == "does" || first == "did" || len(c.toks) > 1 && (first == "is" || first == "are") && c.toks[1].text == "there" {
		return !strings.Contains(" "+tokenText(c.toks)+" ", " or ") // "does ISO 9001 still require a quality manual?"
	}
	text := " " + tokenText(c.toks) + " "
	for _, p := range factualOpeners {
		if strings.Contains(text, " "+p+" ") {
			return true
		}
	}
	return false
}

var ownWords = set(`we our us should would could i my me`)

var factualOpeners = []string{"who is", "who was", "who's", "who are", "when did", "when does", "when do", "when is", "when was",
	"when will", "what date", "what year", "which year", "how many", "how much", "what is the current", "what's the current",
	"what is the latest", "what's the latest", "what is the population", "what's the population", "since when", "what time"}

// decided is classification c turned to task type tt, named by a
// deliverable phrase: its confidence is at least 0.9, its evidence kept
// only when the naive Bayes agreed.
func decided(c Classification, tt string) Classification {
	if c.TaskType != tt {
		c.TaskType, c.Runner, c.Evidence = tt, c.TaskType, nil
	}
	c.Confidence = max(c.Confidence, 0.9)
	return c
}

// intentsOf turns the asks into intents: an ask with a strong deliverable
// phrase of its own, or one that opens with a request verb and is
// confidently of one type, is an intent; an ask that names nothing ("and
// keep it short") belongs to the intent before it; intents of one type
// merge.
func (cl *Classifier) intentsOf(description string, asks []clause) []Intent {
	if len(asks) < 2 {
		return nil
	}
	var out []Intent
	prevVerb := ""
	for _, c := range asks {
		tt, conf, byPhrase := "", 0.0, false
		// a sentence that opens with a verb after a deliverable was asked
		// for says how to make it ("Apologize, give the new date";
		// "summarize methods and findings"), unless it announces another
		// request ("also", "separately") or names its own deliverable
		// after a deliverable named by a phrase, a clause split off by a
		// semicolon elaborates it too ("…studies from 2015 onward;
		// summarize methods and findings"); after an atomic ask it is the
		// next item of a list ("classify these …; grade the …")
		elaborates := len(out) > 0 && (!c.split || c.semicolon && out[len(out)-1].byPhrase) && !factualQuestion(c)
		if len(out) > 0 && c.colon && !c.split && !c.verb && commas(c.toks) >= 2 {
			// "the interview process: system design, coding, behavioral": contents
			out[len(out)-1].SourcePhrase += "; " + source(description, c.toks)
			continue
		}
		if d := askedDeliverable(c.toks); d != "" {
			tt, conf, byPhrase = d, 0.9, true
			cc := cl.Classify(tokenText(c.toks))
			if cc.TaskType == tt {
				conf = max(conf, cc.Confidence)
			}
		} else if w := weakDeliverable(c.toks); w != "" && !elaborates && makesWeak(c.toks) {
			tt, conf, byPhrase = w, 0.8, true // "write our new password policy"
		} else if !elaborates && (c.verb || c.question || c.opened || c.split) && contentWords(c.toks) >= 2 && !emptyVerbs[leadVerb(c.toks)] {
			cc := cl.Classify(tokenText(c.toks))
			cc.TaskType = verbKind(leadVerb(c.toks), scoringKind(cc.TaskType, c.toks), c.toks)
			confident := cc.Confidence >= 0.7 || c.split && cc.Posterior >= 0.9 && cc.Confidence >= 0.5 // announced requests need less
			if c.question && !c.verb && cc.TaskType != "quick_research" && cc.TaskType != "quick_classification" && len(out) > 0 {
				confident = false // "what went wrong, why monitoring missed it?" lists contents
			}
			if len(out) > 0 && (!out[len(out)-1].byPhrase && siblings(out[len(out)-1].TaskType, cc.TaskType) || sameAction(prevVerb, leadVerb(c.toks))) {
				confident = false // "mark these answers against the key and give a score per student": one job
			}
			if confident {
				tt, conf = cc.TaskType, cc.Confidence
			}
		}
		phrase := source(description, c.toks)
		if v := leadVerb(c.toks); v != "" {
			prevVerb = v
		}
		if tt == "" {
			if len(out) > 0 {
				out[len(out)-1].SourcePhrase += "; " + phrase
			}
			continue
		}
		merged := false
		for i := range out {
			if out[i].TaskType == tt {
				out[i].SourcePhrase += "; " + phrase
				merged = true
			}
		}
		if !merged {
			out = append(out, Intent{TaskType: tt, Confidence: round3(conf), SourcePhrase: phrase, byPhrase: byPhrase})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// askedDeliverable is the type of the first strong deliverable phrase of ts
// that is asked for, not described ("the interview plan is already set, I
// just need the posting": the posting).
func askedDeliverable(ts []token) string {
	for _, d := range deliverables(ts) {
		if d.strong && !describesState(ts[d.at:]) {
			return d.taskType
		}
	}
	return ""
}

// weakDeliverable is the type of the first weak deliverable word of ts.
func weakDeliverable(ts []token) string {
	for _, d := range deliverables(ts) {
		if !d.strong {
			return d.taskType
		}
	}
	return ""
}

// firstStrong is the type of the first strong deliverable phrase of ts.
func firstStrong(ts []token) string {
	for _, d := range deliverables(ts) {
		if d.strong {
			return d.taskType
		}
	}
	return ""
}

// source is the text of description that ts came from.
func source(description string, ts []token) string {
	if len(ts) == 0 {
		return ""
	}
	return strings.TrimSpace(description[ts[0].start:ts[len(ts)-1].end])
}

// splitReason says why a description became several workflows.
func splitReason(intents []Intent) string {
	parts := make([]string, len(intents))
	for i, in := range intents {
		parts[i] = fmt.Sprintf("%q asks for a %s", in.SourcePhrase, strings.ReplaceAll(in.TaskType, "_", " "))
	}
	return fmt.Sprintf("The description asks for %d independent deliverables: %s.", len(intents), strings.Join(parts, "; "))
}

// vague reports a request with nothing to plan: no deliverable is named,
// and the ask itself has no object ("can you take a look and help me
// out?", "prepare something for the board", "work on the Leeds stuff").
// The asks that open with a request verb are judged when there are any;
// context clauses count only when an ask with a verb of its own refers
// back to them ("invoice approval takes 3 weeks; speed it up").
func (cl *Classifier) vague(asks []clause, asked, empty bool, all []token, confidence float64) bool {
	if firstStrong(all) != "" {
		return false
	}
	if empty && cl.knownWords(asks) <= 1 {
		return true // "…and want to be prepared. Can you help me?"
	}
	if !asked && (empty || confidence < NoAskFloor && narrative(all) || confidence < fragmentFloor) {
		// nothing is asked ("the client call went badly… not sure what
		// to do here") and the words point nowhere in particular
		return true
	}
	focus := asks
	var withVerb []clause
	for _, a := range asks {
		if a.verb {
			withVerb = append(withVerb, a)
		}
	}
	if len(withVerb) > 0 {
		focus = withVerb
	}
	objects, specific, placeholder, makes, pronoun := 0, false, false, false, false
	for _, a := range focus {
		objects += contentWords(a.toks)
		for _, t := range a.toks {
			w := t.text
			switch {
			case placeholders[stemWord(w)]:
				placeholder = true
			case makeVerbs[w]:
				makes = true
			case requestVerbs[w] && !emptyVerbs[w] && !fillers[w]:
				specific = true
			case w == "it" || w == "this" || w == "that" || w == "them" || w == "one":
				pronoun = true
			}
		}
	}
	switch {
	case objects == 0 && placeholder:
		return true
	case objects == 0:
		// "write it up" after the facts refers back to them
		context := contentWords(all)
		referred := makes && pronoun && context >= 3
		return !(specific && context >= 2) && !referred
	case placeholder && !specific && cl.knownWords(focus) <= 1:
		return true // "do the usual for the Henderson account": a name is no object
	}
	return contentWords(all) <= 1 && confidence < 0.5
}

// NoAskFloor is the lexical confidence a description with no ask at all
// (no request verb, no "need", no deliverable, no question with an object)
// needs to be planned: a note ("warehouse throughput by shift, what
// stands out") is planned when its words point clearly at one type.
var NoAskFloor = 0.7

// fragmentFloor is NoAskFloor for a note that opens with what it wants
// ("quick sentiment score for each of these tweets", "survey of papers on
// …"): only a description the catalogue hardly knows is refused.
const fragmentFloor = 0.3

// narrative reports whether a description tells a story rather than names
// a thing: it opens with a pronoun, an article or a greeting ("We've grown
// from 20 to 80 people…", "The client call went badly…").
func narrative(ts []token) bool {
	for _, t := range ts {
		if t.punct || t.text == "," {
			continue
		}
		return narrativeOpeners[t.text] || strings.ContainsAny(t.text, "'’")
	}
	return false
}

var narrativeOpeners = set(`i we our my the they it there this that so ok okay hey hi hello things everything nothing lots big since
	after following looking re fwd fw he she their your us me just honestly well anyway basically`)

// emptyQuestion is a question with no object ("thoughts?", "where do we
// even start?", "¿qué opinas?"): it asks for nothing to plan.
func emptyQuestion(c clause) bool {
	if !c.question || c.verb || contentWords(c.toks) > 0 {
		return false
	}
	for _, t := range c.toks {
		if requestVerbs[t.text] && !emptyVerbs[t.text] && !makeVerbs[t.text] && !fillers[t.text] {
			return false // "how can we streamline it?"
		}
	}
	return true
}

// emptyAsk is an empty question, or a clause that asks for an opinion or
// for help in so many words ("not sure what to do here", "any ideas").
func emptyAsk(c clause) bool {
	if emptyQuestion(c) {
		return true
	}
	text := " " + tokenText(c.toks) + " "
	for _, p := range emptyPhrases {
		if strings.Contains(text, " "+p+" ") && contentWords(c.toks) <= 2 {
			return true
		}
	}
	return false
}

// emptyPhrases ask for an opinion or for help without saying with what.
var emptyPhrases = []string{"what do you think", "not sure what to do", "don't know what", "dont know what", "where do we start",
	"where do i start", "where do we even start", "where do i even start", "any ideas", "any thoughts", "thoughts", "ideas",
	"what should we do", "what should i do", "what would you do", "what now", "you know the drill", "what do you suggest",
	"what do you recommend", "your opinion", "what you think", "can you help", "help me", "help us", "what do we do", "what we do",
	"help me out", "help us out", "get it done", "getting on top", "whatever it takes", "do a first pass", "take care of it",
	"handle it", "sort it out", "deal with it", "as discussed", "per my last", "see attached", "let me know if you can help",
	"fill in", "just fyi", "fyi", "for context", "not sure what to ask", "as agreed", "we talked about", "what we discussed",
	"please proceed", "go ahead", "for background"}

// knownWords counts the object words of clauses that the catalogue knows
// (names and other unknown words do not count).
func (cl *Classifier) knownWords(cs []clause) int {
	n := 0
	for _, c := range cs {
		for _, t := range c.toks {
			if t.punct || t.text == "," || stopwords[t.text] || fillers[t.text] || requestVerbs[t.text] || genericWords[stemWord(t.text)] || placeholders[stemWord(t.text)] {
				continue
			}
			if _, ok := cl.idf[stemWord(t.text)]; ok {
				n++
			}
		}
	}
	return n
}

// emptyVerbs ask for nothing in particular, whatever they refer to
// ("take a look", "handle it"); makeVerbs ask to make something and need
// an object, which may be a pronoun referring back to the context ("write
// it up").
var (
	emptyVerbs = set(`look help handle sort deal do take work think figure follow get go come own care start continue finish move`)
	makeVerbs  = set(`prepare create write draft produce give tell run set make put`)
)

// placeholders stand for an object never named ("the customer thing").
var placeholders = stemSet(`thing things stuff something anything everything whatever side part bit piece area matter situation usual same`)
