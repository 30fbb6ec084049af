package planning

import "strings"

// English phrasal verbs carry their request in two or three words ("go
// through the model", "come up with improvements"): phrasal rewrites them
// to the one verb the classifier knows, so the ask opens with a request
// verb and its object counts. Other languages reach the same verbs through
// their lexicons.
var phrasalVerbs = map[string]string{
	"go through":     "review",
	"go over":        "review",
	"look over":      "review",
	"look through":   "review",
	"have a look at": "review",
	"take a look at": "review",
	"come up with":   "propose",
	"put together":   "prepare",
	"pull together":  "prepare",
	"turn around":    "handle",
	"get ahead of":   "handle",
	"sort out":       "handle",
	// a second request announced in passing
	"while you're at it":  "also",
	"while you are at it": "also",
	"while you're there":  "also",
	"on top of that":      "also",
	"in the same go":      "also",
}

// phrasalLongest is the most words a phrasal verb has.
const phrasalLongest = 5

// phrasal rewrites the phrasal verbs of English tokens; the replacement
// spans the words it stands for.
func phrasal(ts []token) []token {
	var out []token
	for i := 0; i < len(ts); {
		n, verb := 0, ""
		for k := min(phrasalLongest, len(ts)-i); k >= 2 && n == 0; k-- {
			words := make([]string, 0, k)
			for _, t := range ts[i : i+k] {
				if t.punct || t.text == "," {
					break
				}
				words = append(words, t.text)
			}
			if len(words) == k {
				if v, ok := phrasalVerbs[strings.Join(words, " ")]; ok {
					n, verb = k, v
				}
			}
		}
		if n == 0 || verb == "review" && anotherAsk(ts[i+n:]) {
			// "go through the tickets and tag each": the material of the
			// ask that follows, not a review of its own
			out = append(out, ts[i])
			i++
			continue
		}
		out = append(out, token{text: verb, start: ts[i].start, end: ts[i+n-1].end})
		i += n
	}
	return out
}

// anotherAsk reports whether the rest of the sentence asks for something
// with a verb of its own ("… and tag each", "…, find the weaknesses").
func anotherAsk(ts []token) bool {
	for i, t := range ts {
		if t.punct && sentenceEnds[t.text] {
			return false
		}
		if t.text == "then" {
			return false // "go through the model, then write the memo": a sequence of two
		}
		if (t.text == "and" || t.text == ",") && i+1 < len(ts) && requestVerbs[ts[i+1].text] {
			return true
		}
	}
	return false
}

var sentenceEnds = set(`. ! ? ; :`)
