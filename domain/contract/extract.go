package contract

import (
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
)

// maxStarts bounds how many '{' or '[' positions extract tries in prose, so
// a long answer full of brackets costs linear, not quadratic, time.
const maxStarts = 32

var fence = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\r?\n?(.*?)```")

var (
	errNoJSON = errors.New("no JSON object or array found in the answer")
	errCutOff = errors.New("the JSON in the answer is cut off")
)

// extract finds the JSON document in an answer: the whole text, else the
// first fenced code block, else the first object or array that decodes from
// a '{' or '[' in the prose. It never picks a fragment of broken or cut-off
// JSON: a truncated list must not pass as its first record. changed reports
// that something around the JSON was stripped. Numbers stay json.Number so
// their spelling survives.
func extract(answer string) (doc any, changed bool, err error) {
	text := strings.TrimSpace(answer)
	whole, wholeErr := decodeAll(text)
	if wholeErr == nil && container(whole) {
		return whole, false, nil
	}
	if m := fence.FindStringSubmatch(text); m != nil {
		if v, err := decodeAll(strings.TrimSpace(m[1])); err == nil && container(v) {
			return v, true, nil
		}
	}
	var fallback any // an array without records, such as a "[1]" citation
	tries := 0
	for i := 0; i < len(text) && tries < maxStarts; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		tries++
		v, err := decodeFirst(text[i:])
		var syntax *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF): // the rest is inside a cut-off value
			return nil, false, errCutOff
		case errors.As(err, &syntax): // never pick a fragment of broken JSON
			i += max(int(syntax.Offset)-1, 0)
		case err != nil:
		case holdsRecord(v):
			return v, true, nil
		case fallback == nil:
			fallback = v
		}
	}
	switch {
	case fallback != nil:
		return fallback, true, nil
	case wholeErr == nil: // a bare string, number, boolean or null
		return whole, false, nil
	}
	return nil, false, errNoJSON
}

// holdsRecord reports whether v is an object or an array with an object in it.
func holdsRecord(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return true
	case []any:
		for _, e := range v {
			if _, ok := e.(map[string]any); ok {
				return true
			}
		}
	}
	return false
}

func container(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func decoder(s string) *json.Decoder {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	return d
}

// decodeAll decodes s, which must hold exactly one JSON value.
func decodeAll(s string) (any, error) {
	d := decoder(s)
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

// decodeFirst decodes the JSON value at the start of s, ignoring what follows.
func decodeFirst(s string) (any, error) {
	var v any
	if err := decoder(s).Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
