package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"svc/projections"
)

// Go native fuzz tests of what decodes a request: the JSON body decoder
// with its text walk (decodeBody), preferences (decodePreferences),
// timestamp parameters (parseTimestamp), the listing's cursor
// (projections.DecodeCursor) and the parameter middleware (checkParams).
// `go test` runs the seeds; `make fuzz` fuzzes each target briefly.
// Properties: nothing panics; a refusal is an *apiError with status 400
// (413 for a body over maxBody) and a code; what is accepted holds no
// U+0000, no bytes that are not UTF-8 and no unpaired surrogate.

// bodySeeds are spec A's and B's request bodies and the bad cases.
var bodySeeds = []string{
	`{"task_description":"compare our pricing with three competitors"}`,
	`{"task_description":"compare our pricing with three competitors","task_type":"competitive_analysis",` +
		`"available_mcp_connections":[{"id":"c1","label":"Docs","server_url":"https://mcp.example.com/sse","capabilities":["resources"]}],` +
		`"preferences":{"rigor_level":"thorough","tool_scope":"recommended","model_preference":"balanced","max_budget_usd":2.5,` +
		`"skip_frameworks":["SWOT Analysis"],"add_frameworks":["Evidence Check",{"name":"Pre-Mortem","before_step":2}],` +
		`"require_approval":true,"approval_before_step":[1],"execution":"direct",` +
		`"output_contract":{"shape":"array","fields":[{"name":"score","type":"number"}]}},` +
		`"context":{"additional_context":"see docs/pricing.md"}}`,
	`{"task_description":"draft a launch plan for our mobile app in Germany","delivery":{"method":"webhook","webhook_url":"https://hooks.example.com/x"},` +
		`"mode":"interactive","language":"de-DE","prior_workflow_id":"wr_0123","context_fields":["deliverable"],"agent_id":"board_chair","workflow_ids":[]}`,
	`{"workflow_id":"wr_0123456789abcdef0123456789abcdef","action":"next","feedback":"shorter"}`,
	`{"workflow_id":"wr_0123","decision":"approved","notes":"ok","agent_id":"cfo"}`,
	`{"workflow_id":"wr_0123","revision_guidance":"focus on EU"}`,
	`{"action":"cancel","workflow_ids":["wr_1","wr_2"],"confirm":true,"force":false}`,
	`{"task_description":"write a blog post","task_type":"content","tier":"llm"}`,
	`{"email":"you@example.com","name":"Acme"}`,
	``, `{}`, `[]`, `null`, `"x"`, `{"a":1} {"b":2}`, `{"a":1}]`, `{"a":1}}`, `not json`, `{"a":`,
	// the holes: NUL, bytes that are not UTF-8, lone surrogates, in values and keys
	`{"task_description":"compare\u0000 pricing"}`,
	`{"task_description":"x y","context":{"additional_context":"a\u0000b"}}`,
	`{"task_description":"x y","available_mcp_connections":[{"id":"c","server_url":"https://a\u0000.example.com"}]}`,
	`{"workflow_id":"\u0000","action":"next"}`,
	"{\"task_description\":\"compare \xff pricing\"}",
	"{\"task_description\":\"over\xc0\xaflong\",\"x\":\"\xed\xa0\x80\"}",
	`{"preferences":{"rigor_level":"\ud800"}}`,
	`{"preferences":{"rigor_level":"\udc00\ud800"}}`,
	`{"ok":"\ud83d\ude00 \u00e9 \\u0000 \ufffd"}`,
	`{"a\u0000b":1}`,
	"{\"k\xff\":[1,2,{\"\":\"\"}]}",
	`{"a":[[[[[[[[[[[[[[[[[[[[{"b":"\u0000"}]]]]]]]]]]]]]]]]]]]}`,
	`{"a":[1,true,null,-0.5e3,"x",{"b":[]},{}]}`,
}

// FuzzDecodeBody decodes data as a request body into a raw document (what
// plan does) and into execute's body (typed fields: wrong types).
func FuzzDecodeBody(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw json.RawMessage
		rawErr := decodeFromBytes(data, &raw, true)
		var body executeBody
		typedErr := decodeFromBytes(data, &body, false)
		for _, err := range []*apiError{rawErr, typedErr} {
			checkRefusal(t, err, len(data))
		}
		if rawErr == nil {
			checkCleanJSON(t, raw)
		}
		if typedErr == nil {
			checkCleanValue(t, "body", reflect.ValueOf(body))
		}
		// the text rule comes first: a body refused for its text is refused
		// so whatever it is decoded into
		if rawErr != nil && rawErr.Code == "invalid_field" && (typedErr == nil || typedErr.Code != "invalid_field") {
			t.Fatalf("refused as raw (%v) but not as execute's body (%v)", rawErr, typedErr)
		}
	})
}

// FuzzDecodePreferences decodes data as preferences: directly (no panic,
// refusals are invalid_field) and as the server does, inside a plan body.
func FuzzDecodePreferences(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `7`, `"quick"`,
		`{"rigor_level":"quick","tool_scope":"all","model_preference":"cost_optimized","max_budget_usd":1}`,
		`{"skip_frameworks":["SWOT Analysis"],"only_frameworks":["Porter's Five Forces"]}`,
		`{"add_frameworks":["Evidence Check",{"name":"Pre-Mortem","before_step":2},{"name":""},{"before_step":0},7]}`,
		`{"add_frameworks":[{"name":"X","before_step":0}]}`,
		`{"require_approval":true,"approval_before_step":[0,1,2],"execution":"direct"}`,
		`{"output_contract":{"shape":"object","fields":[{"name":"a","type":"string","enum":["x"]}]}}`,
		`{"max_budget_usd":"cheap"}`, `{"approval_before_step":"1"}`,
		`{"rigor_level":"\u0000"}`, `{"skip_frameworks":["a\u0000"]}`, `{"add_frameworks":[{"name":"\u0000"}]}`,
		`{"output_contract":{"x":"\u0000"}}`, `{"output_contract":{"x":"\ud800"}}`, "{\"execution\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodePreferences(data); err != nil {
			checkRefusal(t, err, len(data))
			if err.Code != "invalid_field" {
				t.Fatalf("decodePreferences refused with %s", err.Code)
			}
		}
		doc := append(append([]byte(`{"task_description":"compare our pricing","preferences":`), data...), '}')
		var body planBody
		if err := decodeFromBytes(doc, &body, false); err != nil {
			checkRefusal(t, err, len(doc))
			return
		}
		prefs, err := decodePreferences(body.Preferences)
		if err != nil {
			checkRefusal(t, err, len(data))
			return
		}
		checkCleanValue(t, "preferences", reflect.ValueOf(prefs))
		checkCleanJSON(t, body.Preferences)
	})
}

// FuzzParseTimestamp parses a timestamp parameter, alone and behind the
// parameter middleware.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{
		"2026-03-01", "2026-03-01T00:00:00Z", "2026-03-01T10:00:00+02:00", "2026-03-01T10:00:00 02:00",
		"2026-03-01T10:00:00.123456789-05:30", " 2026-03-01 ", "2026-03-01T10:00:00", "2026-02-30", "yesterday", "",
		"2026-03-01\x00", "2026-03-01T10:00:00Z\xff", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00+23:59",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, date, err := parseTimestamp(s)
		if err != nil {
			if !errors.Is(err, errTimestamp) || !ts.IsZero() || date {
				t.Fatalf("parseTimestamp(%q): %v, %v, %v", s, ts, date, err)
			}
		} else {
			if ts.Location() != time.UTC {
				t.Fatalf("parseTimestamp(%q) = %v, not UTC", s, ts)
			}
			if date && (ts.Hour() != 0 || ts.Minute() != 0 || ts.Second() != 0 || ts.Nanosecond() != 0) {
				t.Fatalf("parseTimestamp(%q): a date at %v, not midnight", s, ts)
			}
			if !date && ts.Year() >= 0 && ts.Year() <= 9999 { // RFC 3339 has 4-digit years; an offset can move one out
				if again, _, err := parseTimestamp(ts.Format(time.RFC3339Nano)); err != nil || !again.Equal(ts) {
					t.Fatalf("parseTimestamp(%q) = %v does not round-trip: %v %v", s, ts, again, err)
				}
			}
		}
		q := url.Values{"from": {s}}.Encode()
		refused, reached := serveParams(t, "/x/id", q)
		wantRefused := textFault(s) != ""
		if refused != wantRefused || reached == wantRefused {
			t.Fatalf("from=%q: refused %v, reached %v; want refused %v", s, refused, reached, wantRefused)
		}
	})
}

// FuzzDecodeCursor decodes a listing cursor, alone and behind the
// parameter middleware.
func FuzzDecodeCursor(f *testing.F) {
	good := projections.Cursor{CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 123000, time.UTC), WorkflowID: "wr_0123456789abcdef0123456789abcdef"}
	for _, s := range []string{
		good.Encode(), "", "!!!", "MTIzLg", "MTIzLmE", "LTEuYQ",
		projections.Cursor{CreatedAt: good.CreatedAt, WorkflowID: "\x00"}.Encode(),
		projections.Cursor{CreatedAt: good.CreatedAt, WorkflowID: "wr_\xff"}.Encode(),
		projections.Cursor{CreatedAt: good.CreatedAt, WorkflowID: "a.b.c"}.Encode(),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := projections.DecodeCursor(s)
		if err != nil && !errors.Is(err, projections.ErrBadCursor) {
			t.Fatalf("DecodeCursor(%q): %v is not ErrBadCursor", s, err)
		}
		if err == nil {
			again, err := projections.DecodeCursor(c.Encode())
			if err != nil || !again.CreatedAt.Equal(c.CreatedAt) || again.WorkflowID != c.WorkflowID {
				t.Fatalf("cursor %q = %+v does not round-trip: %+v %v", s, c, again, err)
			}
		}
		refused, reached := serveParams(t, "/x/id", url.Values{"cursor": {s}}.Encode())
		if refused == reached {
			t.Fatalf("cursor=%q: refused %v, reached %v", s, refused, reached)
		}
		wantRefused := textFault(s) != "" || (err == nil && textFault(c.WorkflowID) != "")
		if refused != wantRefused {
			t.Fatalf("cursor=%q (%+v, %v): refused %v, want %v", s, c, err, refused, wantRefused)
		}
	})
}

// FuzzParams sends a request with path variable tail and raw query through
// the parameter middleware of a router.
func FuzzParams(f *testing.F) {
	for _, s := range [][2]string{
		{"wr_0123", ""}, {"wr_0123", "status=failed,halted&limit=20&q=pricing+EU"}, {"a/b", "from=2026-03-01&to=2026-03-02T00:00:00%2B02:00"},
		{"\x00", ""}, {"\xff", ""}, {"wr", "task_type=%00"}, {"wr", "q=%ff"}, {"wr", "%00=1"}, {"wr", "a%ffb=1&c=2"},
		{"wr", "x=%ed%a0%80"}, {"0", "=\xce"}, {"", "=%00"}, {"wr", "x=%zz&y=1"}, {"wr", ";;&&=="}, {"é", "ü=ö"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tail, rawQuery string) {
		refused, reached := serveParams(t, "/x/"+tail, rawQuery)
		if !refused && !reached {
			return // the router did not match (a path it redirects)
		}
		bad := textFault(tail) != ""
		q, _ := url.ParseQuery(rawQuery)
		for k, vs := range q {
			bad = bad || textFault(k) != ""
			for _, v := range vs {
				bad = bad || textFault(v) != ""
				if c, err := projections.DecodeCursor(v); k == "cursor" && err == nil && textFault(c.WorkflowID) != "" {
					bad = true
				}
			}
		}
		if refused != bad {
			t.Fatalf("tail %q query %q: refused %v, want %v", tail, rawQuery, refused, bad)
		}
	})
}

// ---------------------------------------------------------------------------

// decodeFromBytes runs decodeBody on a POST carrying data.
func decodeFromBytes(data []byte, dst any, emptyOK bool) *apiError {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(data))
	return decodeBody(httptest.NewRecorder(), r, dst, emptyOK)
}

// checkRefusal requires err (when not nil) to be a 400 with a code, or a
// 413 for a body over maxBody; an invalid_field names a field in text that
// can be shown.
func checkRefusal(t *testing.T, err *apiError, size int) {
	t.Helper()
	if err == nil {
		return
	}
	if err.Code == "" || err.Message == "" {
		t.Fatalf("refusal without a code or message: %#v", err)
	}
	switch {
	case err.Status == http.StatusBadRequest:
	case err.Status == http.StatusRequestEntityTooLarge && size > maxBody && err.Code == "body_too_large":
	default:
		t.Fatalf("refusal %d %s (%s) for %d bytes", err.Status, err.Code, err.Message, size)
	}
	if err.Code == "invalid_field" {
		field, _ := err.Details["field"].(string)
		if field == "" || textFault(field) != "" {
			t.Fatalf("invalid_field names the field %q", field)
		}
	}
}

// checkCleanJSON requires the JSON document raw to hold only text
// PostgreSQL stores: UTF-8 bytes, no U+0000 once decoded, and no U+FFFD
// the raw text does not account for (an unpaired surrogate escape decodes
// to one).
func checkCleanJSON(t *testing.T, raw []byte) {
	t.Helper()
	if len(bytes.TrimSpace(raw)) == 0 {
		return
	}
	if !utf8.Valid(raw) {
		t.Fatalf("accepted a document that is not UTF-8: %q", raw)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("accepted a document that does not decode: %v: %q", err, raw)
	}
	replacements := 0
	var walk func(any)
	count := func(s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Fatalf("accepted a document holding U+0000: %q", raw)
		}
		replacements += strings.Count(s, "\uFFFD")
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			count(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				count(k)
				walk(e)
			}
		}
	}
	walk(v)
	lower := strings.ToLower(string(raw))
	if explained := strings.Count(lower, "\uFFFD") + strings.Count(lower, `\ufffd`); replacements > explained {
		t.Fatalf("accepted a document with an unpaired surrogate (%d U+FFFD decoded, %d in the text): %q", replacements, explained, raw)
	}
}

// checkCleanValue walks a decoded value: every string valid UTF-8 without
// U+0000, every raw JSON field clean.
func checkCleanValue(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		checkCleanJSON(t, v.Bytes())
		return
	}
	switch v.Kind() {
	case reflect.String:
		if why := textFault(v.String()); why != "" {
			t.Fatalf("accepted %s %q, which %s", path, v.String(), why)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkCleanValue(t, path, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			checkCleanValue(t, path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			checkCleanValue(t, path+"[]", v.Index(i))
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			checkCleanValue(t, path+"{}", it.Key())
			checkCleanValue(t, path+"{}", it.Value())
		}
	}
}

// serveParams serves GET path?rawQuery through a router that has the
// parameter middleware and one route, /x/{id:.*}; refused is a 400
// invalid_field in the envelope, reached that the route ran (and found its
// parameters clean).
func serveParams(t *testing.T, path, rawQuery string) (refused, reached bool) {
	t.Helper()
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	router := mux.NewRouter()
	router.Use(s.checkParams)
	router.HandleFunc("/x/{id:.*}", func(w http.ResponseWriter, r *http.Request) {
		reached = true
		for k, v := range mux.Vars(r) {
			if textFault(k) != "" || textFault(v) != "" {
				t.Errorf("the route got path variable %q = %q", k, v)
			}
		}
		for k, vs := range r.URL.Query() {
			for _, v := range vs {
				if textFault(k) != "" || textFault(v) != "" {
					t.Errorf("the route got parameter %q = %q", k, v)
				}
			}
		}
	})
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: path, RawQuery: rawQuery}, Header: http.Header{}, RemoteAddr: "127.0.0.1:1"}
	r = r.WithContext(t.Context())
	w := httptest.NewRecorder()
	router.ServeHTTP(w, r)
	if w.Code == http.StatusBadRequest {
		var body errorResponse
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != "invalid_field" {
			t.Fatalf("400 that is not invalid_field in the envelope: %v %s", err, w.Body.Bytes())
		}
		if field, _ := body.Error.Details["field"].(string); field == "" || textFault(field) != "" {
			t.Fatalf("invalid_field names %q", field)
		}
		refused = true
	}
	if reached && refused {
		t.Fatalf("refused after the route ran")
	}
	return refused, reached
}
