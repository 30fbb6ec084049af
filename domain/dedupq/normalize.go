package dedupq

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize is the form of content that exact matches compare: Unicode
// NFKC, lower case, runs of white space as one space, and without the
// punctuation and spaces around it. Two contents differing only in case,
// spacing or a trailing full stop are the same task.
func Normalize(content string) string {
	s := strings.ToLower(norm.NFKC.String(content))
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
}

// Hash is the exact-match key of content: the SHA-256 of its normalized
// form, in hex.
func Hash(content string) string {
	sum := sha256.Sum256([]byte(Normalize(content)))
	return hex.EncodeToString(sum[:])
}

// ValidHash reports whether h has the shape of a Hash.
func ValidHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// Canonical is content as the local embedder should see it: words folded
// to a canonical synonym and stem ("summarise", "summarizing", "sum up"
// are all "summarize"), so that paraphrases share features. A provider's
// embedder gets the content as written (it knows synonyms itself).
func Canonical(content string) string {
	words := tokens(content)
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) {
			if c, ok := phrases[w+" "+words[i+1]]; ok {
				out = append(out, c)
				i++
				continue
			}
		}
		w = strings.TrimSuffix(w, "'s")
		if filler[w] {
			continue
		}
		if n, ok := numberWords[w]; ok {
			w = n
		} else if c, ok := synonyms[w]; ok {
			w = c
		} else {
			w = stem(w)
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// tokens are the lower-cased words and numbers of s, apostrophes kept
// ("don't"), other punctuation dropped except inside numbers ("1.5").
func tokens(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.Trim(b.String(), ".,'"))
			b.Reset()
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case (r == '.' || r == ',' || r == '\'' || r == '’') && b.Len() > 0 && i+1 < len(rs) &&
			(unicode.IsDigit(rs[i+1]) || (r != '.' && r != ',' && unicode.IsLetter(rs[i+1]))):
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	kept := out[:0]
	for _, t := range out {
		if t != "" {
			kept = append(kept, t)
		}
	}
	return kept
}

// stem strips the commonest English inflections, conservatively: a word
// of five letters or fewer is kept whole.
func stem(w string) string {
	if strings.ContainsAny(w, "0123456789") {
		return w
	}
	if n := len([]rune(w)); n <= 5 {
		if n >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			return strings.TrimSuffix(w, "s")
		}
		return w
	}
	for _, suf := range []string{"isation", "ising", "ised", "ises", "ise"} { // British spelling
		if strings.HasSuffix(w, suf) {
			w = strings.TrimSuffix(w, suf) + "iz" + strings.TrimPrefix(suf, "is")
			break
		}
	}
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ies", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			base := strings.TrimSuffix(w, suf)
			if suf == "ies" {
				base += "y"
			}
			return base
		}
	}
	return w
}

// filler are words that say nothing about the task.
var filler = set(`a an the and of to in on for with at by from as is are be it its this that these those please
	can could would should will you your me my i we our us some any kindly just also into onto about which all every each
	vs versus against`)

// synonyms map a word to its canonical form.
var synonyms = func() map[string]string {
	m := map[string]string{}
	for canon, ws := range map[string]string{
		"summarize": "summarize summarise summarizing summarising summarized summarised summary summaries recap condense digest",
		"write":     "write writing wrote draft drafting compose composing author create prepare produce",
		"article":   "article articles post posts blogpost piece essay",
		"analyze":   "analyze analyse analyzing analysing analysis evaluate evaluation assess assessment examine review",
		"translate": "translate translating translation translated",
		"list":      "list listing enumerate",
		"fix":       "fix fixing repair resolve correct patch debug",
		"error":     "error errors bug bugs issue issues defect",
		"find":      "find finding locate search identify lookup",
		"compare":   "compare comparing comparison contrast",
		"email":     "email emails e-mail mail message",
		"report":    "report reports writeup",
		"customer":  "customer customers client clients",
		"generate":  "generate generating",
		"explain":   "explain explaining explanation describe description",
		"convert":   "convert converting conversion transform",
		"extract":   "extract extracting pull",
		"check":     "check checking verify verifying validate validation",
		"show":      "show display",
		"get":       "get fetch retrieve obtain",
		"make":      "make build",
		"migrate":   "migrate migrating migration move moving port porting transfer",
		"update":    "update updating refresh modify change edit",
		"big":       "big large huge",
		"small":     "small little tiny",
		"quick":     "quick fast brief short",
		"data":      "data dataset datasets",
		"document":  "document documents doc docs documentation",
		"meeting":   "meeting meetings call",
		"enable":    "enable enabled enabling activate activated",
		"disable":   "disable disabled disabling deactivate deactivated",
		"delete":    "delete deleted deleting remove removed removing erase",
		"quarter":   "quarter quarterly",
		"month":     "month monthly",
		"week":      "week weekly",
		"year":      "year yearly annual annually",
	} {
		for _, w := range strings.Fields(ws) {
			m[w] = canon
		}
	}
	return m
}()

// phrases map two-word phrases to one canonical word.
var phrases = map[string]string{
	"sum up": "summarize", "turn on": "enable", "switch on": "enable", "turn off": "disable", "switch off": "disable",
	"look up": "find", "blog post": "article", "write up": "write", "set up": "setup", "come up": "generate",
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// LocalEmbedder is the name prefix of the local embedders
// (embedding.Local): their input is Canonical.
const LocalEmbedder = "local-"

// EmbedText is what embedder (by name) embeds for content: the kept part
// of it, canonical for a local embedder.
func EmbedText(content, embedder string) string {
	kept := Keep(content)
	if strings.HasPrefix(embedder, LocalEmbedder) {
		return Canonical(kept)
	}
	return kept
}
