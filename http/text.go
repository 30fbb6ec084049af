package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"svc/projections"
)

// Text the service stores must be valid UTF-8 without U+0000: PostgreSQL
// refuses NUL in text and jsonb (SQLSTATE 22P05, 22021) and bytes that are
// not UTF-8, and jsonb also refuses an unpaired surrogate escape (\ud800).
// Such text is refused once, where a request is decoded: every string of a
// JSON body, object keys included (decodeBody), and every query parameter
// and path variable (checkParams). The answer is 400 invalid_field naming
// the field by its JSON path or the parameter by its name; nothing of the
// request reaches a command. Bytes that are not UTF-8 are refused, never
// replaced with U+FFFD as encoding/json would.

// Why a text is refused (the end of the invalid_field message).
const (
	whyNUL       = "holds a NUL character (U+0000), which text cannot contain."
	whyUTF8      = "is not valid UTF-8."
	whySurrogate = "holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff), which is not a character."
)

// textFault says why the decoded text s is refused; "" when it is fine.
func textFault(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return whyNUL
	}
	if !utf8.ValidString(s) {
		return whyUTF8
	}
	return ""
}

// jsonTextError walks every string of the JSON document raw, values and
// object keys, and refuses the first that holds U+0000 (escaped), bytes that
// are not UTF-8 or an unpaired surrogate escape: 400 invalid_field naming it
// by its path below root ("context.additional_context",
// "available_mcp_connections[0].server_url"; a key is named by its own
// path). raw must be valid JSON (json.Valid); nil when every string is fine.
func jsonTextError(raw []byte, root string) *apiError {
	w := textWalker{data: raw, root: root}
	return w.value()
}

// pathSeg is one step of a JSON path: an object key (its raw JSON text,
// quotes excluded) or an array index.
type pathSeg struct {
	key   []byte
	index int
	isKey bool
}

// textWalker scans a document json.Valid accepted; it therefore checks no
// syntax, only the text of the strings.
type textWalker struct {
	data []byte
	i    int
	root string
	path []pathSeg
}

func (w *textWalker) space() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *textWalker) value() *apiError {
	w.space()
	if w.i >= len(w.data) {
		return nil
	}
	switch w.data[w.i] {
	case '{':
		return w.object()
	case '[':
		return w.array()
	case '"':
		s := w.str()
		if why := rawTextFault(s); why != "" {
			return errInvalidField(w.pathString(), why)
		}
		return nil
	default: // number, true, false, null
		for w.i < len(w.data) {
			switch w.data[w.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return nil
			}
			w.i++
		}
		return nil
	}
}

func (w *textWalker) object() *apiError {
	w.i++ // {
	w.space()
	if w.i < len(w.data) && w.data[w.i] == '}' {
		w.i++
		return nil
	}
	for w.i < len(w.data) {
		w.space()
		key := w.str()
		w.path = append(w.path, pathSeg{key: key, isKey: true})
		if why := rawTextFault(key); why != "" {
			return errInvalidField(w.pathString(), "the field name "+why)
		}
		w.space()
		w.i++ // :
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.i < len(w.data) && w.data[w.i] == ',' {
			w.i++
			continue
		}
		w.i++ // }
		return nil
	}
	return nil
}

func (w *textWalker) array() *apiError {
	w.i++ // [
	w.space()
	if w.i < len(w.data) && w.data[w.i] == ']' {
		w.i++
		return nil
	}
	for n := 0; w.i < len(w.data); n++ {
		w.path = append(w.path, pathSeg{index: n})
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.space()
		if w.i < len(w.data) && w.data[w.i] == ',' {
			w.i++
			continue
		}
		w.i++ // ]
		return nil
	}
	return nil
}

// str consumes the string at w.i and returns its raw text between the
// quotes, escapes undecoded.
func (w *textWalker) str() []byte {
	w.i++ // opening quote
	start := w.i
	for w.i < len(w.data) && w.data[w.i] != '"' {
		if w.data[w.i] == '\\' {
			w.i++
		}
		w.i++
	}
	end := min(w.i, len(w.data))
	w.i++ // closing quote
	return w.data[start:end]
}

// pathString renders the current path: keys joined with ".", indices as
// "[n]"; a key is shown decoded, a NUL in it as \u0000.
func (w *textWalker) pathString() string {
	var b strings.Builder
	b.WriteString(w.root)
	for _, s := range w.path {
		if !s.isKey {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(keyName(s.key))
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// keyName decodes a raw JSON key for an error message: U+0000 shows as
// \u0000, bytes that are not UTF-8 as U+FFFD.
func keyName(raw []byte) string {
	var k string
	if err := json.Unmarshal([]byte(`"`+string(raw)+`"`), &k); err != nil {
		k = string(raw)
	}
	return paramName(k)
}

// rawTextFault says why the raw text of a JSON string (between its quotes,
// escapes undecoded, from a valid document) is refused; "" when it is fine.
func rawTextFault(s []byte) string {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) || s[i+1] != 'u' { // \" \\ \/ \b \f \n \r \t
				i += 2
				continue
			}
			r, ok := hex4(s, i+2)
			if !ok { // not in a valid document
				i += 2
				continue
			}
			i += 6
			switch {
			case r == 0:
				return whyNUL
			case r >= 0xDC00 && r <= 0xDFFF: // a low surrogate first
				return whySurrogate
			case r >= 0xD800 && r <= 0xDBFF: // a high surrogate: a low one must follow
				if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
					return whySurrogate
				}
				if low, ok := hex4(s, i+2); !ok || low < 0xDC00 || low > 0xDFFF {
					return whySurrogate
				}
				i += 6
			}
		case c < utf8.RuneSelf:
			if c == 0 { // never in a valid document; refused all the same
				return whyNUL
			}
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				return whyUTF8
			}
			i += size
		}
	}
	return ""
}

// hex4 reads the four hex digits of a \u escape at s[at:].
func hex4(s []byte, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// checkParams is the router's middleware that holds every route's path
// variables and query parameters, names and values, to the text rule
// above: 400 invalid_field naming the parameter. It runs once the route
// matched (mux.Vars are known) and before the route's own handling
// (authentication included).
func (s *Server) checkParams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := paramsError(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// nestedText decodes the parameters whose value carries text in an encoding
// of its own, so that the text inside is held to the rule too: the
// listing's cursor (base64url of a timestamp and a workflow id). A value
// that does not decode is left to the route.
var nestedText = map[string]struct {
	decode func(string) (string, bool)
	why    string
}{
	"cursor": {
		decode: func(v string) (string, bool) {
			c, err := projections.DecodeCursor(v)
			return c.WorkflowID, err == nil
		},
		why: "pass pagination.cursor of the previous page unchanged.", // what the listing says of a bad cursor
	},
}

// paramsError checks r's path variables, then its query parameters, each
// in name order; nil when every one is fine.
func paramsError(r *http.Request) *apiError {
	vars := mux.Vars(r)
	for _, name := range sortedKeys(vars) {
		if why := textFault(name); why != "" {
			return errInvalidField(paramName(name), "the parameter name "+why)
		}
		if why := textFault(vars[name]); why != "" {
			return errInvalidField(paramName(name), why)
		}
	}
	q := r.URL.Query()
	for _, name := range sortedKeys(q) {
		if why := textFault(name); why != "" {
			return errInvalidField(paramName(name), "the parameter name "+why)
		}
		for _, v := range q[name] {
			if why := textFault(v); why != "" {
				return errInvalidField(paramName(name), why)
			}
			if nested, ok := nestedText[name]; ok {
				if inner, ok := nested.decode(v); ok && textFault(inner) != "" {
					return errInvalidField(paramName(name), nested.why)
				}
			}
		}
	}
	return nil
}

// paramName shows a name (a parameter's, a JSON key) in an error: U+0000
// as \u0000, bytes that are not UTF-8 as U+FFFD, the empty name as "".
func paramName(name string) string {
	if name == "" {
		return `""`
	}
	return strings.ReplaceAll(strings.ToValidUTF8(name, "\uFFFD"), "\x00", `\u0000`)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
