package planning

import "strings"

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
	if !asked && (empty || confidence < noAskFloor && narrative(all) || confidence < fragmentFloor) {
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
	unnamed := false // "something on AI": a topic, and no thing named
	for _, a := range focus {
		toks := mainPart(a.toks)
		objects += contentWords(toks)
		for i, t := range toks {
			w := t.text
			if (w == "something" || w == "anything") && i+1 < len(toks) && topicWords[toks[i+1].text] {
				unnamed = true
			}
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
	case objects == 0 && placeholder, unnamed && !specific:
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

// mainPart is an ask without its trailing subordinate clause ("check this
// for me before I send it"): what follows a subordinator is circumstance,
// not the object asked about.
func mainPart(ts []token) []token {
	for i, t := range ts {
		if i > 1 && subordinators[t.text] {
			return ts[:i]
		}
	}
	return ts
}

var topicWords = set(`on about regarding re`)

var subordinators = set(`before after once until when while because since`)

// noAskFloor is the lexical confidence a description with no ask at all
// (no request verb, no "need", no deliverable, no question with an object)
// needs to be planned: a note ("warehouse throughput by shift, what
// stands out") is planned when its words point clearly at one type.
const noAskFloor = 0.7

// fragmentFloor is noAskFloor for a note that opens with what it wants
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
	"please proceed", "go ahead", "for background", "any progress", "any update", "any updates", "following up", "any help",
	"appreciate any help", "appreciate your help"}

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
var placeholders = stemSet(`thing things stuff something anything everything whatever side part bit piece area matter situation usual same mess`)
