package planning

import "strings"

// The naive Bayes confuses neighbouring atomic types; the words of an ask
// decide between them: its verb, the number of criteria, a question for
// one fact (decision 148).

// leadVerb is the request verb a clause opens with, after fillers, or "".
func leadVerb(ts []token) string {
	if ts = skipLeadIns(ts); len(ts) > 0 && requestVerbs[ts[0].text] {
		return ts[0].text
	}
	return ""
}

// skipLeadIns drops the fillers, splitters and commas a clause opens with
// ("and also, please …").
func skipLeadIns(ts []token) []token {
	for len(ts) > 0 && (fillers[ts[0].text] || splitters[ts[0].text] || ts[0].text == ",") {
		ts = ts[1:]
	}
	return ts
}

// verbKind lets the verb of an atomic ask decide between neighbours the
// naive Bayes confuses: "cluster these reviews into themes" is `cluster`,
// not a research synthesis; "grade these answers" is `grade_set`;
// "classify each supplier as …" is `quick_classification`.
func verbKind(verb, tt string, ts []token) string {
	ts = skipLeadIns(ts) // "and is this ticket a bug or a feature request?"
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
		if ts[i].text == "out" && ts[i+1].text == "of" && !(i+2 < len(ts) && isDigits(ts[i+2].text)) || i == 0 && ts[0].text == "from" {
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

// atomicVerbs name an atomic operation on their own: announced by "then"
// or "also", one object word is enough ("then cluster the articles by
// topic").
var atomicVerbs = set(`cluster group tag label classify categorize categorise extract pull grab score rate rank rerank grade parse translate`)

// refersBack reports an object that is a pronoun ("rate them by
// severity"): the clause works on what an ask before it made.
func refersBack(ts []token) bool {
	for _, t := range ts {
		if t.text == "it" || t.text == "them" || t.text == "those" || t.text == "these" {
			return true
		}
	}
	return false
}

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
