package dedupq

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The guard against a semantic cache's known false hits: two texts whose
// embeddings are close but that ask for different things ("enable SSO"
// and "disable SSO", "the top 10" and "the top 20", "for Acme" and "for
// Globex", "in March" and "in May", "do" and "do not"). A semantic match
// stands only when the texts' signatures agree; an exact match needs none.

// Signature is what a text says that embeddings blur: its numbers, its
// polar words (each side of an opposition), whether it is negated, its
// named entities and dates, and its words (to find another text's
// entities in it whatever their case).
type Signature struct {
	Numbers  []string `json:"n,omitempty"`
	Polar    []string `json:"p,omitempty"`
	Negated  bool     `json:"neg,omitempty"`
	Entities []string `json:"e,omitempty"`
	// Direction is "X>Y" for a text that goes from X to Y.
	Direction string   `json:"d,omitempty"`
	Words     []string `json:"w,omitempty"`
}

// Conflict reasons: why a semantic match was refused.
const (
	ConflictNumbers   = "numbers"
	ConflictPolarity  = "polarity"
	ConflictNegation  = "negation"
	ConflictEntities  = "entities"
	ConflictDirection = "direction"
)

// Sign is text's signature.
func Sign(text string) Signature {
	var s Signature
	raw := rawWords(text)
	lower := make([]string, len(raw))
	for i, w := range raw {
		lower[i] = strings.ToLower(w)
	}
	neg := 0
	for i, w := range lower {
		if n, ok := number(w); ok {
			s.Numbers = append(s.Numbers, n)
			continue
		}
		if i+1 < len(lower) {
			if p, ok := polarPhrases[w+" "+lower[i+1]]; ok {
				s.Polar = append(s.Polar, p)
				continue
			}
		}
		if p, ok := polar[w]; ok {
			s.Polar = append(s.Polar, p)
		}
		if negators[w] || strings.HasSuffix(w, "n't") {
			neg++
		}
		if dates[w] && (!ambiguousDates[w] || raw[i] != w) {
			s.Entities = append(s.Entities, w)
		} else if entity(raw, i) {
			s.Entities = append(s.Entities, w)
		}
	}
	s.Negated = neg%2 == 1
	s.Direction = direction(lower)
	s.Numbers, s.Polar, s.Entities, s.Words = uniq(s.Numbers), uniq(s.Polar), uniq(s.Entities), uniq(lower)
	return s
}

// Conflict is why a and b must not match ("" when they may): their
// numbers, polar words or negation differ, or an entity of one is not a
// word of the other.
func Conflict(a, b Signature) string {
	switch {
	case !slices.Equal(a.Numbers, b.Numbers):
		return ConflictNumbers
	case !slices.Equal(a.Polar, b.Polar):
		return ConflictPolarity
	case a.Negated != b.Negated:
		return ConflictNegation
	case !covered(a.Entities, b.Words) || !covered(b.Entities, a.Words):
		return ConflictEntities
	case a.Direction != b.Direction && a.Direction != "" && b.Direction != "":
		return ConflictDirection
	}
	return ""
}

// Encode is s as stored beside a result (JSON).
func (s Signature) Encode() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DecodeSignature reads an encoded signature; a bad one is empty.
func DecodeSignature(raw string) Signature {
	var s Signature
	_ = json.Unmarshal([]byte(raw), &s)
	return s
}

// direction is "X>Y" for words that say "from X ... to Y" (or "into
// Y"), X and Y the first words after "from" and "to" that are no
// article; "" when they do not.
func direction(words []string) string {
	after := func(i int) string {
		for j := i + 1; j < len(words); j++ {
			if !titleWords[words[j]] {
				return words[j]
			}
		}
		return ""
	}
	from := slices.Index(words, "from")
	if from < 0 {
		return ""
	}
	for j := from + 1; j < len(words); j++ {
		if words[j] == "to" || words[j] == "into" {
			x, y := after(from), after(j)
			if x == "" || y == "" {
				return ""
			}
			return x + ">" + y
		}
	}
	return ""
}

// covered reports whether every entity is among words (both sorted).
func covered(entities, words []string) bool {
	for _, e := range entities {
		if _, ok := slices.BinarySearch(words, e); !ok {
			return false
		}
	}
	return true
}

// rawWords are text's words as written (case kept), split as tokens does.
func rawWords(text string) []string {
	var out []string
	var b strings.Builder
	rs := []rune(text)
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.Trim(b.String(), ".,'"))
			b.Reset()
		}
	}
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case (r == '.' || r == ',' || r == '\'' || r == '’' || r == '-' || r == '%' || r == '$') && i+1 < len(rs) &&
			(unicode.IsDigit(rs[i+1]) || (b.Len() > 0 && (r == '\'' || r == '’' || r == '-') && unicode.IsLetter(rs[i+1]))):
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
		case r == '%' && b.Len() > 0:
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

// number is w as a number ("1,000" and "one thousand"'s words alike), ok
// when w holds a digit or is a number word.
func number(w string) (string, bool) {
	if n, ok := numberWords[w]; ok {
		return n, true
	}
	if !strings.ContainsFunc(w, unicode.IsDigit) {
		return "", false
	}
	w = strings.ReplaceAll(strings.TrimPrefix(w, "$"), ",", "")
	if f, err := strconv.ParseFloat(w, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return w, true
}

// entity reports whether words[i] names something: capitalized inside a
// sentence, all capitals (two letters or more) or mixed case ("iOS",
// "GitHub"). A sentence's first word counts only when it is all capitals
// or mixed case.
func entity(words []string, i int) bool {
	w := words[i]
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return mixedCase(w)
	}
	if allCaps(w) && utf8.RuneCountInString(w) >= 2 {
		return !commonCaps[strings.ToLower(w)]
	}
	if mixedCase(w) {
		return true
	}
	return i > 0 && !titleWords[strings.ToLower(w)]
}

func allCaps(w string) bool {
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// mixedCase reports an upper-case letter after the first letter of a word
// that also has lower-case letters ("iOS", "GitHub", "PostgreSQL").
func mixedCase(w string) bool {
	lower, upperLater := false, false
	for i, r := range w {
		if unicode.IsLower(r) {
			lower = true
		}
		if i > 0 && unicode.IsUpper(r) {
			upperLater = true
		}
	}
	return lower && upperLater
}

func uniq(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// polar maps a word to its side of an opposition ("enable" and "disable"
// are the two sides of "able"); synonyms share a side.
var polar = func() map[string]string {
	m := map[string]string{}
	for _, pair := range [][2]string{
		{"enable enabled enables enabling activate activates activated allow allows allowed permit", "disable disabled disables disabling deactivate deactivates deactivated deny denies denied block blocks blocked forbid prohibit"},
		{"add adds added adding insert include includes including", "remove removes removed removing delete deletes deleted deleting drop exclude excludes excluding"},
		{"start starts started starting begin launch resume", "stop stops stopped stopping end halt pause"},
		{"increase increases increased increasing raise raises raising grow maximize maximise", "decrease decreases decreased decreasing lower lowers lowering reduce reduces reducing shrink cut minimize minimise"},
		{"open opens opened opening", "close closes closed closing"},
		{"lock locks locked locking", "unlock unlocks unlocked unlocking"},
		{"install installs installed installing", "uninstall uninstalls uninstalled uninstalling"},
		{"subscribe subscribes subscribed", "unsubscribe unsubscribes unsubscribed"},
		{"encrypt encrypts encrypted encrypting", "decrypt decrypts decrypted decrypting"},
		{"show shows showing display reveal", "hide hides hidden hiding"},
		{"accept accepts accepted approve approves approved", "reject rejects rejected decline declines declined"},
		{"upload uploads uploaded uploading", "download downloads downloaded downloading"},
		{"import imports imported importing", "export exports exported exporting"},
		{"buy buys bought buying purchase", "sell sells sold selling"},
		{"grant grants granted", "revoke revokes revoked"},
		{"connect connects connected", "disconnect disconnects disconnected"},
		{"before", "after"},
		{"maximum max highest most", "minimum min lowest least"},
		{"ascending asc", "descending desc"},
		{"upgrade upgrades upgraded", "downgrade downgrades downgraded"},
		{"send sends sent sending", "receive receives received receiving"},
		{"compress compresses compressed", "decompress decompresses decompressed"},
		{"true", "false"},
		{"positive", "negative"},
		{"more", "less fewer"},
		{"above over", "below under"},
		{"input inputs", "output outputs"},
		{"inbound incoming", "outbound outgoing"},
		{"public", "private"},
		{"online", "offline"},
		{"win wins won", "lose loses lost"},
		{"success successful succeeded", "failure failed failing"},
		{"first", "last"},
		{"new newest latest", "old oldest"},
		{"left", "right"},
		{"north", "south"},
		{"east", "west"},
		{"morning", "evening"},
	} {
		for side, words := range pair {
			for _, w := range strings.Fields(words) {
				m[w] = strings.Fields(pair[0])[0] + ":" + strconv.Itoa(side)
			}
		}
	}
	return m
}()

// polarPhrases are two-word sides ("turn on").
var polarPhrases = map[string]string{
	"turn on": polar["enable"], "switch on": polar["enable"], "turn off": polar["disable"], "switch off": polar["disable"],
	"opt in": "opt:0", "opt out": "opt:1", "log in": "log:0", "log out": "log:1", "sign in": "log:0", "sign out": "log:1",
	"scale up": polar["increase"], "scale down": polar["decrease"],
}

var negators = set(`not no never without none nobody nothing neither nor cannot cant dont doesnt didnt isnt arent wont shouldnt`)

var numberWords = func() map[string]string {
	m := map[string]string{}
	for i, w := range strings.Fields(`zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
		fifteen sixteen seventeen eighteen nineteen twenty`) {
		m[w] = strconv.Itoa(i)
	}
	for w, n := range map[string]string{"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
		"eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
		"dozen": "12", "half": "0.5", "once": "1", "twice": "2", "single": "1", "double": "2", "triple": "3",
		"second": "2", "third": "3", "fourth": "4", "fifth": "5", "tenth": "10"} {
		m[w] = n
	}
	return m
}()

// dates are words that name a time; they must agree like entities.
var dates = set(`january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
	today tomorrow yesterday tonight weekend q1 q2 q3 q4 h1 h2 spring summer autumn fall winter`)

// ambiguousDates are dates only when capitalized ("May", not "may").
var ambiguousDates = set(`may march fall sat sun`)

// titleWords are capitalized words that name nothing (a title's words).
var titleWords = set(`i a an the and or of to in on for with at by from as is are be it its this that please`)

// commonCaps are all-capitals words that are no entity.
var commonCaps = set(`i a ok`)
