package pitfalldb

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// GeneralTaskType is the task type of pitfalls that apply to every task:
// a query for any task type returns them too.
const GeneralTaskType = "general"

// AppliesTo is what a pitfall applies to; an empty field applies to any.
type AppliesTo struct {
	TaskType  string `json:"task_type"`
	Language  string `json:"language"`
	Framework string `json:"framework"`
	Provider  string `json:"provider"`
}

// Starter is a verified pitfall of the starter set (data/starter.json):
// the read model holds no row for it until someone reports it, and a
// query merges it with its reports' counts (decision 225).
type Starter struct {
	ID          string    `json:"-"`
	Slug        string    `json:"slug"`
	TaskType    string    `json:"task_type"`
	Severity    Severity  `json:"severity"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Fix         string    `json:"fix"`
	Tags        []string  `json:"tags"`
	AppliesTo   AppliesTo `json:"applies_to"`
	// Signals are lower-case phrases: a report of the task type whose
	// error type, message or root cause holds one joins this pitfall.
	Signals []string `json:"signals"`
}

//go:embed data/starter.json
var starterJSON []byte

var starters, startersByID = loadStarters(starterJSON)

// loadStarters parses the starter set; a malformed one panics (it ships
// with the binary, and TestStarters checks it).
func loadStarters(raw []byte) ([]Starter, map[string]Starter) {
	var doc struct {
		Pitfalls []Starter `json:"pitfalls"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(fmt.Sprintf("pitfalldb: starter set: %v", err))
	}
	byID := map[string]Starter{}
	for i := range doc.Pitfalls {
		s := &doc.Pitfalls[i]
		s.ID = uuid.NewSHA1(namespace, []byte("starter:"+s.Slug)).String()
		s.TaskType = NormalizeTaskType(s.TaskType)
		s.AppliesTo.TaskType = s.TaskType
		if _, dup := byID[s.ID]; dup || !s.Severity.Valid() || s.Title == "" || s.Fix == "" {
			panic("pitfalldb: starter set: bad or duplicate entry " + s.Slug)
		}
		byID[s.ID] = *s
	}
	return doc.Pitfalls, byID
}

// Starters is the starter set, in its file's order.
func Starters() []Starter { return append([]Starter(nil), starters...) }

// StarterByID is starter pitfall id.
func StarterByID(id string) (Starter, bool) {
	s, ok := startersByID[id]
	return s, ok
}

// MatchStarter is the starter pitfall a failure of taskType (normalized)
// joins: the first of its task type whose signals the failure shows.
func MatchStarter(taskType string, f Failure) (Starter, bool) {
	text := strings.ToLower(f.ErrorType + " " + f.ErrorMessage + " " + f.RootCause)
	for _, s := range starters {
		if s.TaskType != taskType {
			continue
		}
		for _, sig := range s.Signals {
			if strings.Contains(text, sig) {
				return s, true
			}
		}
	}
	return Starter{}, false
}
