package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/domain/dedupq"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/projections"
)

func (d *DedupQ) runComplete(ctx context.Context, cmd DedupQComplete) (DedupQCompleteResult, error) {
	op := domain.DedupQComplete
	orgID, now := cmd.Caller.OrgID, time.Now()
	comp := dedupq.Completion{OrgID: orgID, TaskID: cmd.TaskID, AgentID: cmd.Caller.AgentID, Result: cmd.Result,
		ResultType: cmd.ResultType, Summary: cmd.Summary, ActualCost: cmd.ActualCost, TTLSeconds: cmd.TTLSeconds,
		Tags: cmd.Tags, Now: now, Credits: op.Credits}
	// refused before the balance and any work: 413 or 400 whatever the
	// balance says
	if err := dedupq.CheckCompletion(comp); err != nil {
		return DedupQCompleteResult{}, err
	}
	if err := d.s.Meter.Afford(ctx, cmd.Caller, op); err != nil {
		return DedupQCompleteResult{}, err
	}
	content := cmd.Content
	if content != "" {
		comp.Hash = dedupq.Hash(content)
	} else {
		hash, kept, err := d.s.ports.Queries.DedupQTask(ctx, orgID, cmd.TaskID)
		if errors.Is(err, projections.ErrNotFound) {
			return DedupQCompleteResult{}, ErrDedupQNoContent
		}
		if err != nil {
			return DedupQCompleteResult{}, fmt.Errorf("dedupq complete: %w", err)
		}
		comp.Hash, content = hash, kept
	}
	out := DedupQCompleteResult{TaskID: cmd.TaskID, ContentHash: comp.Hash}
	comp.Guard = dedupq.Sign(dedupq.Keep(content)).Encode()
	if !cmd.HashOnly {
		vec, name, err := d.embed(ctx, content)
		if err != nil {
			d.s.log.WarnContext(ctx, "dedupq result not embedded", "error", err.Error())
			out.Fallback = FallbackNotEmbedded
		} else {
			comp.Vector, comp.Scale = dedupq.Quantize(vec)
			comp.Sketch = dedupq.SketchOf(dedupq.Dequantize(comp.Vector, comp.Scale)).Bytes()
			comp.Embedder = name
			out.Semantic = true
		}
	}
	var completed dedupq.Completed
	rc, err := d.s.Meter.Run(ctx, cmd.Caller, op, func(tx *eventstore.Tx) error {
		entry, err := d.entries.Load(tx, entryID(orgID, comp.Hash))
		if err != nil {
			return err
		}
		if completed, err = entry.Complete(comp); err != nil {
			return err
		}
		_, err = d.entries.Save(tx, entryID(orgID, comp.Hash), entry, completed)
		return err
	})
	if err != nil {
		return DedupQCompleteResult{}, fmt.Errorf("dedupq complete: %w", err)
	}
	out.Receipt, out.ExpiresAt = rc, completed.ExpiresAt
	r := &dedupq.Result{Hash: comp.Hash, TaskID: completed.TaskID, Value: completed.Result, Type: completed.ResultType,
		Summary: completed.ResultSummary, ActualCost: completed.ActualCost, Tags: completed.Tags,
		CachedAt: completed.CompletedAt, ExpiresAt: completed.ExpiresAt}
	if !d.toCache(ctx, orgID, r, now) && out.Fallback == "" {
		out.Fallback = FallbackCacheDown
	}
	return out, nil
}
