package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestBodyTextRefusals: a string holding U+0000, bytes that are not UTF-8
// or an unpaired surrogate escape, as a value or a key, anywhere in a body,
// is 400 invalid_field naming it by its JSON path; other text is accepted
// unchanged.
func TestBodyTextRefusals(t *testing.T) {
	for _, c := range []struct {
		body, field, why string
	}{
		{`{"task_description":"compare\u0000 pricing"}`, "task_description", whyNUL},
		{`{"task_description":"x y","context":{"additional_context":"a\u0000b"}}`, "context.additional_context", whyNUL},
		{`{"task_description":"x y","available_mcp_connections":[{"id":"a"},{"id":"c","server_url":"https://a\u0000.example.com"}]}`,
			"available_mcp_connections[1].server_url", whyNUL},
		{`{"workflow_id":"\u0000","action":"next"}`, "workflow_id", whyNUL},
		{"{\"task_description\":\"compare \xff pricing\"}", "task_description", whyUTF8},
		{"{\"a\":[\"ok\",\"\xc0\xaf\"]}", "a[1]", whyUTF8}, // overlong
		{"{\"a\":\"\xed\xa0\x80\"}", "a", whyUTF8},         // a surrogate encoded in UTF-8
		{"{\"a\":\"\xe2\x82\"}", "a", whyUTF8},             // truncated
		{`{"preferences":{"skip_frameworks":["x","\ud800"]}}`, "preferences.skip_frameworks[1]", whySurrogate},
		{`{"a":"\uDC00\uD800"}`, "a", whySurrogate},
		{`{"a":"\ud800\u0041"}`, "a", whySurrogate},
		{`{"a":"x\ud800"}`, "a", whySurrogate},
		{`{"context":{"a\u0000b":1}}`, `context.a\u0000b`, "the field name " + whyNUL},
		{"{\"k\xff\":1}", "k\uFFFD", "the field name " + whyUTF8},
		{`{"a":[[[{"b":[0,{"c":"\u0000"}]}]]]}`, "a[0][0][0].b[1].c", whyNUL},
		{`{"a.b":{"":"\u0000"}}`, `a.b.""`, whyNUL},
		{`{"":"\u0000"}`, `""`, whyNUL},
	} {
		var raw json.RawMessage
		err := decodeFromBytes([]byte(c.body), &raw, false)
		if err == nil {
			t.Errorf("%q: accepted", c.body)
			continue
		}
		if err.Status != http.StatusBadRequest || err.Code != "invalid_field" || err.Details["field"] != c.field ||
			!strings.HasSuffix(err.Message, c.why) {
			t.Errorf("%q: %d %s %v %q, want 400 invalid_field naming %q (%s)", c.body, err.Status, err.Code, err.Details, err.Message, c.field, c.why)
		}
	}
	for _, body := range []string{
		`{"task_description":"compare our pricing \ud83d\ude00 \u00e9 \ufffd ` + "\uFFFD é 😀" + `"}`,
		`{"a":"\\u0000 is how JSON escapes NUL","b":"\\ud800","c":"\"\\\/\b\f\n\r\t"}`,
		`{"a":[1,-2.5e3,true,false,null,{},[],""],"b":{"c":{"d":"e"}}}`,
		" \n{\"x\" : [ 1 , \"y\" ] }\n",
	} {
		var raw json.RawMessage
		if err := decodeFromBytes([]byte(body), &raw, false); err != nil {
			t.Errorf("%q: refused: %v", body, err)
		}
		checkCleanJSON(t, raw)
	}
	// a stray ] or } after the object never reaches the handler
	for _, body := range []string{`{"a":"\u0000"}]`, `{"a":1}}`} {
		var raw json.RawMessage
		if err := decodeFromBytes([]byte(body), &raw, false); err == nil || err.Code != "invalid_body" {
			t.Errorf("%q: %v, want invalid_body", body, err)
		}
	}
}

// TestParamsRefusals: path variables and query parameters, names and
// values, and the text inside a cursor, are held to the same rule.
func TestParamsRefusals(t *testing.T) {
	for _, c := range []struct {
		path, query string
		refused     bool
	}{
		{"/x/wr_1", "status=failed&q=caf%C3%A9", false},
		{"/x/\x00", "", true},
		{"/x/\xff", "", true},
		{"/x/wr_1", "task_type=%00", true},
		{"/x/wr_1", "q=%FF", true},
		{"/x/wr_1", "a%00=1", true},
		{"/x/wr_1", "=%CE", true},            // found by FuzzParams: a parameter without a name
		{"/x/wr_1", "cursor=MTIzLgA", true},  // "123.\x00"
		{"/x/wr_1", "cursor=MTIzLv8", true},  // "123.\xff"
		{"/x/wr_1", "cursor=MTIzLmE", false}, // "123.a"
		{"/x/wr_1", "cursor=%21%21", false},  // not base64: the route's own 400
	} {
		if refused, _ := serveParams(t, c.path, c.query); refused != c.refused {
			t.Errorf("%q ? %q: refused %v, want %v", c.path, c.query, refused, c.refused)
		}
	}
}
