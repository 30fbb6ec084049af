package injection

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Payloads hidden from a human reader: HTML comments, letters spaced out
// and base64. Each is decoded and scanned again; what it hides is never
// lowered as discussed.

var (
	commentRe = regexp.MustCompile(`(?s)<!--(.*?)-->`)
	// single letters separated by one to three spaces, eight or more
	spacedRe = regexp.MustCompile(`\b[a-z](?: {1,3}[a-z]\b){7,}`)
	// base64 (standard or URL-safe) runs of 24 characters or more
	base64Re = regexp.MustCompile(`[A-Za-z0-9+/_-]{24,}={0,2}`)
	wordGap  = regexp.MustCompile(` {2,}`)
)

// comments scans what HTML comments hold: a finding inside one is hidden
// from the reader of the rendered page, so it is High.
func comments(text string, depth int) []Finding {
	var out []Finding
	for _, m := range commentRe.FindAllStringSubmatchIndex(text, -1) {
		inner := text[m[2]:m[3]]
		if rep := scan(inner, depth+1); rep.Severity >= Medium {
			out = append(out, Finding{Rule: "hidden_comment", Severity: High, Start: m[0], End: m[1], Excerpt: excerpt(strings.TrimSpace(inner))})
		}
	}
	return out
}

// spaced joins letters spaced out ("i g n o r e  a l l") into words
// (two spaces or more part words) and scans the result.
func spaced(n normalized, depth int) []Finding {
	var out []Finding
	for _, m := range spacedRe.FindAllStringIndex(n.text, -1) {
		run := n.text[m[0]:m[1]]
		var words []string
		for _, w := range wordGap.Split(run, -1) {
			words = append(words, strings.ReplaceAll(w, " ", ""))
		}
		joined := strings.Join(words, " ")
		if len(words) == 1 { // no word breaks kept: try the run as one word too
			joined = strings.ReplaceAll(run, " ", "")
		}
		// the text after the run may finish the phrase
		rest := n.text[m[1]:min(len(n.text), m[1]+80)]
		if rep := scan(joined+rest, depth+1); rep.Severity >= Medium {
			start, end := n.span(m[0], m[1])
			out = append(out, Finding{Rule: "spaced_text", Severity: rep.Severity, Start: start, End: end, Excerpt: excerpt(joined)})
		}
	}
	return out
}

// encoded decodes base64 runs that decode to text and scans that text.
func encoded(text string, depth int) []Finding {
	var out []Finding
	for _, m := range base64Re.FindAllStringIndex(text, -1) {
		plain, ok := decodeText(text[m[0]:m[1]])
		if !ok {
			continue
		}
		if rep := scan(plain, depth+1); rep.Severity >= Medium {
			out = append(out, Finding{Rule: "encoded", Severity: High, Start: m[0], End: m[1], Excerpt: excerpt(plain)})
		}
	}
	return out
}

// decodeText decodes s as standard or URL-safe base64, padded or not, and
// reports whether the result is text (valid UTF-8, nearly all printable).
func decodeText(s string) (string, bool) {
	trimmed := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		raw, err := enc.DecodeString(trimmed)
		if err != nil || !utf8.Valid(raw) {
			continue
		}
		printable, total := 0, 0
		for _, r := range string(raw) {
			total++
			if unicode.IsPrint(r) || r == '\n' || r == '\t' {
				printable++
			}
		}
		if total >= 8 && printable*100 >= total*95 {
			return string(raw), true
		}
	}
	return "", false
}

func excerpt(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:80], "")
}
