package suite

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"svc/domain/embedding"
	"svc/domain/pitfalldb"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/projections"
)

// PitfallDB is the PitfallDB product's operations (spec C): report,
// query and stats over a failure database shared by every organization.
type PitfallDB struct {
	s        *Suite
	pitfalls *eventstore.Repository[*pitfalldb.Pitfall]
	vectors  *vectorCache

	// Report, Query and Stats run the operations, logged and with
	// read-your-writes.
	Report func(ctx context.Context, cmd PitfallReport) (PitfallReported, error)
	Query  func(ctx context.Context, cmd PitfallQuery) (PitfallQueried, error)
	Stats  func(ctx context.Context, c Caller) (PitfallStats, error)
}

// PitfallSnapshotEvery is how many reports a pitfall's load folds past
// its latest snapshot before writing another.
const PitfallSnapshotEvery = 200

func newPitfallDB(s *Suite) *PitfallDB {
	p := &PitfallDB{s: s, vectors: newVectorCache(4096),
		pitfalls: eventstore.NewRepository(s.repos.Store, eventstore.Kind[*pitfalldb.Pitfall]{
			Stream: pitfalldb.Stream, New: pitfalldb.New,
			// no fold cache: an erasure deletes some of a pitfall's events,
			// which a cached fold would keep counting; snapshots of the
			// erased organization's streams are deleted with them
			Snapshots: &eventstore.Snapshots[*pitfalldb.Pitfall]{Codec: pitfalldb.SnapshotCodec,
				Encode: (*pitfalldb.Pitfall).Snapshot, Decode: pitfalldb.FromSnapshot, Every: PitfallSnapshotEvery},
		})}
	p.Report = handle(s, p.report).Handle
	p.Query = handle(s, p.query).Handle
	p.Stats = handle(s, p.stats).Handle
	return p
}

// PitfallReport is a failure report of the caller's.
type PitfallReport struct {
	Caller Caller
	Report pitfalldb.Report
}

// PitfallReported is the answer to a report.
type PitfallReported struct {
	ReportID, PitfallID string
	Verified            bool
	// Reports and Orgs are the pitfall's counts with the report.
	Reports, Orgs int
	Starter       bool
	Receipt       Receipt
}

// report scrubs the report, and appends it to the pitfall it joins.
func (p *PitfallDB) report(ctx context.Context, cmd PitfallReport) (PitfallReported, error) {
	op := domain.PitfallDBReport
	if err := p.s.Meter.Afford(ctx, cmd.Caller, op); err != nil {
		return PitfallReported{}, err
	}
	r, err := cmd.Report.Check()
	if err != nil {
		return PitfallReported{}, err
	}
	id, starter := pitfalldb.PitfallID(r)
	out := PitfallReported{ReportID: uuid.NewString(), PitfallID: id, Starter: starter}
	out.Receipt, err = p.s.Meter.Run(ctx, cmd.Caller, op, func(tx *eventstore.Tx) error {
		pf, err := p.pitfalls.Load(tx, id)
		if err != nil {
			return err
		}
		d := pf.Report(out.ReportID, cmd.Caller.OrgID, r)
		if _, err := p.pitfalls.Save(tx, id, pf, d); err != nil {
			return err
		}
		out.Verified, out.Reports, out.Orgs = d.Verified, pf.Reports()+1, pf.Orgs()
		if !pf.HasOrg(cmd.Caller.OrgID) {
			out.Orgs++
		}
		return nil
	})
	if err != nil {
		return PitfallReported{}, err
	}
	return out, nil
}

// PitfallQuery asks for the verified pitfalls of a task type.
type PitfallQuery struct {
	Caller          Caller
	TaskType        string
	TaskDescription string
	Filters         pitfalldb.Filters
}

// MaxPitfalls is the most pitfalls a query returns (total_matching
// counts them all).
const MaxPitfalls = 10

// PitfallQueried is the answer to a query.
type PitfallQueried struct {
	Pitfalls      []pitfalldb.Candidate
	TotalMatching int
	// Fallback says what was done when the embedder failed ("" when it
	// did not).
	Fallback string
	Receipt  Receipt
}

// query reads the candidates (the starter set merged with the read
// model), filters and ranks them, and records the query with its charge.
func (p *PitfallDB) query(ctx context.Context, cmd PitfallQuery) (PitfallQueried, error) {
	op := domain.PitfallDBQuery
	if err := checkQuery(cmd); err != nil {
		return PitfallQueried{}, err
	}
	taskType := pitfalldb.TaskTypeOf(cmd.TaskType)
	if taskType == "" {
		return PitfallQueried{}, &pitfalldb.FieldError{Field: "task_type", Err: pitfalldb.ErrTaskType}
	}
	if err := p.s.Meter.Afford(ctx, cmd.Caller, op); err != nil {
		return PitfallQueried{}, err
	}
	cands, err := p.candidates(ctx, taskType, cmd.Filters)
	if err != nil {
		return PitfallQueried{}, err
	}
	out := PitfallQueried{TotalMatching: len(cands)}
	semantic := cmd.TaskDescription != ""
	if semantic {
		if err := p.relevance(ctx, cmd.TaskDescription, cands); err != nil {
			p.s.log.WarnContext(ctx, "pitfalldb: semantic search unavailable", "error", err.Error())
			out.Fallback = "semantic search unavailable: ranked by severity and report count only"
			semantic = false
		}
	}
	pitfalldb.Rank(cands, semantic)
	if len(cands) > MaxPitfalls {
		cands = cands[:MaxPitfalls]
	}
	out.Pitfalls = cands
	returned := make([]string, len(cands))
	for i, c := range cands {
		returned[i] = c.ID
	}
	q := pitfalldb.Queried{QueryID: uuid.NewString(), OrgID: cmd.Caller.OrgID, TaskType: taskType,
		TaskDescription: pitfalldb.Scrub(cmd.TaskDescription), Language: pitfalldb.Scrub(cmd.Filters.Language),
		Framework: pitfalldb.Scrub(cmd.Filters.Framework), Provider: pitfalldb.Scrub(cmd.Filters.Provider), Semantic: semantic, Returned: returned, TotalMatching: out.TotalMatching}
	out.Receipt, err = p.s.Meter.Run(ctx, cmd.Caller, op, func(tx *eventstore.Tx) error {
		_, err := tx.Append(pitfalldb.QueryStream(q.QueryID), -1, q)
		return err
	})
	if err != nil {
		return PitfallQueried{}, err
	}
	return out, nil
}

// checkQuery refuses a query field over its limit.
func checkQuery(cmd PitfallQuery) error {
	for _, l := range []struct {
		field, value string
		max          int
	}{
		{"task_type", cmd.TaskType, pitfalldb.MaxTaskType}, {"task_description", cmd.TaskDescription, pitfalldb.MaxText},
		{"filters.language", cmd.Filters.Language, pitfalldb.MaxShort}, {"filters.framework", cmd.Filters.Framework, pitfalldb.MaxShort},
		{"filters.provider", cmd.Filters.Provider, pitfalldb.MaxShort},
	} {
		if n := utf8.RuneCountInString(l.value); n > l.max {
			return &pitfalldb.FieldError{Field: l.field, Err: fmt.Errorf("%w (at most %d characters)", pitfalldb.ErrTooLong, l.max)}
		}
	}
	return nil
}

// candidates are the verified pitfalls of taskType (and the general
// ones) under filters: the starter set, with the counts of those
// reported, and the verified reported ones.
func (p *PitfallDB) candidates(ctx context.Context, taskType string, f pitfalldb.Filters) ([]pitfalldb.Candidate, error) {
	rows, err := p.s.ports.Queries.Pitfalls(ctx, taskType, pitfalldb.GeneralTaskType)
	if err != nil {
		return nil, fmt.Errorf("pitfalldb query: %w", err)
	}
	reported := map[string]projections.PitfallRow{}
	out := []pitfalldb.Candidate{}
	for _, r := range rows {
		if r.Starter {
			reported[r.ID] = r
			continue
		}
		out = append(out, pitfalldb.Candidate{ID: r.ID, Severity: pitfalldb.Severity(r.Severity), Title: r.Title,
			Description: r.Description, Fix: r.Fix, FixConfidence: r.FixConfidence, Reports: r.Reports, Orgs: r.Orgs,
			Tags: r.Tags, Languages: r.Languages, Frameworks: r.Frameworks, Providers: r.Providers,
			AppliesTo: pitfalldb.AppliesTo{TaskType: r.TaskType, Language: r.Language, Framework: r.Framework, Provider: r.Provider}})
	}
	for _, s := range pitfalldb.Starters() {
		if s.TaskType != taskType && s.TaskType != pitfalldb.GeneralTaskType {
			continue
		}
		r := reported[s.ID]
		out = append(out, pitfalldb.FromStarter(s, r.Reports, r.Orgs))
	}
	matching := out[:0]
	for _, c := range out {
		if c.Matches(f) {
			matching = append(matching, c)
		}
	}
	return matching, nil
}

// relevance sets each candidate's cosine with description.
func (p *PitfallDB) relevance(ctx context.Context, description string, cs []pitfalldb.Candidate) error {
	emb := p.s.ports.Embedder
	texts := []string{description}
	for _, c := range cs {
		texts = append(texts, c.Text())
	}
	vecs, err := p.vectors.embed(ctx, emb, texts)
	if err != nil {
		return err
	}
	for i := range cs {
		cs[i].Relevance = embedding.Cosine(vecs[0], vecs[i+1])
	}
	return nil
}

// PitfallStats are PitfallDB's figures.
type PitfallStats struct {
	projections.PitfallStats
	// Pitfalls counts the verified pitfalls a query may return: the
	// starter set and the verified reported ones.
	Pitfalls int
	Starters int
	Receipt  Receipt
}

// StatsWindow is the span of stats' recent activity.
const StatsWindow = 7 * 24 * time.Hour

// stats reads the figures; free, so no event.
func (p *PitfallDB) stats(ctx context.Context, c Caller) (PitfallStats, error) {
	st, err := p.s.ports.Queries.PitfallStats(ctx, c.OrgID, time.Now().Add(-StatsWindow), 5)
	if err != nil {
		return PitfallStats{}, err
	}
	n := len(pitfalldb.Starters())
	out := PitfallStats{PitfallStats: st, Starters: n, Pitfalls: n + st.Verified - st.StartersReported}
	out.Receipt, err = p.s.Meter.Balance(ctx, c)
	if err != nil {
		return PitfallStats{}, err
	}
	return out, nil
}

// vectorCache keeps the embeddings of pitfalls' texts (by embedder and
// text): a cache of what the read model and the starter set hold.
type vectorCache struct {
	mu  sync.Mutex
	max int
	m   map[string][]float32
}

func newVectorCache(max int) *vectorCache { return &vectorCache{max: max, m: map[string][]float32{}} }

// embed embeds texts, the first (the query's) never cached.
func (v *vectorCache) embed(ctx context.Context, emb embedding.Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var at []int
	v.mu.Lock()
	for i, t := range texts {
		if vec, ok := v.m[emb.Name()+"\x00"+t]; ok && i > 0 {
			out[i] = vec
			continue
		}
		miss, at = append(miss, t), append(at, i)
	}
	v.mu.Unlock()
	vecs, err := emb.Embed(ctx, miss)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(miss) {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(miss))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m)+len(miss) > v.max {
		v.m = map[string][]float32{}
	}
	for j, i := range at {
		out[i] = vecs[j]
		if i > 0 {
			v.m[emb.Name()+"\x00"+texts[i]] = vecs[j]
		}
	}
	return out, nil
}
