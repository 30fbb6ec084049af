package projections

import (
	"strings"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
)

// The workflows projection's tables for the listing (workflow_list.go),
// beside the workflows table itself.

// searchTable holds each workflow's title and task description, lowercased,
// for the q search, with the columns of the listing that never change. It is
// written once per workflow, so its trigram index costs nothing on the
// updates every step makes to the workflows table. The GIN index holds the
// org and the task type too (btree_gin, migration 0006), so that a search
// rechecks the candidates of one org only.
var searchTable = Table{
	Name: "workflow_search",
	DDL: `workflow_id text PRIMARY KEY,
		org_id uuid NOT NULL,
		task_type text NOT NULL,
		created_at timestamptz NOT NULL,
		search text NOT NULL`,
	Indexes: []string{
		`CREATE INDEX {{table}}_trgm ON {{table}} USING gin (org_id, task_type, search gin_trgm_ops)`,
		`CREATE INDEX {{table}}_org ON {{table}} (org_id, created_at DESC, workflow_id DESC)`,
	},
}

// countsTable counts each org's workflows per status, so that the listing's
// total_count without search or dates, and the active count, cost one
// row per status rather than a row per workflow. Rows at zero are deleted
// (a rebuild never creates them).
var countsTable = Table{
	Name: "workflow_counts",
	DDL: `org_id uuid NOT NULL,
		status text NOT NULL,
		counts_toward_limit boolean NOT NULL,
		n bigint NOT NULL,
		PRIMARY KEY (org_id, status)`,
	Storage: "fillfactor = 50",
}

// searchText is what q terms are matched against: the title and the
// description, lowercased here (Unicode rules, whatever the database's
// locale), separated by a newline, which no term contains.
func searchText(title, description string) string {
	return strings.ToLower(title) + "\n" + strings.ToLower(description)
}

func queueSearch(b *pgx.Batch, table string, wf *workflow.Workflow) {
	p, v := wf.Planned(), wf.View(false)
	b.Queue(`INSERT INTO `+table+` (workflow_id, org_id, task_type, created_at, search) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (workflow_id) DO NOTHING`,
		p.WorkflowID, p.OrgID, v.TaskType, v.CreatedAt, searchText(p.Title, p.Description))
}

// statusMove is a workflow's status before a batch ("" for a new
// workflow) and after it.
type statusMove struct{ org, before, after string }

// queueCounts adds to b what the batch changes in the status counts: each
// workflow's status before the batch counts one less, the one after it one
// more. A batch that moves no workflow to another status writes nothing.
func queueCounts(b *pgx.Batch, t Tables, moves []statusMove) {
	type key struct{ org, status string }
	delta := map[key]int64{}
	var order []key
	add := func(k key, d int64) {
		if _, ok := delta[k]; !ok {
			order = append(order, k)
		}
		delta[k] += d
	}
	for _, m := range moves {
		if m.before != "" {
			add(key{m.org, m.before}, -1)
		}
		add(key{m.org, m.after}, 1)
	}
	table := t.Of(countsTable.Name)
	for _, k := range order {
		switch d := delta[k]; {
		case d > 0:
			b.Queue(`INSERT INTO `+table+` AS c (org_id, status, counts_toward_limit, n) VALUES ($1, $2, $3, $4)
				ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + excluded.n`,
				k.org, k.status, workflow.Active(k.status), d)
		case d < 0:
			b.Queue(`UPDATE `+table+` SET n = n + $3 WHERE org_id = $1 AND status = $2`, k.org, k.status, d)
			b.Queue(`DELETE FROM `+table+` WHERE org_id = $1 AND status = $2 AND n = 0`, k.org, k.status)
		}
	}
}
