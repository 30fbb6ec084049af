package fakellm

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// adminPrefix is where the admin endpoints live:
//
//	POST   /_fakellm/rules         add a rule: {"match","status","delay_ms","malformed","times","retry_after","answer"}
//	DELETE /_fakellm/rules         remove every rule
//	POST   /_fakellm/reset         remove every rule and forget every call
//	POST   /_fakellm/review-score  {"score": n}
//	GET    /_fakellm/stats         {"total", "by_kind", "by_framework"}
//	GET    /_fakellm/requests      the last calls received
const adminPrefix = "/_fakellm"

// ruleJSON is a Rule on the wire.
type ruleJSON struct {
	Match      string `json:"match"`
	Status     int    `json:"status"`
	DelayMS    int    `json:"delay_ms"`
	Malformed  bool   `json:"malformed"`
	Times      int    `json:"times"`
	RetryAfter string `json:"retry_after"`
	Answer     string `json:"answer"`
}

// serveAdmin serves the admin endpoint at path (below adminPrefix).
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request, path string) {
	switch r.Method + " " + path {
	case "POST /rules":
		var rj ruleJSON
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&rj); err != nil {
			writeError(w, http.StatusBadRequest, "fakellm: rule: "+err.Error())
			return
		}
		s.AddRule(Rule{Match: rj.Match, Status: rj.Status, Delay: time.Duration(rj.DelayMS) * time.Millisecond,
			Malformed: rj.Malformed, Times: rj.Times, RetryAfter: rj.RetryAfter, Answer: rj.Answer})
	case "DELETE /rules":
		s.ClearRules()
	case "POST /reset":
		s.Reset()
	case "POST /review-score":
		var body struct {
			Score int `json:"score"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "fakellm: score: "+err.Error())
			return
		}
		s.SetReviewScore(body.Score)
	case "GET /stats":
		writeJSON(w, http.StatusOK, map[string]any{"total": s.Calls(""), "by_kind": s.CallsByKind(), "by_framework": s.CallsByFramework()})
		return
	case "GET /requests":
		writeJSON(w, http.StatusOK, s.Requests())
		return
	default:
		writeError(w, http.StatusNotFound, "fakellm: no admin route "+r.Method+" "+path)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
