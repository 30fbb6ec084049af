package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/domain/dedupq"
	domain "svc/domain/suite"
	"svc/eventstore"
)

func (d *DedupQ) runCheck(ctx context.Context, cmd DedupQCheck) (DedupQCheckResult, error) {
	op := domain.DedupQCheck
	if err := d.s.Meter.Afford(ctx, cmd.Caller, op); err != nil {
		return DedupQCheckResult{}, err
	}
	threshold := dedupq.DefaultThreshold
	if cmd.Threshold != nil {
		threshold = *cmd.Threshold
	}
	if threshold < 0 || threshold > 1 {
		return DedupQCheckResult{}, dedupq.ErrThreshold
	}
	orgID, now := cmd.Caller.OrgID, time.Now()
	hash := dedupq.Hash(cmd.Content)
	c := dedupq.Check{CheckID: uuid.NewString(), OrgID: orgID, Hash: hash, TaskID: cmd.TaskID, AgentID: cmd.Caller.AgentID,
		KeyID: cmd.Caller.KeyID, Content: cmd.Content, HashOnly: cmd.HashOnly, Threshold: threshold, Credits: op.Credits, Now: now}
	out := DedupQCheckResult{ContentHash: hash}

	// the shared cache: a fresh result of this very content
	fromCache, err := d.fromCache(ctx, orgID, hash, now)
	if err != nil {
		out.Fallback = FallbackCacheDown
	}
	// the semantic index, outside the transaction: a candidate the
	// transaction then loads from its own stream
	var cand *dedupq.Hit
	if fromCache == nil && !cmd.HashOnly {
		h, refused, err := d.searchSemantic(ctx, orgID, cmd.Content, hash, threshold, now)
		switch {
		case errors.Is(err, errIndexLoading):
			out.Fallback = FallbackIndexLoading
		case err != nil:
			d.s.log.WarnContext(ctx, "dedupq semantic tier skipped", "error", err.Error())
			out.Fallback = FallbackEmbedderDown
		}
		cand, c.Refused = h, refused
	}

	var (
		checked dedupq.Checked
		result  *dedupq.Result
	)
	rc, err := d.s.Meter.Run(ctx, cmd.Caller, op, func(tx *eventstore.Tx) error {
		if fromCache != nil {
			checked, result = dedupq.CacheHit(c, fromCache), fromCache
			return appendCheck(tx, checked)
		}
		try := c
		if cand != nil {
			other, err := d.entries.Load(tx, entryID(orgID, cand.Hash))
			if err != nil {
				return err
			}
			if r, ok := other.Result(now); ok {
				try.Semantic = &dedupq.Match{Result: r, Similarity: cand.Similarity}
			}
		}
		entry, err := d.entries.Load(tx, entryID(orgID, hash))
		if err != nil {
			return err
		}
		var claim *dedupq.Claimed
		checked, claim = entry.Decide(try)
		result = nil
		switch checked.Tier {
		case dedupq.TierDBExact:
			result, _ = entry.Result(now)
		case dedupq.TierVector:
			result = try.Semantic.Result
		}
		if claim != nil {
			if _, err := d.entries.Save(tx, entryID(orgID, hash), entry, *claim); err != nil {
				return err
			}
		}
		return appendCheck(tx, checked)
	})
	if err != nil {
		return DedupQCheckResult{}, fmt.Errorf("dedupq check: %w", err)
	}
	out.Receipt, out.Outcome, out.Tier = rc, checked.Outcome, checked.Tier
	if checked.MatchType == dedupq.MatchExact && (out.Fallback == FallbackEmbedderDown || out.Fallback == FallbackIndexLoading) {
		out.Fallback = "" // an exact hit needed no semantic tier
	}
	switch checked.Outcome {
	case dedupq.OutcomeHit:
		out.Match = &DedupQMatch{TaskID: result.TaskID, Similarity: checked.Similarity, MatchType: checked.MatchType,
			Result: result.Value, ResultType: result.Type, Summary: result.Summary, ActualCost: result.ActualCost,
			Tags: result.Tags, CachedAt: result.CachedAt, ExpiresAt: result.ExpiresAt}
		if checked.Tier == dedupq.TierDBExact && !d.toCache(ctx, orgID, result, now) && out.Fallback == "" {
			out.Fallback = FallbackCacheDown
		}
	case dedupq.OutcomeLocked:
		out.LockedBy, out.LockedUntil = checked.LockedBy, checked.LockedUntil
	case dedupq.OutcomeMiss:
		until := now.Add(dedupq.ClaimWindow)
		out.ClaimedUntil = &until
	}
	return out, nil
}

// searchSemantic is the closest fresh result of another content of orgID
// at or above threshold that the guard lets through (nil for none), and
// why a closer one was refused. A content whose own result the index
// holds fresh is not embedded nor searched: the exact tier answers it.
func (d *DedupQ) searchSemantic(ctx context.Context, orgID, content, hash string, threshold float64, now time.Time) (*dedupq.Hit, string, error) {
	idx, err := d.index.get(ctx, orgID, d.s.ports.Embedder.Name())
	if err != nil {
		return nil, "", err
	}
	if idx.Fresh(hash, now) {
		return nil, "", nil // the exact tier answers: no need to embed and search
	}
	vec, _, err := d.embed(ctx, content)
	if err != nil {
		return nil, "", err
	}
	h, refused, ok := idx.Search(dedupq.Query{Vector: vec, Signature: dedupq.Sign(dedupq.Keep(content)), Threshold: threshold,
		Now: now, Exclude: hash})
	if !ok {
		return nil, refused, nil
	}
	return &h, refused, nil
}
