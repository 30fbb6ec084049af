package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"svc/eventstore/event"
	"time"
	"unicode"
)

// DuplicateWindow is spec A's duplicate-task window.
const DuplicateWindow = 5 * time.Minute

// Limit errors.
var (
	ErrDuplicate       = errors.New("identical task submitted within 5 minutes")
	ErrConcurrentLimit = errors.New("active workflows at the tier's limit")
)

// SlotsStream is the stream of an org's active workflows.
func SlotsStream(orgID string) string { return "active-" + orgID }

// FirstRunStream is the stream recording an org's free first workflow.
func FirstRunStream(orgID string) string { return "firstrun-" + orgID }

// TaskStream is the stream of one normalised task description of an org.
func TaskStream(orgID, description string) string {
	sum := sha256.Sum256([]byte(Normalize(description)))
	return "task-" + orgID + "-" + hex.EncodeToString(sum[:12])
}

// Normalize folds a description for duplicate detection: case, spacing
// and punctuation do not make a task different.
func Normalize(description string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(description) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		} else {
			space = true
		}
	}
	return b.String()
}

// ConcurrentLimit is the number of active workflows a tier allows (0:
// unlimited).
func ConcurrentLimit(tier string) int {
	switch tier {
	case "enterprise":
		return 0
	case "team":
		return 10
	case "pro":
		return 3
	}
	return 1
}

// DailyLimit is the number of executes a tier allows per UTC day.
func DailyLimit(tier string) int {
	if tier == "enterprise" {
		return 100_000
	}
	return 1_000
}

// Slots is an org's set of active workflows, folded from its slot stream.
type Slots struct {
	active  map[string]int64 // workflow id -> version taken at (for order)
	version int64
}

// NewSlots is an empty set.
func NewSlots() *Slots { return &Slots{active: map[string]int64{}, version: event.NewStream} }

// Apply folds one slot event.
func (s *Slots) Apply(e event.Event) error {
	data, err := slotEvents.Decode(e)
	if err != nil {
		return fmt.Errorf("slots: %w", err)
	}
	switch d := data.(type) {
	case SlotTaken:
		s.active[d.WorkflowID] = e.Version
	case SlotReleased:
		delete(s.active, d.WorkflowID)
	}
	s.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (s *Slots) Version() int64 { return s.version }

// Clone copies the set.
func (s *Slots) Clone() *Slots { return &Slots{active: maps.Clone(s.active), version: s.version} }

// Active lists the active workflow ids, oldest first.
func (s *Slots) Active() []string {
	ids := slices.Collect(maps.Keys(s.active))
	slices.SortFunc(ids, func(a, b string) int { return int(s.active[a] - s.active[b]) })
	return ids
}

// Holds reports whether workflow id has a slot.
func (s *Slots) Holds(id string) bool { _, ok := s.active[id]; return ok }

// Take decides a new slot for workflow id under limit (0: unlimited).
func (s *Slots) Take(id string, limit int) (SlotTaken, error) {
	if limit > 0 && len(s.active) >= limit {
		return SlotTaken{}, ErrConcurrentLimit
	}
	return SlotTaken{WorkflowID: id}, nil
}

// Release decides that workflow id no longer counts toward the limit;
// false when it holds no slot.
func (s *Slots) Release(id string) (SlotReleased, bool) {
	if !s.Holds(id) {
		return SlotReleased{}, false
	}
	return SlotReleased{WorkflowID: id}, true
}
