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
	// split: it opens with, or was opened by, a word that announces another
	// request ("also", "separately", "second", "plus")
	split bool
	// sentence counts the sentence marks before the clause
	sentence int
	// semicolon: a semicolon, not a list mark, split it off
	semicolon bool
	// colon: it follows a colon (a list of contents, often)
	colon bool
}

// requestVerbs open an imperative ask (base forms: an imperative is one).
var requestVerbs = set(`redesign rework revamp overhaul rethink restructure grab write draft create prepare produce compose build design plan review check analyze analyse assess evaluate
	audit compare summarize summarise extract pull classify categorize categorise tag label score rate rank rerank re-rank group cluster
	grade research find identify list outline define set develop map propose recommend suggest estimate calculate forecast improve
	streamline fix optimize optimise reduce investigate explain answer tell give generate update rewrite edit turn convert parse
	translate structure organize organise sort prioritize prioritise help run conduct perform synthesize synthesise document describe
	determine validate verify test benchmark size model lay sketch spec brainstorm mark sanity-check stress-test go dig look put come
	break work do make get pick choose select decide figure whip knock sum scope frame collect gather compile redo revise polish craft
	assemble spin take think handle own deal care start continue finish move follow apply add vet grab say flag spot assign
	highlight proofread choose decide tell pick evaluate quantify rewrite shorten expand localize`)

// askWords make a clause an ask wherever they stand ("we need a JD").
var askWords = set(`need needs want wants require requires looking request requesting help`)

// fillers may precede the verb of an ask ("please", "can you", "I need
// you to"); they are skipped when looking for it.
var fillers = set(`please pls plz kindly can could would will you u i we i'd we'd i'll let's lets me us to need needs want wants
	like love just also then quickly help and so ok okay hey hi hello now first next finally separately additionally plus lastly second
	secondly third also, should must have has got gotta going be able try trying`)

// splitters start a new clause when they follow "and" or a comma, or stand
// alone: "and also", "separately", "plus", "then".
var splitters = set(`also separately additionally plus then lastly finally second secondly third thirdly fourth next unrelated besides meanwhile`)

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
	opened, split, semicolon, colon, sentence := false, false, false, false, 0
	flush := func(question bool) {
		if len(cur) > 0 {
			if splitters[cur[0].text] || cur[0].text == "and" || cur[0].text == "+" {
				split, semicolon = true, false
			}
			out = append(out, clause{toks: cur, question: question, opened: opened, split: split, sentence: sentence, semicolon: semicolon, colon: colon})
		}
		cur = []token{}
		opened, split, semicolon, colon = false, false, false, false
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.punct {
			announced := t.text == ":" && len(cur) > 0 && (split || splitters[cur[0].text] || cur[0].text == "and" || cur[0].text == "+")
			flush(t.text == "?")
			sentence++
			if announced { // "plus a quick answer: what's the UK tax rate?"
				split, semicolon, colon = true, false, true
				continue
			}
			// a semicolon or a list mark separates items; what follows is
			// announced as a request of its own
			split, semicolon, colon = t.item, t.text == ";", t.text == ":"
			continue
		}
		w := stemWord(t.text)
		if w == "and" || t.text == "," || w == "then" || w == "plus" || w == "+" || w == "&" {
			if ok, statement := opensAsk(ts[i+1:], t.text == ","); ok && len(cur) > 0 {
				flush(false)
				// "and"/"then"/"plus" coordinate a new request; a comma
				// alone may only list how to make the last one ("apologize,
				// give the new date, offer 10 % off"), and "and we want to
				// improve cash flow" states a goal
				opened = true
				split = !statement && (t.text != "," || i+1 < len(ts) && (splitters[ts[i+1].text] || ts[i+1].text == "and"))
				continue
			}
		}
		if raw := fold(t.text); splitters[raw] && len(cur) >= 3 && (raw == "separately" || raw == "additionally" || raw == "lastly" || raw == "finally") {
			flush(false)
			opened, split = true, true
			continue
		}
		cur = append(cur, t)
	}
	flush(false)
	for i := 0; i+1 < len(out); i++ {
		if onlySplitters(out[i].toks) { // "Unrelated: classify …", "Second thing: …"
			out[i+1].split = true
		}
	}
	for i := range out {
		out[i].verb, out[i].ask = askOf(out[i].toks)
		if i == 0 && !out[i].question && len(out[i].toks) > 2 && questionOpeners[out[i].toks[0].text] {
			out[i].question = true // "who is the CEO of Nvidia", without its mark
		}
		if out[i].question || out[i].opened {
			out[i].ask = true
		}
	}
	return out
}

// onlySplitters reports whether a clause is only words that announce
// another request ("Unrelated", "Second thing", "Also").
func onlySplitters(ts []token) bool {
	for _, t := range ts {
		if !splitters[t.text] && !fillers[t.text] && t.text != "thing" && t.text != "," {
			return false
		}
	}
	return len(ts) > 0
}

// politeOpeners ask for something whatever follows.
var politeOpeners = map[string]bool{"can you": true, "could you": true, "would you": true, "will you": true, "can u": true}

// questionOpeners open a question even without its question mark.
var questionOpeners = set(`who what when where which why how whats what's who's how's`)

// stateWords tell that a deliverable named in a clause exists already or
// is being described ("the PRD is attached", "the project plan already
// exists", "his code reviews are slow"): such a clause is context, not an
// ask for it.
var stateWords = set(`is are was were be been being isn't aren't wasn't has have had exists exist existed done attached approved
	final finalised finalized finished complete completed ready went came concluded already below above almost wrapped accepted
	signed shipped published sent`)

// relatives open a clause about something else ("a reply to this customer
// who's angry their order is late").
var relatives = set(`who who's whose which that where when because since if whom`)

// describesState reports whether the first deliverable phrase of ts is
// followed, within six words and before a comma or a clause mark, by a
// state word; words in parentheses ("(notes attached)") do not count.
func describesState(ts []token) bool {
	d := deliverables(ts[:min(len(ts), 8)])
	if len(d) == 0 {
		return false
	}
	end := d[0].at + d[0].n
	for _, t := range ts[end:min(len(ts), end+6)] {
		if t.punct || t.text == "," || relatives[t.text] {
			return false
		}
		if stateWords[t.text] && !t.aside {
			return true
		}
	}
	return false
}

// opensAsk reports whether ts begins a new ask: after optional splitters and
// fillers, a request verb, or a deliverable phrase (after an article). Loose
// accepts a bare deliverable too ("then the JD").
func opensAsk(ts []token, afterComma bool) (ok, statement bool) {
	i := 0
	sawSplitter, sawAnd := false, false
	for i < len(ts) && !ts[i].punct && (splitters[fold(ts[i].text)] || fillers[ts[i].text]) {
		switch {
		case splitters[fold(ts[i].text)]:
			sawSplitter = true
		case ts[i].text == "and":
			sawAnd = true
		case subjects[ts[i].text]:
			statement = true
		}
		i++
	}
	if i >= len(ts) || ts[i].punct || ts[i].aside {
		return false, false
	}
	for j := i; j < min(len(ts), i+4); j++ {
		if w := ts[j].text; w == "separately" || w == "separate" && j > 0 && ts[j-1].text == "a" {
			sawSplitter = true // "and, in a separate doc, ..."
		}
	}
	if sawSplitter {
		return true, false
	}
	w := stemWord(ts[i].text)
	if requestVerbs[ts[i].text] && i+1 < len(ts) && (determiners[stemWord(ts[i+1].text)] || objectPronouns[stemWord(ts[i+1].text)] ||
		splitters[ts[i+1].text] || leadingDeliverable(ts[i+1:], false) || whObjects[ts[i+1].text]) {
		return true, statement
	}
	if w == "of" && i+1 < len(ts) && determiners[stemWord(ts[i+1].text)] { // "et d'un PRD": "and of a PRD"
		i++
		w = stemWord(ts[i].text)
	}
	if determiners[w] {
		return leadingDeliverable(ts[i:], true) && !describesState(ts[i:]), statement
	}
	// ", and due diligence on Datadog": a bare deliverable after ", and"
	return afterComma && sawAnd && leadingDeliverable(ts[i:], false) && !describesState(ts[i:]), statement
}

// whObjects open an indirect question as a verb's object ("and rate how
// urgent this email is").
var whObjects = set(`how whether which`)

// subjects make a coordinated clause a statement ("and we want to …").
var subjects = set(`i we they he she`)

// determiners open a noun phrase.
var determiners = stemSet(`a an the our my your their this these that those some one two three another his her its each every all`)

// leadingDeliverable reports whether a strong deliverable phrase opens ts:
// after an article at most two modifiers may come first ("a 3-year
// strategic plan"), otherwise none.
func leadingDeliverable(ts []token, afterArticle bool) bool {
	d := deliverables(ts[:min(len(ts), 8)])
	limit := 0
	if afterArticle {
		limit = 3 // the article and two modifiers
	}
	return len(d) > 0 && d[0].at <= limit && d[0].strong
}

// objectPronouns may follow a request verb after "and" ("and send it");
// after a bare "and" a verb opens an ask only before one of these or a
// determiner, since "and pick times dropped" or "pricing and packaging"
// hold no verb at all.
var objectPronouns = stemSet(`it them me us him her all each every up out together`)

// askOf reports whether a clause opens with a request verb (after fillers),
// and whether it is an ask: such a verb, an ask word anywhere, or a clause
// that opens with a deliverable ("JD for a senior data engineer, remote").
func askOf(ts []token) (verb, ask bool) {
	rest := skipLeadIns(ts)
	if len(rest) > 0 && requestVerbs[rest[0].text] {
		return true, true
	}
	if len(ts) > 2 && politeOpeners[ts[0].text+" "+ts[1].text] {
		return true, true // "Kannst du unsere Preisgestaltung überarbeiten": the verb comes last
	}
	for _, t := range ts {
		if askWords[t.text] {
			return false, true
		}
	}
	if describesState(ts) {
		return false, false
	}
	if len(rest) > 0 && (determiners[stemWord(rest[0].text)] || strings.HasSuffix(rest[0].text, "'s")) {
		return false, leadingDeliverable(rest, true) // "Mark's annual performance review"
	}
	return false, len(rest) > 0 && leadingDeliverable(rest, false)
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
	morning afternoon eod cob time deadline urgent urgently some few couple bit lot lots way ways kind sort etc area areas side part parts stuff,
	numbers figures situation matter matters topic topics point points option options thing, again further more less whole overall
	general generally basic simple usual regular current new old other different various several many much all any each every
	think know sure possible maybe perhaps probably really actually somehow properly done finished ready deliver deliverable
	handle sort deal presentation slides deck one ones end follow discuss ahead forward phase going hand nothing big offsite care
	question questions visibility everyone everybody nobody someone people way start move together before after even too ready doing
	quarter done stuff through prepared findings results insights writeup write-up graphs charts takeaways talked discussed
	proceed fyi context background`)
