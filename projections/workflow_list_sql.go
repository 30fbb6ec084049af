package projections

import sq "github.com/Masterminds/squirrel"

// The statements of ListWorkflows. Columns that never change (org, task
// type, created_at) are in both the workflows table (w) and the search
// table (s); the status only in the workflows table and the status counts.

// psql builds PostgreSQL statements ($1 placeholders).
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

const summaryColumns = `w.workflow_id, w.status, w.task_type, w.current_step, w.total_steps, w.credits_used, w.created_at,
	w.started_at, w.completed_at, w.title, left(w.description, 200), w.counts_toward_limit, w.approval_status, w.error,
	w.halt_reason, w.halted_at_step`

// pageQuery selects a page without q (one row more, to know whether more
// follow), walking an index in the listing's order.
func pageQuery(f WorkflowFilter) sq.SelectBuilder {
	q := psql.Select(summaryColumns).From("workflows w").Where(staticConditions(f, "w."))
	if own := ownConditions(f, "w."); len(own) > 0 {
		q = q.Where(own)
	}
	if f.After != nil {
		q = q.Where("(w.created_at, w.workflow_id) < (?, ?)", f.After.CreatedAt, f.After.WorkflowID)
	}
	return q.OrderBy("w.created_at DESC", "w.workflow_id DESC").Limit(uint64(f.Limit) + 1)
}

// countQuery counts what the filter selects on every page: from the status
// counts when only statuses (or nothing) are asked for, else row by row.
func countQuery(f WorkflowFilter) sq.SelectBuilder {
	own := ownConditions(f, "w.")
	switch {
	case len(f.Terms) > 0:
		q := psql.Select("count(*)").From(searchTable.Name + " s")
		if len(own) > 0 {
			q = q.Join("workflows w USING (workflow_id)").Where(own)
		}
		return q.Where(staticConditions(f, "s.")).Where(termConditions(f))
	case f.TaskType == "" && f.CreatedAfter == nil && f.CreatedBefore == nil && f.FolderID == "":
		q := psql.Select("coalesce(sum(n), 0)::bigint").From(countsTable.Name + " c").Where(sq.Eq{"c.org_id": f.OrgID})
		if own := ownConditions(f, "c."); len(own) > 0 {
			q = q.Where(own)
		}
		return q
	}
	q := psql.Select("count(*)").From("workflows w").Where(staticConditions(f, "w."))
	if len(own) > 0 {
		q = q.Where(own)
	}
	return q
}

// staticConditions are those on the columns that never change, which the
// search table has too (alias "s.") beside the workflows table ("w."),
// and the folder (through the workflow id both have).
func staticConditions(f WorkflowFilter, alias string) sq.And {
	where := sq.And{sq.Eq{alias + "org_id": f.OrgID}}
	if in := folderCondition(f, alias); in != nil {
		where = append(where, in)
	}
	if f.TaskType != "" {
		where = append(where, sq.Eq{alias + "task_type": f.TaskType})
	}
	if f.CreatedAfter != nil {
		where = append(where, sq.Gt{alias + "created_at": *f.CreatedAfter})
	}
	if f.CreatedBefore != nil {
		where = append(where, sq.Lt{alias + "created_at": *f.CreatedBefore})
	}
	return where
}

// ownConditions are those on the status, which the workflows table and
// the status counts have.
func ownConditions(f WorkflowFilter, alias string) sq.And {
	var where sq.And
	if len(f.Statuses) > 0 {
		where = append(where, sq.Eq{alias + "status": f.Statuses})
	}
	if f.CountsTowardLimit != nil {
		where = append(where, sq.Eq{alias + "counts_toward_limit": *f.CountsTowardLimit})
	}
	return where
}

// folderCondition selects the workflows of the filter's folder (the
// folders projection's folder_workflows): those in no folder for
// FolderUnassigned, those in folder FolderID of the org otherwise; nil
// without a folder filter.
func folderCondition(f WorkflowFilter, alias string) sq.Sqlizer {
	in := "SELECT 1 FROM " + folderWorkflowsTable.Name + " fw WHERE fw.workflow_id = " + alias + "workflow_id"
	switch {
	case f.FolderID == "":
		return nil
	case f.FolderID == FolderUnassigned:
		return sq.Expr("NOT EXISTS (" + in + ")")
	case !folderID(f.FolderID):
		return sq.Expr("false")
	}
	return sq.Expr("EXISTS ("+in+" AND fw.folder_id = ? AND fw.org_id = ?)", f.FolderID, f.OrgID)
}

// termConditions: every term is a substring of the search text (s).
func termConditions(f WorkflowFilter) sq.And {
	var where sq.And
	for _, t := range f.Terms {
		where = append(where, sq.Expr("s.search LIKE ?", "%"+likeEscaper.Replace(t)+"%"))
	}
	return where
}

// searchPageQuery is the page of a search with the total of its matches
// in every row: the matches are counted (a window over all of them) before
// the cursor and the limit apply, and the page alone is then joined to the
// workflows table for its columns.
func searchPageQuery(f WorkflowFilter) sq.SelectBuilder {
	matches := psql.Select("s.workflow_id, s.created_at, count(*) OVER () AS total").From(searchTable.Name + " s")
	if own := ownConditions(f, "w."); len(own) > 0 {
		matches = matches.Join("workflows w USING (workflow_id)").Where(own)
	}
	matches = matches.Where(staticConditions(f, "s.")).Where(termConditions(f))
	page := psql.Select("m.workflow_id, m.created_at, m.total").FromSelect(matches, "m")
	if f.After != nil {
		page = page.Where("(m.created_at, m.workflow_id) < (?, ?)", f.After.CreatedAt, f.After.WorkflowID)
	}
	page = page.OrderBy("m.created_at DESC", "m.workflow_id DESC").Limit(uint64(f.Limit) + 1)
	return psql.Select(summaryColumns+", p.total").FromSelect(page, "p").Join("workflows w USING (workflow_id)").
		OrderBy("p.created_at DESC", "p.workflow_id DESC")
}
