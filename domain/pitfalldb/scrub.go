package pitfalldb

import (
	"net/netip"
	"regexp"
	"strings"
	"unicode"
)

// Scrubbing: every free-text field of a report passes through Scrub
// before its event is built, so personal data never reaches the log. Each
// kind of personal data is replaced by a typed placeholder, so a reader
// still sees that something was there (decision 221). The rules run in a
// fixed order: the most specific shapes first (a URL with credentials
// holds what looks like an email; a connection string holds a password).

// Placeholders that replace what Scrub removes.
const (
	PlaceholderEmail       = "[EMAIL]"
	PlaceholderPhone       = "[PHONE]"
	PlaceholderIP          = "[IP]"
	PlaceholderSecret      = "[SECRET]"
	PlaceholderURLCreds    = "[URL_CREDENTIALS]"
	PlaceholderUserPath    = "[USER_PATH]"
	PlaceholderName        = "[NAME]"
	PlaceholderCard        = "[CARD]"
	PlaceholderNationalID  = "[NATIONAL_ID]"
	placeholderPrefixRunes = "[" // every placeholder starts with it
)

// rule replaces what re matches by what repl returns for the match (its
// submatch indexes in sub); a nil repl replaces the whole match by
// placeholder.
type rule struct {
	re          *regexp.Regexp
	placeholder string
	repl        func(s string, sub []int) string
}

var rules = []rule{
	// private keys, whole blocks
	{re: regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`), placeholder: PlaceholderSecret},
	// scheme://user:password@host (a connection string too); the host
	// stays, the credentials go
	{re: regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/@:'"]+:[^\s@'"]*@`), repl: func(s string, sub []int) string {
		return s[sub[2]:sub[3]] + PlaceholderURLCreds + "@"
	}},
	// JSON web tokens
	{re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`), placeholder: PlaceholderSecret},
	// API keys and tokens with a known shape
	{re: regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`(?:sk|pk|rk)-(?:proj-|live-|test-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{16,}`,
		`(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`,
		`svc_(?:live|test)_[A-Za-z0-9_]{8,}`,
		`gh[pousr]_[A-Za-z0-9]{20,}`,
		`github_pat_[A-Za-z0-9_]{20,}`,
		`xox[abposr]-[A-Za-z0-9-]{10,}`,
		`(?:AKIA|ASIA)[A-Z0-9]{16}`,
		`AIza[0-9A-Za-z_-]{30,}`,
		`glpat-[A-Za-z0-9_-]{20,}`,
		`npm_[A-Za-z0-9]{30,}`,
		`hf_[A-Za-z0-9]{30,}`,
		`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`,
	}, "|") + `)`), placeholder: PlaceholderSecret},
	// Authorization schemes
	{re: regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/=-]{12,})`), repl: func(s string, sub []int) string {
		return s[sub[2]:sub[3]] + s[sub[4]:sub[5]] + PlaceholderSecret
	}},
	// name=value secrets: query strings, connection strings, JSON, env
	{re: regexp.MustCompile(`(?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|pwd|pass|secret|api[_-]?key|apikey|access[_-]?key|` +
		`access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|token|private[_-]?key|client[_-]?secret|` +
		`signature|sig|credentials?))("?\s*[=:]\s*"?|"\s*:\s*"|'\s*:\s*'|\s+is\s+)([^\s&;"',}<>)\]]{3,})`),
		repl: func(s string, sub []int) string {
			v := s[sub[6]:sub[7]]
			if strings.HasPrefix(v, placeholderPrefixRunes) || isNumber(v) && len(v) < 6 {
				return s[sub[0]:sub[1]]
			}
			return s[sub[2]:sub[3]] + s[sub[4]:sub[5]] + PlaceholderSecret
		}},
	// emails, also spelled out (alice at example dot com)
	{re: regexp.MustCompile(`[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`), placeholder: PlaceholderEmail},
	{re: regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+\s*(?:\[at\]|\(at\)|\s+at\s+)\s*[a-z0-9-]+\s*(?:\[dot\]|\(dot\)|\s+dot\s+)\s*[a-z]{2,}\b`), placeholder: PlaceholderEmail},
	// home directories: the user's segment goes, the rest of the path stays
	{re: regexp.MustCompile(`(?i)(?:/home/|/Users/|/usr/home/|/export/home/|[a-z]:(?:\\+|/)(?:Users|Documents and Settings)(?:\\+|/)|\\\\Users\\\\|~)[A-Za-z0-9._-]+`),
		repl: func(s string, sub []int) string {
			m := s[sub[0]:sub[1]]
			if strings.HasPrefix(m, "~") && (len(m) == 1 || !unicode.IsLetter(rune(m[1]))) {
				return m
			}
			return PlaceholderUserPath
		}},
	// IPv6, then IPv4 (loopback and unspecified addresses stay: they say
	// nothing of anyone)
	{re: regexp.MustCompile(`(?i)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:%[a-z0-9]+)?|(?:[0-9a-f]{0,4}:){2,6}\d+\.\d+\.\d+\.\d+`),
		repl: func(s string, sub []int) string {
			if sub[0] > 0 && wordByte(s[sub[0]-1]) || sub[1] < len(s) && wordByte(s[sub[1]]) {
				return s[sub[0]:sub[1]] // part of a word: Foo::Bar, std::vector
			}
			return ipOr(s[sub[0]:sub[1]], true)
		}},
	{re: regexp.MustCompile(`\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b`),
		repl: func(s string, sub []int) string {
			// a fifth number (1.2.3.4.5) is a version, not an address
			if sub[1] < len(s)-1 && s[sub[1]] == '.' && isDigit(s[sub[1]+1]) || sub[0] > 0 && (s[sub[0]-1] == '.' || s[sub[0]-1] == 'v' || s[sub[0]-1] == 'V') {
				return s[sub[0]:sub[1]]
			}
			return ipOr(s[sub[0]:sub[1]], false)
		}},
	// payment cards (Luhn-valid runs of 13-19 digits)
	{re: regexp.MustCompile(`\b\d(?:[ -]?\d){12,18}\b`), repl: func(s string, sub []int) string {
		if m := s[sub[0]:sub[1]]; luhn(m) && !isUnixTime(m) {
			return PlaceholderCard
		}
		return s[sub[0]:sub[1]]
	}},
	// US social security numbers
	{re: regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`), placeholder: PlaceholderNationalID},
	// phone numbers after a cue word, whatever their shape
	{re: regexp.MustCompile(`(?i)\b(phone|tel|telephone|mobile|cell|call me(?: at| on)?|text me(?: at| on)?|whatsapp|fax|reach me(?: at| on)?)(\s*(?:number|no\.?|#)?\s*(?:is\s+)?[:=]?\s*)(\+?\(?\d[\d\s().-]{5,}\d)`),
		repl: func(s string, sub []int) string {
			if n := digits(s[sub[6]:sub[7]]); n < 7 || n > 15 {
				return s[sub[0]:sub[1]]
			}
			return s[sub[2]:sub[3]] + s[sub[4]:sub[5]] + PlaceholderPhone
		}},
	// international numbers: +CC and 8-15 digits
	{re: regexp.MustCompile(`\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){2,6}\b`), repl: phoneIf(8, 15)},
	// North American numbers: (555) 123-4567, 555-123-4567, 555.123.4567
	{re: regexp.MustCompile(`(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b`), repl: phoneIf(10, 10)},
	// national numbers with a trunk 0: 020 7946 0958, 06 12 34 56 78, 07700 900123
	{re: regexp.MustCompile(`\b0\d{1,4}(?:[\s.-]\d{2,8}){1,4}\b`), repl: phoneIf(9, 12)},
	// long random secrets: hex of 32 or more, or mixed-case alphanumerics
	{re: regexp.MustCompile(`\b[0-9a-fA-F]{32,}\b`), placeholder: PlaceholderSecret},
	{re: regexp.MustCompile(`[A-Za-z0-9+/_=-]{32,}`), repl: func(s string, sub []int) string {
		if m := s[sub[0]:sub[1]]; random(m) {
			return PlaceholderSecret
		}
		return s[sub[0]:sub[1]]
	}},
	// names a writer gives: "my name is Alice Smith", and sign-offs
	{re: regexp.MustCompile(`(?i:\b(my name is|my name's|i am called|name:)\s+)([A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+){0,2})`),
		repl: func(s string, sub []int) string { return s[sub[0]:sub[4]] + PlaceholderName }},
	{re: regexp.MustCompile(`(?i:\b(regards|thanks|thank you|cheers|best|sincerely|kind regards|best regards|br|sent by|signed)),?[ \t]*(\r?\n[ \t]*|[ \t]+|\s*--\s*)([A-Z][\p{L}'-]+(?:[ \t]+[A-Z][\p{L}'.-]*){0,2})[ \t]*(?:\r?\n|$)`),
		repl: func(s string, sub []int) string {
			tail := strings.TrimRight(s[sub[7]:sub[1]], " \t")
			return s[sub[0]:sub[6]] + PlaceholderName + tail
		}},
	{re: regexp.MustCompile(`(?m)^--[ \t]*\r?\n[ \t]*[A-Z][\p{L}'-]+(?:[ \t]+[A-Z][\p{L}'.-]*){0,2}[ \t]*$`), placeholder: "--\n" + PlaceholderName},
}

// Scrub returns text with the personal data it finds replaced by typed
// placeholders. It is pure: no network, no state.
func Scrub(text string) string {
	if text == "" {
		return text
	}
	for _, r := range rules {
		if r.repl == nil {
			text = r.re.ReplaceAllString(text, r.placeholder)
			continue
		}
		text = replaceFunc(r.re, text, r.repl)
	}
	return text
}

// replaceFunc is regexp's ReplaceAllStringFunc with the submatch indexes.
func replaceFunc(re *regexp.Regexp, s string, repl func(string, []int) string) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(repl(s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// ipOr is PlaceholderIP for an address (the loopback and unspecified ones
// excepted), m unchanged otherwise.
func ipOr(m string, v6 bool) string {
	core := m
	if i := strings.IndexByte(core, '%'); i >= 0 {
		core = core[:i]
	}
	a, err := netip.ParseAddr(strings.Trim(core, ":"))
	if v6 {
		if a2, err2 := netip.ParseAddr(core); err2 == nil {
			a, err = a2, nil
		} else if strings.Count(core, ":") < 2 {
			return m
		}
	}
	if err != nil || v6 && !a.Is6() {
		return m
	}
	if a.IsLoopback() || a.IsUnspecified() {
		return m
	}
	return PlaceholderIP
}

// phoneIf replaces a match of min to max digits by PlaceholderPhone.
func phoneIf(lo, hi int) func(string, []int) string {
	return func(s string, sub []int) string {
		m := s[sub[0]:sub[1]]
		if n := digits(m); n < lo || n > hi || looksLikeDate(m) {
			return m
		}
		return PlaceholderPhone
	}
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func wordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isNumber(s string) bool { return s != "" && digits(s) == len(s) }

// looksLikeDate reports a run like 2024-01-15 or 15.01.2024 at its start.
var dateRe = regexp.MustCompile(`^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})`)

func looksLikeDate(s string) bool { return dateRe.MatchString(s) }

// luhn reports whether the digits of s pass the Luhn check.
func luhn(s string) bool {
	sum, n, double := 0, 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if !isDigit(c) {
			continue
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
		n++
	}
	return n >= 13 && sum%10 == 0
}

// isUnixTime reports a bare run of 13 digits (milliseconds since 1970),
// which a card check would otherwise catch one time in ten.
func isUnixTime(s string) bool {
	return len(s) == 13 && isNumber(s) && (s[0] == '1' || s[0] == '2')
}

// random reports whether s looks like a generated secret rather than a
// word or an identifier: upper and lower case letters and at least four
// digits, with no long run of lower-case letters.
func random(s string) bool {
	var upper, lower, digit, run, maxRun int
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
			run = 0
		case unicode.IsLower(r):
			lower++
			run++
			maxRun = max(maxRun, run)
		case unicode.IsDigit(r):
			digit++
			run = 0
		default:
			run = 0
		}
	}
	return upper > 0 && lower > 0 && digit >= 4 && maxRun < 8
}
