// Package erasure carries out confirmed data deletions (spec B, Data
// deletion): a leased job (a jobs.Runner of kind erasure) per confirmed
// request, queued in table erasures by the confirmation's transaction
// (migration 0011). The job erases the organization in short
// transactions and steps that each delete what is left, so an attempt
// that failed or a process that died half way is simply run again, here
// or on another instance, until the organization is gone:
//
//  1. scan: what the organization holds that later steps need once its
//     events are gone (its users, keys, workspaces and streams) is kept in
//     erasure_items. A user of the organization who belongs to another
//     organization too keeps their account and moves there.
//  2. users kept: the events of their streams are rewritten to name their
//     new organization (eventstore.Reassign).
//  3. credentials: the erased users' password hashes, sessions and codes,
//     the keys' usage times, the MCP tokens and OAuth states.
//  4. events: every event whose org_id is the organization's, in batches
//     under the organization's lock, but the stream of its deletion
//     requests; then the snapshots of its streams.
//  5. read models: every generation of every projection
//     (projections.EraseOrg). Steps 1-5 repeat while events of the
//     organization keep arriving (a job of it still running).
//  6. jobs: the leases of its workflows, deliveries and reloads, once
//     their runners let go (bounded), are deleted.
//  7. the record: in one transaction the stream of its deletion requests
//     is deleted and OrganizationErased appended to the erasure's own
//     stream, naming the request and the hash of the organization's id
//     only; the read models are swept once more (a rebuild may have read
//     the deletion stream meanwhile) and the erasure's queue row goes.
//
// A step that fails records DeletionFailed (the request's error, shown by
// the confirmation's 500 deletion_failed) and the job is tried again
// after a pause that doubles up to deletion.MaxRetryPause.
package erasure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/adapters/credentials"
	"svc/commands"
	"svc/commands/jobs"
	"svc/domain"
	"svc/domain/apikey"
	"svc/domain/deletion"
	"svc/domain/org"
	"svc/domain/user"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// Config tunes a Runner; zero values take the defaults.
type Config struct {
	// ID names this process in leases.
	ID string
	// Lease is an erasure's lease (jobs.Config's default, 10 s).
	Lease time.Duration
	// Poll is how often confirmed erasures are looked for (default 5 s;
	// a confirmation on this instance kicks the runner at once).
	Poll time.Duration
	// Projections are the read models to erase from (default
	// projections.All()).
	Projections []projections.Projection
	// Batch is how many events one transaction deletes (default 2,000).
	Batch int
	// JobWait bounds how long the last step waits for the organization's
	// running jobs to hand their leases back before it deletes them
	// (default twice the lease).
	JobWait time.Duration
}

// Runner carries out confirmed erasures.
type Runner struct {
	repos *commands.Repositories
	cfg   Config
	log   *slog.Logger
	jobs  *jobs.Runner
	reg   *event.Registry
}

// New returns a runner over repos.
func New(repos *commands.Repositories, cfg Config, log *slog.Logger) *Runner {
	if repos == nil || log == nil {
		panic("erasure: nil dependency")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 10 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 5 * time.Second
	}
	if cfg.Projections == nil {
		cfg.Projections = projections.All()
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 2000
	}
	if cfg.JobWait <= 0 {
		cfg.JobWait = 2 * cfg.Lease
	}
	r := &Runner{repos: repos, cfg: cfg, log: log, reg: domain.Events()}
	pool := repos.Store.Pool()
	r.jobs = jobs.New(pool, jobs.Config{Kind: jobs.KindErasure, ID: cfg.ID, Concurrency: 2, Lease: cfg.Lease, Poll: cfg.Poll,
		Find: func(ctx context.Context, limit int) ([]string, error) { return Due(ctx, pool, limit) },
		Run:  r.run}, log)
	return r
}

// Run carries out erasures until ctx ends.
func (r *Runner) Run(ctx context.Context) { r.jobs.Run(ctx) }

// Kick hints that erasure request id was confirmed.
func (r *Runner) Kick(id string) { r.jobs.Kick(id) }

// Due lists up to limit queued erasures whose next attempt is due and
// whose lease is free or expired.
func Due(ctx context.Context, db jobs.DB, limit int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT e.request_id FROM erasures e
		LEFT JOIN job_leases l ON l.kind = $1 AND l.job_id = e.request_id
		WHERE e.next_attempt_at <= now() AND (l.job_id IS NULL OR l.expires_at < now())
		ORDER BY e.next_attempt_at LIMIT $2`, jobs.KindErasure, limit)
	if err != nil {
		return nil, fmt.Errorf("due erasures: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("due erasures: %w", err)
	}
	return ids, nil
}

// run is the job: one attempt of erasure id; a failure is recorded and
// the attempt is due again after its pause.
func (r *Runner) run(ctx context.Context, id string) *time.Time {
	step, err := r.Erase(ctx, id)
	if err == nil || ctx.Err() != nil { // done, or the lease was lost or the runner stops: it is taken over
		return nil
	}
	r.log.Error("erasure failed; it will be tried again", "request_id", id, "step", step, "error", err)
	at, ferr := r.fail(context.WithoutCancel(ctx), id, step, err)
	if ferr != nil {
		r.log.Error("recording an erasure's failure", "request_id", id, "error", ferr)
		next := time.Now().Add(deletion.MaxRetryPause)
		return &next
	}
	return &at
}

// fail records the failure of erasure id at step and when it is tried
// again.
func (r *Runner) fail(ctx context.Context, id, step string, cause error) (time.Time, error) {
	pool := r.repos.Store.Pool()
	var orgID string
	err := pool.QueryRow(ctx, `SELECT org_id::text FROM erasures WHERE request_id = $1`, id).Scan(&orgID)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Now(), nil
	}
	if err != nil {
		return time.Time{}, err
	}
	at := time.Now().Add(deletion.MaxRetryPause)
	octx := orgContext(ctx, orgID, id)
	_, _, err = r.repos.Deletions.Update(octx, orgID, orgID, func(a *deletion.Requests) ([]event.Data, error) {
		if _, ok := a.Erasing(); !ok {
			return nil, nil // the record is written already: only the last sweep is left
		}
		f := a.Fail(id, step, cause.Error(), time.Now())
		at = f.RetryAt
		return []event.Data{f}, nil
	})
	if err != nil {
		return time.Time{}, err
	}
	_, err = pool.Exec(ctx, `UPDATE erasures SET next_attempt_at = $2 WHERE request_id = $1`, id, at)
	return at, err
}

// orgContext carries the metadata of the erasure's own events of the
// organization (its progress on the deletion stream).
func orgContext(ctx context.Context, orgID, requestID string) context.Context {
	return event.WithMetadata(ctx, event.Metadata{OrgID: orgID, Actor: "system", CorrelationID: requestID})
}

// erasure is one attempt's view of the organization.
type erasure struct {
	id, orgID string
	keep      string // the deletion stream, deleted last
	ctx       context.Context
}

// Erase makes one attempt at erasure request id and returns the step it
// stopped at when it failed. An erasure already finished (or never
// queued) is nothing to do.
func (r *Runner) Erase(ctx context.Context, id string) (string, error) {
	pool := r.repos.Store.Pool()
	var orgID string
	err := pool.QueryRow(ctx, `SELECT org_id::text FROM erasures WHERE request_id = $1`, id).Scan(&orgID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return deletion.StepScanned, err
	}
	e := erasure{id: id, orgID: orgID, keep: deletion.Stream(orgID), ctx: orgContext(ctx, orgID, id)}
	recorded, err := eventstore.ReadRange(ctx, pool, deletion.ErasureStream(id), 0, 0)
	if err != nil {
		return deletion.StepScanned, err
	}
	if len(recorded) == 0 {
		if step, err := r.eraseAll(e); err != nil {
			return step, err
		}
		if err := r.record(ctx, e); err != nil {
			return deletion.StepReadModels, err
		}
	}
	// the last sweep: rows a rebuild made from the deletion stream before
	// the record deleted it
	if _, err := r.readModels(e); err != nil {
		return deletion.StepReadModels, err
	}
	if _, err := pool.Exec(ctx, `DELETE FROM erasures WHERE request_id = $1`, id); err != nil {
		return deletion.StepReadModels, err
	}
	r.log.Info("organization erased", "request_id", id, "org_hash", deletion.OrgHash(orgID))
	return "", nil
}

// maxRounds bounds the rounds of steps 1-5 an attempt makes while events
// of the organization keep arriving.
const maxRounds = 5

// eraseAll runs steps 1-6 of erasure e.
func (r *Runner) eraseAll(e erasure) (string, error) {
	a, err := r.repos.Deletions.Get(e.ctx, e.orgID)
	if err != nil {
		return deletion.StepScanned, err
	}
	if _, ok := a.Erasing(); !ok {
		return deletion.StepScanned, fmt.Errorf("erasure %s: the request is not confirmed", e.id)
	}
	for round := 1; ; round++ {
		found, err := r.scan(e)
		if err != nil {
			return deletion.StepScanned, err
		}
		if err := r.done(e, deletion.StepScanned, found); err != nil {
			return deletion.StepScanned, err
		}
		for _, s := range []struct {
			name string
			run  func(erasure) (int64, error)
		}{
			{deletion.StepUsersKept, r.moveKeptUsers},
			{deletion.StepCredentials, r.credentials},
			{deletion.StepEvents, r.events},
			{deletion.StepReadModels, r.readModels},
		} {
			n, err := s.run(e)
			if err != nil {
				return s.name, err
			}
			if err := r.done(e, s.name, n); err != nil {
				return s.name, err
			}
		}
		left, err := eventstore.CountOrgEvents(e.ctx, r.repos.Store.Pool(), e.orgID, e.keep)
		if err != nil {
			return deletion.StepEvents, err
		}
		if left == 0 {
			break
		}
		if round == maxRounds {
			return deletion.StepEvents, fmt.Errorf("erasure %s: %d events of the organization arrived during the erasure", e.id, left)
		}
	}
	n, err := r.jobLeases(e)
	if err != nil {
		return deletion.StepJobs, err
	}
	return "", r.done(e, deletion.StepJobs, n)
}

// done logs step's count on the request (DeletionStepDone).
func (r *Runner) done(e erasure, step string, n int64) error {
	_, _, err := r.repos.Deletions.Update(e.ctx, e.orgID, e.orgID, func(a *deletion.Requests) ([]event.Data, error) {
		if d := a.Done(e.id, step, n); d != nil {
			return []event.Data{*d}, nil
		}
		return nil, nil
	})
	return err
}

// item is a row of erasure_items.
type item struct {
	kind, id           string
	homeOrg, homeSpace *string
}

// Kinds of erasure_items.
const (
	itemUser      = "user"
	itemHome      = "home"
	itemKey       = "key"
	itemWorkspace = "workspace"
	itemStream    = "stream"
)

// scan records what the organization holds (step 1) and returns how many
// items were new.
func (r *Runner) scan(e erasure) (int64, error) {
	ctx, pool := e.ctx, r.repos.Store.Pool()
	var items []item
	streams, err := eventstore.OrgStreams(ctx, pool, e.orgID)
	if err != nil {
		return 0, err
	}
	for _, s := range streams {
		if s != e.keep {
			items = append(items, item{kind: itemStream, id: s})
		}
	}
	// whether a user is kept is read in the memberships read model: it
	// must have what was committed before the erasure started
	if err := projections.WaitCaughtUp(ctx, pool, 30*time.Second, projections.Workspaces{}.Name(), projections.Organizations{}.Name()); err != nil {
		return 0, err
	}
	events, err := eventstore.OrgEvents(ctx, pool, e.orgID, apikey.EventCreated, workspace.EventCreated, user.EventRegistered)
	if err != nil {
		return 0, err
	}
	for _, ev := range events {
		d, err := r.reg.Decode(ev)
		if err != nil {
			return 0, err
		}
		switch d := d.(type) {
		case apikey.Created:
			items = append(items, item{kind: itemKey, id: d.KeyID})
		case workspace.Created:
			items = append(items, item{kind: itemWorkspace, id: d.WorkspaceID})
		case user.Registered:
			it, err := r.classify(ctx, e.orgID, d.UserID)
			if err != nil {
				return 0, err
			}
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return 0, nil
	}
	kinds, ids, orgs, spaces := make([]string, len(items)), make([]string, len(items)), make([]*string, len(items)), make([]*string, len(items))
	for i, it := range items {
		kinds[i], ids[i], orgs[i], spaces[i] = it.kind, it.id, it.homeOrg, it.homeSpace
	}
	// a user classified once stays so: a later attempt must not erase an
	// account it moved, nor move one whose credentials it deleted
	tag, err := pool.Exec(ctx, `INSERT INTO erasure_items (request_id, kind, id, home_org, home_workspace)
		SELECT $1, i.kind, i.id, i.org, i.space FROM unnest($2::text[], $3::text[], $4::uuid[], $5::uuid[]) AS i(kind, id, org, space)
		WHERE NOT (i.kind IN ('user', 'home') AND EXISTS (SELECT 1 FROM erasure_items x
			WHERE x.request_id = $1 AND x.kind IN ('user', 'home') AND x.id = i.id))
		ON CONFLICT DO NOTHING`, e.id, kinds, ids, orgs, spaces)
	if err != nil {
		return 0, fmt.Errorf("record what to erase: %w", err)
	}
	return tag.RowsAffected(), nil
}

// classify decides whether the organization's user userID is erased, or
// kept because they belong to another organization: then their new home
// is the workspace of another organization they joined first (active
// ones first).
func (r *Runner) classify(ctx context.Context, orgID, userID string) (item, error) {
	var homeOrg, homeSpace string
	err := r.repos.Store.Pool().QueryRow(ctx, `SELECT m.org_id::text, m.workspace_id::text FROM workspace_members m
		JOIN workspaces w ON w.id = m.workspace_id LEFT JOIN organizations o ON o.org_id = m.org_id
		WHERE m.user_id = $1 AND m.org_id <> $2 AND o.erasing_since IS NULL
		ORDER BY w.archived_at IS NOT NULL, m.created_at, m.workspace_id LIMIT 1`, userID, orgID).Scan(&homeOrg, &homeSpace)
	if errors.Is(err, pgx.ErrNoRows) {
		return item{kind: itemUser, id: userID}, nil
	}
	if err != nil {
		return item{}, fmt.Errorf("memberships of user %s: %w", userID, err)
	}
	return item{kind: itemHome, id: userID, homeOrg: &homeOrg, homeSpace: &homeSpace}, nil
}

// items lists erasure e's items of kind.
func (r *Runner) items(e erasure, kind string) ([]item, error) {
	rows, err := r.repos.Store.Pool().Query(e.ctx, `SELECT kind, id, home_org::text, home_workspace::text FROM erasure_items
		WHERE request_id = $1 AND kind = $2 ORDER BY id`, e.id, kind)
	if err != nil {
		return nil, fmt.Errorf("items to erase: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (item, error) {
		var it item
		return it, row.Scan(&it.kind, &it.id, &it.homeOrg, &it.homeSpace)
	})
	if err != nil {
		return nil, fmt.Errorf("items to erase: %w", err)
	}
	return out, nil
}

func (r *Runner) ids(e erasure, kind string) ([]string, error) {
	items, err := r.items(e, kind)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.id
	}
	return out, nil
}

// moveKeptUsers rewrites the streams of the users kept (step 2): their
// own, their email's claim and reservation, which name the organization,
// now name their new home. It returns how many events it rewrote.
func (r *Runner) moveKeptUsers(e erasure) (int64, error) {
	homes, err := r.items(e, itemHome)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, h := range homes {
		if h.homeOrg == nil || h.homeSpace == nil {
			return total, fmt.Errorf("kept user %s has no home", h.id)
		}
		evs, err := eventstore.ReadRange(e.ctx, r.repos.Store.Pool(), user.Stream(h.id), 0, 0)
		if err != nil {
			return total, err
		}
		if len(evs) == 0 {
			continue
		}
		d, err := r.reg.Decode(evs[0])
		if err != nil {
			return total, err
		}
		reg, ok := d.(user.Registered)
		if !ok {
			return total, fmt.Errorf("stream of user %s starts with %s", h.id, evs[0].Type)
		}
		values := map[string]string{e.orgID: *h.homeOrg}
		if reg.WorkspaceID != "" {
			values[reg.WorkspaceID] = *h.homeSpace
		}
		streams := []string{user.Stream(h.id), user.EmailStream(reg.Email), org.EmailStream(reg.Email)}
		_, err = r.repos.Store.Run(e.ctx, eventstore.TxOptions{Attempts: 1}, func(tx *eventstore.Tx) error {
			n, err := eventstore.Reassign(tx.Context(), tx.DB(), streams, e.orgID, values)
			total += n
			return err
		})
		if err != nil {
			return total, fmt.Errorf("move user %s: %w", h.id, err)
		}
	}
	return total, nil
}

// credentials deletes what is kept outside the log (step 3): the erased
// users' credentials and sessions, the keys' usage, the MCP tokens and
// OAuth states, the connections' credentials.
func (r *Runner) credentials(e erasure) (int64, error) {
	users, err := r.ids(e, itemUser)
	if err != nil {
		return 0, err
	}
	keys, err := r.ids(e, itemKey)
	if err != nil {
		return 0, err
	}
	var total int64
	err = pgx.BeginFunc(e.ctx, r.repos.Store.Pool(), func(tx pgx.Tx) error {
		n, err := credentials.EraseUsers(e.ctx, tx, users)
		total += n
		if err != nil {
			return err
		}
		if n, err = credentials.ForgetKeys(e.ctx, tx, keys); err != nil {
			return err
		}
		total += n
		for _, table := range []string{"mcp_tokens", "mcp_oauth_states", "connection_credentials"} {
			tag, err := tx.Exec(e.ctx, `DELETE FROM `+table+` WHERE org_id = $1`, e.orgID)
			if err != nil {
				return fmt.Errorf("erase %s: %w", table, err)
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	return total, err
}

// events deletes the organization's events but its deletion stream, in
// batches under its lock, then its streams' snapshots (step 4).
func (r *Runner) events(e erasure) (int64, error) {
	var total int64
	for {
		var n int64
		_, err := r.repos.Store.Run(e.ctx, eventstore.TxOptions{Attempts: 1}, func(tx *eventstore.Tx) error {
			// a transaction appending to the organization's ledger or
			// slots holds it: a batch never runs beside one
			if err := commands.LockOrg(tx, e.orgID); err != nil {
				return err
			}
			if _, err := tx.DB().Exec(tx.Context(), "SET LOCAL lock_timeout = '5s'"); err != nil {
				return err
			}
			var err error
			n, err = eventstore.DeleteOrgEvents(tx.Context(), tx.DB(), e.orgID, r.cfg.Batch, e.keep)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < int64(r.cfg.Batch) {
			break
		}
	}
	streams, err := r.ids(e, itemStream)
	if err != nil {
		return total, err
	}
	n, err := eventstore.DeleteSnapshots(e.ctx, r.repos.Store.Pool(), streams...)
	return total + n, err
}

// readModels erases the organization from every read model (step 5).
func (r *Runner) readModels(e erasure) (int64, error) {
	keys, err := r.ids(e, itemKey)
	if err != nil {
		return 0, err
	}
	spaces, err := r.ids(e, itemWorkspace)
	if err != nil {
		return 0, err
	}
	homes, err := r.items(e, itemHome)
	if err != nil {
		return 0, err
	}
	erase := projections.OrgErasure{OrgID: e.orgID, RequestID: e.id, Keys: keys, Workspaces: spaces}
	for _, h := range homes {
		if h.homeOrg != nil && h.homeSpace != nil {
			erase.Homes = append(erase.Homes, projections.Home{UserID: h.id, OrgID: *h.homeOrg, WorkspaceID: *h.homeSpace})
		}
	}
	return projections.EraseOrg(e.ctx, r.repos.Store.Pool(), r.cfg.Projections, erase)
}

// jobLeases waits, at most JobWait, for the runners of the
// organization's jobs (its workflows, deliveries, reloads) to hand their
// leases back, then deletes those left (step 6).
func (r *Runner) jobLeases(e erasure) (int64, error) {
	streams, err := r.ids(e, itemStream)
	if err != nil {
		return 0, err
	}
	ids := make([]string, 0, len(streams))
	for _, s := range streams {
		if _, id, ok := strings.Cut(s, "-"); ok {
			ids = append(ids, id)
		}
	}
	pool := r.repos.Store.Pool()
	deadline := time.Now().Add(r.cfg.JobWait)
	for {
		live, err := jobs.LiveLeases(e.ctx, pool, ids)
		if err != nil {
			return 0, err
		}
		if live == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-e.ctx.Done():
			return 0, e.ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return jobs.DropLeases(e.ctx, pool, ids, e.orgID)
}

// record deletes the deletion stream and appends the erasure's record
// (step 7), in one transaction whose events name no organization.
func (r *Runner) record(ctx context.Context, e erasure) error {
	a, err := r.repos.Deletions.Get(e.ctx, e.orgID)
	if err != nil {
		return err
	}
	rec, err := a.Erase(e.id, time.Now())
	if err != nil {
		return err
	}
	clean := event.WithMetadata(context.WithoutCancel(ctx), event.Metadata{Actor: "system"})
	_, err = r.repos.Store.Run(clean, eventstore.TxOptions{Attempts: 1, Metadata: event.Metadata{Actor: "system"}}, func(tx *eventstore.Tx) error {
		if _, err := eventstore.DeleteStreams(tx.Context(), tx.DB(), e.keep); err != nil {
			return err
		}
		_, err := tx.Append(deletion.ErasureStream(e.id), event.NewStream, rec)
		return err
	})
	if event.ConflictOn(err, deletion.ErasureStream(e.id)) {
		return nil // recorded by an attempt that outlived its lease
	}
	return err
}
