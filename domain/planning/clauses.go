package planning

import "strings"

// A description is read as clauses, and each clause is either an ask (it
// requests something: "write a press release", "need a JD for ...", "what
// is the current rate?") or context (background, figures, constraints: "we
// are opening an office in Austin", "time to hire is 70 days"). Only asks
// can become intents; context attaches to the ask it describes.

// clause is a run of tokens between clause boundaries.
type clause struct {
	toks     []token
	ask      bool // it requests something
	verb     bool // it opens (after fillers) with a request verb
	question bool // it ends with a question mark
	opened   bool // a splitter or a coordinated deliverable opened it ("separately, ...", "and a press release")
}

// requestVerbs open an imperative ask (base forms: an imperative is one).
var requestVerbs = set(`write draft create prepare produce compose build design plan review check analyze analyse assess evaluate
	audit compare summarize summarise extract pull classify categorize categorise tag label score rate rank rerank re-rank group cluster
	grade research find identify list outline define set develop map propose recommend suggest estimate calculate forecast improve
	streamline fix optimize optimise reduce investigate explain answer tell give generate update rewrite edit turn convert parse
	translate structure organize organise sort prioritize prioritise help run conduct perform synthesize synthesise document describe
	determine validate verify test benchmark size model lay sketch spec brainstorm mark sanity-check stress-test go dig look put come
	break work do make get pick choose select decide figure whip knock sum scope frame collect gather compile redo revise polish craft
	assemble spin take think handle own deal care start continue finish move follow`)

// askWords make a clause an ask wherever they stand ("we need a JD").
var askWords = set(`need needs want wants require requires looking request requesting`)

// fillers may precede the verb of an ask ("please", "can you", "I need
// you to"); they are skipped when looking for it.
var fillers = set(`please pls plz kindly can could would will you u i we i'd we'd i'll let's lets me us to need needs want wants
	like love just also then quickly help and so ok okay hey hi hello now first next finally separately additionally plus lastly second
	secondly third also, should must have has got gotta going be able try trying`)

// splitters start a new clause when they follow "and" or a comma, or stand
// alone: "and also", "separately", "plus", "then".
var splitters = set(`also separately additionally plus then lastly finally secondly next`)

func stemSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[stemWord(fold(w))] = true
	}
	return m
}

// segment cuts ts into clauses at sentence marks, and at "and", "then",
// "plus", "also" or a comma when what follows opens a new ask: a request
// verb, a splitter or a deliverable phrase ("and a press release").
func segment(ts []token) []clause {
	var out []clause
	cur := []token{}
	opened := false
	flush := func(question bool) {
		if len(cur) > 0 {
			out = append(out, clause{toks: cur, question: question, opened: opened})
		}
		cur = []token{}
		opened = false
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.punct {
			flush(t.text == "?")
			continue
		}
		w := stemWord(t.text)
		if (w == "and" || t.text == "," || w == "then" || w == "plus" || w == "+" || w == "&") && len(cur) > 0 && opensAsk(ts[i+1:], t.text == ",") {
			flush(false)
			opened = true
			continue
		}
		if raw := fold(t.text); splitters[raw] && len(cur) >= 3 && (raw == "separately" || raw == "additionally" || raw == "lastly" || raw == "finally") {
			flush(false)
			opened = true
			continue
		}
		cur = append(cur, t)
	}
	flush(false)
	for i := range out {
		out[i].verb, out[i].ask = askOf(out[i].toks)
		if out[i].question || out[i].opened {
			out[i].ask = true
		}
	}
	return out
}

// opensAsk reports whether ts begins a new ask: after optional splitters and
// fillers, a request verb, or a deliverable phrase (after an article). Loose
// accepts a bare deliverable too ("then the JD").
func opensAsk(ts []token, afterComma bool) bool {
	i := 0
	sawSplitter := false
	for i < len(ts) && !ts[i].punct && (splitters[fold(ts[i].text)] || fillers[ts[i].text]) {
		if splitters[fold(ts[i].text)] {
			sawSplitter = true
		}
		i++
	}
	if i >= len(ts) || ts[i].punct {
		return false
	}
	for j := i; j < min(len(ts), i+4); j++ {
		if w := fold(ts[j].text); w == "separate" || w == "separately" {
			sawSplitter = true // "and, in a separate doc, ..."
		}
	}
	if sawSplitter {
		return true
	}
	w := stemWord(ts[i].text)
	if requestVerbs[ts[i].text] && (afterComma && !nounVerbs[ts[i].text] || i+1 < len(ts) && (determiners[stemWord(ts[i+1].text)] || objectPronouns[stemWord(ts[i+1].text)] || splitters[ts[i+1].text])) {
		return true
	}
	if determiners[w] {
		return i+1 < len(ts) && leadingDeliverable(ts[i+1:])
	}
	d := deliverables(ts[i:min(len(ts), i+5)])
	return len(d) > 0 && d[0].at == 0 && d[0].strong
}

// determiners open a noun phrase.
var determiners = stemSet(`a an the our my your their this these that those some one two three another his her its`)

// leadingDeliverable reports whether a strong deliverable phrase opens ts,
// after at most two modifiers ("a 3-year strategic plan").
func leadingDeliverable(ts []token) bool {
	d := deliverables(ts[:min(len(ts), 7)])
	return len(d) > 0 && d[0].at <= 2 && d[0].strong
}

// nounVerbs are request verbs as often nouns ("…, forecast for 3 years",
// "…, review by Friday"): after a comma they open an ask only before an
// article, a pronoun or a splitter, like any verb after "and".
var nounVerbs = set(`forecast plan review design draft map model test score rate rank list outline update sketch document
	structure set size mark check answer research audit estimate report budget schedule spec benchmark tag label group cluster
	sort brief scope frame`)

// objectPronouns may follow a request verb after "and" ("and send it");
// after a bare "and" a verb opens an ask only before one of these or a
// determiner, since "and pick times dropped" or "pricing and packaging"
// hold no verb at all.
var objectPronouns = stemSet(`it them me us him her all each every up out together`)

// askOf reports whether a clause opens with a request verb (after fillers),
// and whether it is an ask: such a verb, an ask word anywhere, or a clause
// that opens with a deliverable ("JD for a senior data engineer, remote").
func askOf(ts []token) (verb, ask bool) {
	i := 0
	for i < len(ts) && fillers[ts[i].text] {
		i++
	}
	if i < len(ts) && requestVerbs[ts[i].text] {
		return true, true
	}
	for _, t := range ts {
		if askWords[t.text] {
			return false, true
		}
	}
	j := i
	if j < len(ts) && determiners[stemWord(ts[j].text)] {
		j++
	}
	return false, j < len(ts) && leadingDeliverable(ts[j:])
}

// contentWords counts the words of ts that say what is wanted: not
// stopwords, fillers, request verbs or the generic words of vague asks.
func contentWords(ts []token) int {
	n := 0
	for _, t := range ts {
		if t.punct || t.text == "," || t.weak {
			continue
		}
		w := fold(t.text)
		s := stemWord(w)
		if len(w) < 2 && !isDigits(w) || strings.ContainsAny(w, "'’") || stopwords[w] || fillers[w] || requestVerbs[w] || askWords[w] || genericWords[s] {
			continue
		}
		n++
	}
	return n
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// genericWords say nothing about what is wanted: placeholders, vague
// objects, times and audiences ("something for the board next week").
var genericWords = stemSet(`thing things stuff something anything everything whatever it this that these those them analysis research
	report reports document doc docs overview summary project projects work task tasks issue issues problem problems idea ideas
	improvement improvements better good great best nice quick quickly detail details info information material materials content
	look into back feedback thoughts opinion meeting meetings board team teams company business boss manager management leadership
	today tomorrow tonight week weeks month months year soon asap later next last monday tuesday wednesday thursday friday weekend
	morning afternoon deadline urgent urgently some few couple bit lot lots way ways kind sort etc area areas side part parts stuff,
	numbers figures situation matter matters topic topics point points option options thing, again further more less whole overall
	general generally basic simple usual regular current new old other different various several many much all any each every
	think know sure possible maybe perhaps probably really actually somehow properly done finished ready deliver deliverable
	handle sort deal presentation slides deck one ones end follow discuss ahead forward phase going hand nothing big offsite care
	question questions visibility everyone everybody nobody someone people way start move together before after even too ready doing
	quarter done stuff through`)
