package injection

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalized is a text as the rules read it: lower case, compatibility
// forms folded (fullwidth letters), diacritics and invisible characters
// removed, look-alike Cyrillic and Greek letters mapped to Latin, curly
// quotes straightened and every white space one space or a line break
// (runs are kept, so spaced-out letters stay recognisable). from and to
// map each byte of text back to the span of the original rune it came
// from.
type normalized struct {
	text      string
	from, to  []int
	invisible int // invisible characters dropped (zero-width, tags, bidi)
	tags      int // Unicode tag characters (ASCII smuggling), decoded
}

// homoglyphs are Cyrillic and Greek letters that look like Latin ones.
var homoglyphs = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'к': 'k', 'м': 'm', 'т': 't', 'н': 'h', 'в': 'b',
	'α': 'a', 'ε': 'e', 'ο': 'o', 'ρ': 'p', 'ι': 'i', 'ν': 'v', 'κ': 'k', 'τ': 't',
}

// quotes are mapped to the ASCII quote they stand for.
var quotes = map[rune]rune{'“': '"', '”': '"', '„': '"', '‟': '"', '«': '"', '»': '"', '‘': '\'', '’': '\'', '‚': '\'', '‛': '\'', '´': '\''}

// invisible reports whether r is a character that shows nothing: zero-width
// spaces and joiners, word joiners and invisible operators, the byte-order
// mark, soft hyphens and bidirectional controls.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x2060 && r <= 0x2064, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0xFEFF || r == 0x00AD || r == 0x180E || r == 0x034F
}

// normalize builds the normalized form of text; gaps makes invisible
// characters spaces instead of nothing (they may separate words).
func normalize(text string, gaps bool) normalized {
	n := normalized{from: make([]int, 0, len(text)+1), to: make([]int, 0, len(text)+1)}
	var b strings.Builder
	b.Grow(len(text))
	emit := func(s string, start, end int) {
		b.WriteString(s)
		for range len(s) {
			n.from = append(n.from, start)
			n.to = append(n.to, end)
		}
	}
	prev := rune(0)
	for i, r := range text {
		end := i + utf8.RuneLen(r)
		if r == utf8.RuneError && end == i+1 {
			emit(" ", i, end)
			continue
		}
		switch {
		case r >= 0xE0000 && r <= 0xE007F: // tag characters: hidden ASCII
			if prev == 0x1F3F4 || r == 0xE007F || r < 0xE0020 { // a subdivision flag, or a control
				n.invisible++
				continue
			}
			n.tags++
			emit(strings.ToLower(string(r-0xE0000)), i, end)
			continue
		case invisible(r):
			n.invisible++
			if gaps {
				emit(" ", i, end)
			}
			continue
		case r == '\n':
			emit("\n", i, end)
			prev = r
			continue
		case unicode.IsSpace(r):
			emit(" ", i, end)
			prev = r
			continue
		}
		if q, ok := quotes[r]; ok {
			emit(string(q), i, end)
			prev = r
			continue
		}
		prev = r
		r = unicode.ToLower(r)
		if h, ok := homoglyphs[r]; ok {
			emit(string(h), i, end)
			continue
		}
		if r < utf8.RuneSelf {
			emit(string(r), i, end)
			continue
		}
		emit(fold(r), i, end)
	}
	n.text = b.String()
	n.from = append(n.from, len(text))
	n.to = append(n.to, len(text))
	return n
}

// fold is r in its compatibility form without combining marks (é is e,
// ｉ is i, ß stays).
func fold(r rune) string {
	var b strings.Builder
	for _, c := range norm.NFKD.String(string(r)) {
		if !unicode.Is(unicode.Mn, c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	if b.Len() == 0 {
		return " "
	}
	return b.String()
}

// span is the original byte span of the normalized bytes [s, e).
func (n normalized) span(s, e int) (int, int) {
	if e <= s {
		return n.from[s], n.from[s]
	}
	return n.from[s], n.to[e-1]
}
