package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"svc/domain/org"
)

func TestParseWorkflowFilter(t *testing.T) {
	q, _ := url.ParseQuery("status=queued,%20halted,,queued&status=planned&task_type=%20strategy%20&limit=7" +
		"&created_after=2026-03-01T10:00:00%2B02:00&created_before=2026-03-02&counts_toward_limit=false&q=Pricing,%20BOARD&folder_id=unassigned")
	f, err := parseWorkflowFilter(q)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Statuses, " ") != "queued halted planned" || f.TaskType != "strategy" || f.Limit != 7 || *f.CountsTowardLimit ||
		strings.Join(f.Terms, " ") != "pricing board" || f.FolderID != "unassigned" || f.After != nil ||
		!f.CreatedAfter.Equal(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)) || !f.CreatedBefore.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("filter %+v", f)
	}
	if f, err := parseWorkflowFilter(url.Values{}); err != nil || f.Limit != 20 || f.Statuses != nil || f.Terms != nil {
		t.Errorf("defaults %+v %v", f, err)
	}
	// a + of the offset sent unescaped arrives as a space
	if f, err := parseWorkflowFilter(url.Values{"created_after": {"2026-03-01T10:00:00 02:00"}}); err != nil ||
		!f.CreatedAfter.Equal(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("unescaped offset: %+v %v", f.CreatedAfter, err)
	}
	for raw, field := range map[string]string{"limit=0": "limit", "limit=100": "", "limit=1": "", "limit=-1": "limit",
		"status=Queued": "status", "counts_toward_limit=1": "counts_toward_limit", "cursor=%25": "cursor",
		"created_before=03/01/2026": "created_before", "created_after=2026-03-01T10:00:00": "created_after", "q=" + strings.Repeat("é", 200): "", "q=" + strings.Repeat("é", 201): "q"} {
		q, _ := url.ParseQuery(raw)
		_, err := parseWorkflowFilter(q)
		ae, _ := err.(*apiError)
		switch {
		case field == "" && err != nil:
			t.Errorf("%s: %v", raw, err)
		case field != "" && (ae == nil || ae.Code != "invalid_field" || ae.Details["field"] != field):
			t.Errorf("%s: %v, want invalid_field on %s", raw, err, field)
		}
	}
}

func TestHistoryWindowAndExcerpt(t *testing.T) {
	if historyWindow(org.Free) != 30*24*time.Hour || historyWindow(org.Pro) != 180*24*time.Hour || historyWindow(org.Team) != 0 || historyWindow(org.Enterprise) != 0 {
		t.Errorf("history windows")
	}
	for want, row := range map[string]workflowSummary{
		`"task_excerpt":"x"`:      {TaskExcerpt: excerpt{shown: true, text: "x"}, AvailableActions: []string{}},
		`"task_excerpt":null`:     {TaskExcerpt: excerpt{shown: true}, AvailableActions: []string{}},
		`"available_actions":[]}`: {HistoryLocked: true, AvailableActions: []string{}},
	} {
		b, err := json.Marshal(row)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: want %s: %v", b, want, err)
		}
	}
	if got := availableActions("executing"); len(got) != 1 || got[0] != "force_cancel" {
		t.Errorf("executing: %v", got)
	}
	if got := availableActions("queued"); len(got) != 1 || got[0] != "cancel" {
		t.Errorf("queued: %v", got)
	}
	if got := availableActions("completed"); got == nil || len(got) != 0 {
		t.Errorf("completed: %#v", got)
	}
}
