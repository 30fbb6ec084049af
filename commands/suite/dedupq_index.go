package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"svc/domain/dedupq"
	"svc/projections"
)

// The semantic index is a cache of the dedupq_results read model in this
// process: one dedupq.Index per organization and embedder, loaded on its
// first search and brought up to date before each search by reading the
// rows written since the last it read (one indexed query, usually
// empty). A result completed through another instance is found once the
// read model has it.

// maxIndexedOrgs and maxIndexedResults bound the organizations whose
// index a process keeps and the results they hold (about 1 KB each); the
// least recently searched goes first.
const (
	maxIndexedOrgs    = 256
	maxIndexedResults = 1_000_000
)

// compactEvery is how often an index drops its expired results.
const compactEvery = 10 * time.Minute

// refreshPage is how many rows one refresh query reads.
const refreshPage = 5000

type indexes struct {
	q   *projections.Queries
	max int

	mu   sync.Mutex
	orgs map[string]*orgIndex
}

type orgIndex struct {
	mu        sync.Mutex // serializes refreshes
	idx       *dedupq.Index
	cursor    projections.DedupQCursor
	lastUsed  time.Time
	compacted time.Time
	// ready is closed once the first load ended, with loadErr set when it
	// failed.
	ready   chan struct{}
	loadErr error
}

// loadWait is how long a search waits for an organization's first load
// before going on without the semantic tier (the load goes on).
const loadWait = time.Second

// errIndexLoading: the organization's index is still being loaded.
var errIndexLoading = errors.New("semantic index loading")

func newIndexes(q *projections.Queries, max int) *indexes {
	return &indexes{q: q, max: max, orgs: map[string]*orgIndex{}}
}

// get is orgID's index of embedder's vectors, up to date with the read
// model. An organization's first load runs in the background: when it
// takes longer than loadWait, get answers errIndexLoading meanwhile.
func (x *indexes) get(ctx context.Context, orgID, embedder string) (*dedupq.Index, error) {
	key := orgID + "|" + embedder
	x.mu.Lock()
	oi, ok := x.orgs[key]
	if !ok {
		if len(x.orgs) >= x.max {
			x.evictLocked()
		}
		oi = &orgIndex{idx: dedupq.NewIndex(), ready: make(chan struct{})}
		x.orgs[key] = oi
		go x.load(key, oi, orgID, embedder)
	}
	oi.lastUsed = time.Now()
	x.mu.Unlock()

	select {
	case <-oi.ready:
	case <-time.After(loadWait):
		return nil, errIndexLoading
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if oi.loadErr != nil {
		return nil, oi.loadErr
	}
	if err := x.refresh(ctx, oi, orgID, embedder); err != nil {
		return nil, err
	}
	x.trim(key)
	return oi.idx, nil
}

// trim drops expired results from the indexes due for it, then the least
// recently searched indexes (never keep's) while they hold more than
// maxIndexedResults.
func (x *indexes) trim(keep string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Now()
	total := 0
	for _, oi := range x.orgs {
		if now.Sub(oi.compacted) > compactEvery {
			oi.idx.Compact(now)
			oi.compacted = now
		}
		total += oi.idx.Len()
	}
	for total > maxIndexedResults {
		var oldest string
		for k, oi := range x.orgs {
			if k != keep && (oldest == "" || oi.lastUsed.Before(x.orgs[oldest].lastUsed)) {
				oldest = k
			}
		}
		if oldest == "" {
			return
		}
		total -= x.orgs[oldest].idx.Len()
		delete(x.orgs, oldest)
	}
}

// load is the first load of oi; a failed one is forgotten, so the next
// search tries again.
func (x *indexes) load(key string, oi *orgIndex, orgID, embedder string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if oi.loadErr = x.refresh(ctx, oi, orgID, embedder); oi.loadErr != nil {
		x.mu.Lock()
		if x.orgs[key] == oi {
			delete(x.orgs, key)
		}
		x.mu.Unlock()
	}
	close(oi.ready)
}

// refresh reads the rows written since oi's cursor into its index.
func (x *indexes) refresh(ctx context.Context, oi *orgIndex, orgID, embedder string) error {
	oi.mu.Lock()
	defer oi.mu.Unlock()
	for {
		rows, err := x.q.DedupQResultsAfter(ctx, orgID, embedder, oi.cursor, refreshPage)
		if err != nil {
			return fmt.Errorf("semantic index: %w", err)
		}
		for _, r := range rows {
			oi.idx.Upsert(r.Stored)
			oi.cursor = r.Cursor
		}
		if len(rows) < refreshPage {
			return nil
		}
	}
}

// evictLocked drops the least recently used index.
func (x *indexes) evictLocked() {
	var oldest string
	var at time.Time
	for k, oi := range x.orgs {
		if oldest == "" || oi.lastUsed.Before(at) {
			oldest, at = k, oi.lastUsed
		}
	}
	delete(x.orgs, oldest)
}

// cached is a fresh result in the shared cache.
type cached struct {
	TaskID     string          `json:"task_id"`
	Result     json.RawMessage `json:"result"`
	ResultType string          `json:"result_type"`
	Summary    string          `json:"result_summary,omitempty"`
	ActualCost float64         `json:"actual_cost"`
	Tags       []string        `json:"tags"`
	CachedAt   time.Time       `json:"cached_at"`
	ExpiresAt  time.Time       `json:"expires_at"`
}

// cacheKey is the shared cache's key of orgID's content hash.
func cacheKey(orgID, hash string) string { return "dedupq:" + orgID + ":" + hash }

// fromCache is orgID's fresh result for hash in the shared cache (nil for
// none); an error is the cache's failure (the caller goes on without).
func (d *DedupQ) fromCache(ctx context.Context, orgID, hash string, now time.Time) (*dedupq.Result, error) {
	c := d.s.ports.Cache
	if c == nil {
		return nil, nil
	}
	raw, ok, err := c.Get(ctx, cacheKey(orgID, hash))
	if err != nil || !ok {
		return nil, err
	}
	var v cached
	if json.Unmarshal(raw, &v) != nil {
		return nil, nil
	}
	r := &dedupq.Result{Hash: hash, TaskID: v.TaskID, Value: v.Result, Type: v.ResultType, Summary: v.Summary,
		ActualCost: v.ActualCost, Tags: v.Tags, CachedAt: v.CachedAt, ExpiresAt: v.ExpiresAt}
	if !r.Fresh(now) {
		return nil, nil
	}
	return r, nil
}

// toCache puts a fresh result in the shared cache until it expires; a
// failure is logged and otherwise ignored (the database has it).
func (d *DedupQ) toCache(ctx context.Context, orgID string, r *dedupq.Result, now time.Time) bool {
	c := d.s.ports.Cache
	if c == nil || !r.Fresh(now) {
		return true
	}
	raw, err := json.Marshal(cached{TaskID: r.TaskID, Result: r.Value, ResultType: r.Type, Summary: r.Summary,
		ActualCost: r.ActualCost, Tags: r.Tags, CachedAt: r.CachedAt, ExpiresAt: r.ExpiresAt})
	if err != nil {
		return false
	}
	ttl := int(r.ExpiresAt.Sub(now) / time.Second)
	if ttl < 1 {
		return true
	}
	if err := c.Set(ctx, cacheKey(orgID, r.Hash), raw, ttl); err != nil {
		d.s.log.WarnContext(ctx, "dedupq cache write failed", "error", err.Error())
		return false
	}
	return true
}
