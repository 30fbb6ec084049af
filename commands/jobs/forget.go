package jobs

import (
	"context"
	"fmt"
)

// LiveLeases counts the live leases, of any kind, on the jobs ids (an
// erased organization's workflows and deliveries, say): the jobs still
// being run somewhere.
func LiveLeases(ctx context.Context, db DB, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var n int
	err := db.QueryRow(ctx, `SELECT count(*) FROM job_leases WHERE job_id = ANY($1) AND expires_at > now()`, ids).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("jobs: live leases: %w", err)
	}
	return n, nil
}

// DropLeases deletes the leases, of any kind, on the jobs ids and those
// whose id contains marker (an organization's id in an auto-reload's),
// live or not, and returns how many it deleted. A runner whose lease goes
// so cancels its job at its next renewal (ErrLeaseLost).
func DropLeases(ctx context.Context, db DB, ids []string, marker string) (int64, error) {
	if ids == nil {
		ids = []string{}
	}
	tag, err := db.Exec(ctx, `DELETE FROM job_leases WHERE job_id = ANY($1) OR ($2 <> '' AND strpos(job_id, $2) > 0)`, ids, marker)
	if err != nil {
		return 0, fmt.Errorf("jobs: drop leases: %w", err)
	}
	return tag.RowsAffected(), nil
}
