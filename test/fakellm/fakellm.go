// Package fakellm is a fake OpenAI-compatible API for black-box tests: it
// answers POST /v1/chat/completions with a valid answer for the kind of
// call (read from the [svc:kind=...] markers the llm adapter writes into
// its system prompts; a classify call names one of the task types its
// prompt lists, see classify.go) and POST /v1/embeddings with
// deterministic vectors.
// Rules make matching calls fail, stall or answer malformed text; counters
// and the last requests tell a test what the service asked.
//
// In-process: New() starts it on a loopback port (URL, Close). As a
// separate process: Listen(addr), or the program in cmd/fakellm; rules
// and counters are then reached over HTTP under /_fakellm/ (see admin.go).
package fakellm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"svc/adapters/llm/prompt"
)

// maxKept is how many requests the server remembers.
const maxKept = 100

// DefaultReviewScore is the score of review answers unless SetReviewScore
// changes it.
const DefaultReviewScore = 92

// Rule changes the answer of the calls it matches.
type Rule struct {
	// Match is a substring of the call's markers, such as "kind=review",
	// "framework=SWOT Analysis" or just "SWOT"; "" matches every call.
	// The markers text is "kind=K framework=F step=S strategy=X chunk=C
	// composed=N contract=T" (absent markers left out; a composed call's
	// framework is its frameworks joined by " | "); embeddings calls are
	// "kind=embeddings".
	Match string
	// Status answers with this HTTP status and an error body instead of a
	// completion (0: a normal answer).
	Status int
	// Delay waits before answering; it ends early when the client goes
	// away.
	Delay time.Duration
	// Malformed answers 200 with content invalid for the kind.
	Malformed bool
	// Times applies the rule to the next Times matching calls only; 0 is
	// always.
	Times int
	// RetryAfter is sent as the Retry-After header with Status.
	RetryAfter string
	// Answer, when set, is the content of the answer instead of the
	// kind's (such as a contract synthesis's JSON).
	Answer string
}

// Call is one request the server received.
type Call struct {
	Kind          string            // from the markers; "" when none
	Framework     string            // from the markers (step calls)
	Markers       map[string]string // every [svc:key=value] marker
	Model         string
	Messages      []prompt.Message
	MaxTokens     int
	JSONFormat    bool   // response_format json_object was asked for
	Authorization string // the Authorization header
	Status        int    // the HTTP status answered
}

// Server is the fake API. Its methods are safe for concurrent use.
type Server struct {
	mu          sync.Mutex
	rules       []*Rule
	calls       []Call
	byKind      map[string]int
	byFramework map[string]int
	byMarkers   map[string]int // calls per markers text, for Calls (bounded by the distinct markers, not the calls)
	reviewScore int

	url   string
	close func()
}

// newServer returns a server that is not listening.
func newServer() *Server {
	return &Server{byKind: map[string]int{}, byFramework: map[string]int{}, byMarkers: map[string]int{}, reviewScore: DefaultReviewScore}
}

// New starts a fake API on a loopback port.
func New() *Server {
	s := newServer()
	hs := httptest.NewServer(s)
	s.url, s.close = hs.URL, hs.Close
	return s
}

// Listen starts a fake API on addr (host:port, port 0 for any).
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakellm: listen %s: %w", addr, err)
	}
	s := newServer()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(fmt.Sprintf("fakellm: serve: %v", err))
		}
	}()
	s.url = "http://" + ln.Addr().String()
	s.close = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return s, nil
}

// URL is the base URL to give SVC_LLM_BASE_URL.
func (s *Server) URL() string { return s.url }

// Close stops the server.
func (s *Server) Close() {
	if s.close != nil {
		s.close()
	}
}

// AddRule adds r after the rules already set; the first matching rule
// with calls left applies.
func (s *Server) AddRule(r Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &r)
}

// ClearRules removes every rule.
func (s *Server) ClearRules() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = nil
}

// Reset removes every rule and forgets every call.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules, s.calls, s.byMarkers = nil, nil, map[string]int{}
	s.byKind, s.byFramework = map[string]int{}, map[string]int{}
}

// SetReviewScore sets the score review answers carry (0-100).
func (s *Server) SetReviewScore(score int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reviewScore = max(0, min(100, score))
}

// Calls counts the calls whose markers text contains match ("" counts
// every call), failed ones included.
func (s *Server) Calls(match string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for m, k := range s.byMarkers {
		if strings.Contains(m, match) {
			n += k
		}
	}
	return n
}

// CallsByKind counts calls per kind ("" for calls without markers).
func (s *Server) CallsByKind() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneCounts(s.byKind)
}

// CallsByFramework counts step calls per framework.
func (s *Server) CallsByFramework() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneCounts(s.byFramework)
}

// Requests returns the last calls received (at most 100), oldest first.
func (s *Server) Requests() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// LastRequest returns the most recent call, if any.
func (s *Server) LastRequest() (Call, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return Call{}, false
	}
	return s.calls[len(s.calls)-1], true
}

// record picks the rule that applies to call c, sets the status it will
// be answered with, and counts it.
func (s *Server) record(c Call, markers string) Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rule Rule
	for i, r := range s.rules {
		if !strings.Contains(markers, r.Match) {
			continue
		}
		rule = *r
		if r.Times > 0 {
			if r.Times--; r.Times == 0 {
				s.rules = append(s.rules[:i:i], s.rules[i+1:]...)
			}
		}
		break
	}
	c.Status = http.StatusOK
	if rule.Status != 0 {
		c.Status = rule.Status
	}
	s.byKind[c.Kind]++
	if c.Framework != "" {
		s.byFramework[c.Framework]++
	}
	s.byMarkers[markers]++
	s.calls = append(s.calls, c)
	if len(s.calls) > maxKept {
		s.calls = s.calls[len(s.calls)-maxKept:]
	}
	return rule
}

// score returns the review score answers carry.
func (s *Server) score() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviewScore
}

// cloneCounts copies a counter map.
func cloneCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
