package pitfalldb

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits of a report's fields, in characters.
const (
	MaxTaskType = 100
	MaxText     = 4000
	MaxShort    = 200
)

// Domain errors.
var (
	// ErrRequired is a required field left empty.
	ErrRequired = errors.New("is required")
	// ErrTooLong is a field over its limit.
	ErrTooLong = errors.New("is too long")
	// ErrTaskType is a task type with no letter or digit.
	ErrTaskType = errors.New("must hold letters or digits")
)

// FieldError is a report or query refused because of one field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return "field " + e.Field + " " + e.Err.Error() }

// Unwrap is the reason.
func (e *FieldError) Unwrap() error { return e.Err }

// Failure is what went wrong, as the reporter describes it.
type Failure struct {
	ErrorType, ErrorMessage, RootCause, FixApplied string
	FixWorked                                      bool
	Language, Framework, Provider                  string
}

// Report is a failure report as received.
type Report struct {
	TaskType, TaskDescription string
	Failure                   Failure
}

// TaskTypeOf is a task type as given, scrubbed then normalized: the
// task type reports and queries key on.
func TaskTypeOf(s string) string { return NormalizeTaskType(Scrub(s)) }

// NormalizeTaskType lower-cases a task type and joins its words with
// underscores: "Web Scraping" and "web-scraping" are web_scraping.
func NormalizeTaskType(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
			continue
		}
		sep = true
	}
	return b.String()
}

// Check normalizes r (task type, trimmed fields, lower-cased language,
// framework and provider) and scrubs every free-text field: the report
// as it may be stored. A field over its limit, or a required one empty,
// is a *FieldError.
func (r Report) Check() (Report, error) {
	lengths := []struct {
		field string
		value *string
		max   int
	}{
		{"task_type", &r.TaskType, MaxTaskType}, {"task_description", &r.TaskDescription, MaxText},
		{"failure.error_type", &r.Failure.ErrorType, MaxShort}, {"failure.error_message", &r.Failure.ErrorMessage, MaxText},
		{"failure.root_cause", &r.Failure.RootCause, MaxText}, {"failure.fix_applied", &r.Failure.FixApplied, MaxText},
		{"failure.language", &r.Failure.Language, MaxShort}, {"failure.framework", &r.Failure.Framework, MaxShort},
		{"failure.provider", &r.Failure.Provider, MaxShort},
	}
	for _, l := range lengths {
		*l.value = strings.TrimSpace(*l.value)
		if utf8.RuneCountInString(*l.value) > l.max {
			return Report{}, &FieldError{l.field, fmt.Errorf("%w (at most %d characters)", ErrTooLong, l.max)}
		}
	}
	if r.TaskType == "" {
		return Report{}, &FieldError{"task_type", ErrRequired}
	}
	if r.TaskType = TaskTypeOf(r.TaskType); r.TaskType == "" {
		return Report{}, &FieldError{"task_type", ErrTaskType}
	}
	if r.TaskDescription == "" {
		return Report{}, &FieldError{"task_description", ErrRequired}
	}
	f := &r.Failure
	if f.ErrorType == "" && f.ErrorMessage == "" && f.RootCause == "" {
		return Report{}, &FieldError{"failure", fmt.Errorf("%w: name at least one of error_type, error_message, root_cause", ErrRequired)}
	}
	for _, v := range []*string{&r.TaskDescription, &f.ErrorType, &f.ErrorMessage, &f.RootCause, &f.FixApplied, &f.Language, &f.Framework, &f.Provider} {
		*v = Scrub(*v)
	}
	f.Language, f.Framework, f.Provider = strings.ToLower(f.Language), strings.ToLower(f.Framework), strings.ToLower(f.Provider)
	return r, nil
}

var (
	quotedRe      = regexp.MustCompile(`'[^']*'|"[^"]*"|` + "`[^`]*`")
	urlRe         = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://\S+`)
	placeholderRe = regexp.MustCompile(`\[[A-Z_]+\]`)
	numberRe      = regexp.MustCompile(`\b(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*|\d+(?:[.,]\d+)*[a-z]{0,3})\b`)
	nonWordRe     = regexp.MustCompile(`[^\p{L}\p{N}#]+`)
)

// signatureWords is how many words of a message its signature keeps.
const signatureWords = 8

// skeleton is text without what varies between two occurrences of one
// failure: quoted values, URLs, placeholders and numbers go, the first
// signatureWords words stay, lower-cased.
func skeleton(text string) string {
	s := strings.ToLower(text)
	s = urlRe.ReplaceAllString(s, " url ")
	s = placeholderRe.ReplaceAllString(strings.ToUpper(s), " ")
	s = strings.ToLower(s)
	s = quotedRe.ReplaceAllString(s, " _ ")
	s = numberRe.ReplaceAllString(s, "#")
	words := strings.Fields(nonWordRe.ReplaceAllString(s, " "))
	if len(words) > signatureWords {
		words = words[:signatureWords]
	}
	return strings.Join(words, " ")
}

// Signature is the failure's signature (decision 222): its error type,
// normalized, and the skeleton of its message (of its root cause when it
// has no message).
func (f Failure) Signature() string {
	msg := f.ErrorMessage
	if msg == "" {
		msg = f.RootCause
	}
	return errorTypeKey(f.ErrorType) + "|" + skeleton(msg)
}

// errorTypeKey is an error type in snake case: TimeoutError, timeout
// error and timeout_error are timeout_error.
func errorTypeKey(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return NormalizeTaskType(b.String())
}

// namespace derives pitfall ids.
var namespace = uuid.MustParse("6f1d3c52-8c1e-4e8f-9a3b-5d7e2c4b1a90")

// PitfallID is the pitfall a checked report joins: a starter pitfall of
// its task type whose signals its failure shows, or the pitfall of its
// task type and signature.
func PitfallID(r Report) (id string, starter bool) {
	if s, ok := MatchStarter(r.TaskType, r.Failure); ok {
		return s.ID, true
	}
	return uuid.NewSHA1(namespace, []byte(r.TaskType+"\n"+r.Failure.Signature())).String(), false
}
