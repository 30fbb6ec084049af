package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/schollz/progressbar/v3"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// operatorContext marks events appended by operator commands.
func operatorContext(ctx context.Context) context.Context {
	return event.WithMetadata(ctx, event.Metadata{Actor: "operator", RequestID: "cli_" + uuid.NewString()})
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func orgFlag(fs *flag.FlagSet) *string {
	return fs.String("org", "", "organization id (UUID)")
}

func checkOrg(id string) error {
	if id == "" {
		return usageErr("--org is required")
	}
	if uuid.Validate(id) != nil {
		return usageErr("--org %q is not a UUID", id)
	}
	return nil
}

func runProjectionsList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("projections list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON lines instead of a table")
	if helped, err := noArgs(fs, args, "projections list [--json]\n\nLists each projection generation with its checkpoint (global position) and lag (events not yet applied)."); helped || err != nil {
		return err
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := announcing(pool)
	if err := projections.NewRunner(store, quietLogger(), projections.All()).Setup(ctx); err != nil {
		return err
	}
	cps, err := projections.Checkpoints(ctx, pool)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintln(tw, "NAME\tGENERATION\tSTATE\tCHECKPOINT\tLAG\tAPPLIED\tUPDATED")
	}
	for _, c := range cps {
		lag, err := store.CountAfter(ctx, pool, c.Position)
		if err != nil {
			return err
		}
		state := "active"
		if !c.Active {
			state = "rebuilding"
		}
		if *asJSON {
			line, _ := json.Marshal(map[string]any{"name": c.Name, "generation": c.Generation, "state": state,
				"checkpoint": c.Position.Global, "transaction_id": c.Position.TransactionID, "lag": lag,
				"events_applied": c.EventsApplied, "updated_at": c.UpdatedAt})
			fmt.Println(string(line))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%s\n", c.Name, c.Generation, state, c.Position.Global, lag, c.EventsApplied, c.UpdatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func runProjectionsRebuild(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("projections rebuild", flag.ContinueOnError)
	all := fs.Bool("all", false, "rebuild every projection")
	batch := fs.Int("batch", 50000, "events applied per transaction (a rebuild folds a batch in memory before writing: larger batches write less)")
	names, helped, err := parseFlags(fs, args, "projections rebuild NAME | --all [--batch N]\n\nBuilds a fresh copy of the read model from the event log beside the live one, in short batches,\nthen switches readers to it. The API keeps serving the old copy meanwhile.")
	if helped || err != nil {
		return err
	}
	if *all == (len(names) > 0) {
		return usageErr("projections rebuild: name one projection or pass --all")
	}
	if *batch < 1 || *batch > 100_000 {
		return usageErr("projections rebuild: --batch must be 1 to 100000")
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	runner := projections.NewRunner(announcing(pool), quietLogger(), projections.All(), projections.WithBatch(*batch))
	var targets []projections.Projection
	if *all {
		targets = runner.Projections()
	}
	for _, n := range names {
		p, ok := runner.Find(n)
		if !ok {
			var known []string
			for _, p := range runner.Projections() {
				known = append(known, p.Name())
			}
			return usageErr("projections rebuild: unknown projection %q (known: %v)", n, known)
		}
		targets = append(targets, p)
	}
	for _, p := range targets {
		start := time.Now()
		var bar *progressbar.ProgressBar
		n, err := runner.Rebuild(ctx, p, func(done, total int64) {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetDescription("rebuild "+p.Name()),
					progressbar.OptionSetWriter(os.Stderr), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
					progressbar.OptionSetItsString("events"), progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }))
			}
			bar.ChangeMax64(total)
			_ = bar.Set64(done)
		})
		if bar != nil {
			_ = bar.Finish()
		}
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Printf("%s: rebuilt from %d events in %.1fs (%.0f events/s)\n", p.Name(), n, secs, float64(n)/max(secs, 1e-9))
	}
	return nil
}

func runReplayBilling(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("replay billing", flag.ContinueOnError)
	orgID := orgFlag(fs)
	all := fs.Bool("all", false, "check every organization (a progress bar on stderr)")
	if helped, err := noArgs(fs, args, "replay billing --org ORG_ID | --all\n\nRecomputes the balance and per-workflow charges from the event log and compares them\nwith the read models, for one organization or for every one. Exit 0 when they agree,\n1 on any difference."); helped || err != nil {
		return err
	}
	if *all && *orgID != "" {
		return usageErr("replay billing: --org and --all exclude each other")
	}
	if !*all {
		if err := checkOrg(*orgID); err != nil {
			return err
		}
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := announcing(pool)
	if *all {
		return replayAll(ctx, store)
	}
	rep, err := projections.ReplayBilling(ctx, store, *orgID)
	if err != nil {
		return err
	}
	fmt.Printf("org %s: %d ledger events up to position %d, %d workflows\n", rep.OrgID, rep.Events, rep.Checkpoint.Global, rep.Workflows)
	fmt.Printf("log:        balance %d, reserved %d (granted %d, charged %d, refunded %d)\n", rep.Log.Balance, rep.Log.Reserved, rep.Log.Granted, rep.Log.Charged, rep.Log.Refunded)
	fmt.Printf("read model: balance %d, reserved %d (granted %d, charged %d, refunded %d)\n", rep.ReadModel.Balance, rep.ReadModel.Reserved, rep.ReadModel.Granted, rep.ReadModel.Charged, rep.ReadModel.Refunded)
	for _, o := range []struct {
		name string
		b    projections.OrgBilling
	}{{"log:       ", rep.LogOrg}, {"read model:", rep.ModelOrg}} {
		fmt.Printf("%s tier %s, subscription %s %s, processor customer %s\n", o.name, o.b.Tier, o.b.SubscriptionStatus,
			orNone(o.b.SubscriptionID), orNone(o.b.CustomerID))
	}
	if len(rep.Differences) == 0 {
		fmt.Println("OK: the read models agree with the event log")
		return nil
	}
	for _, d := range rep.Differences {
		fmt.Println("DIFFERENCE " + d)
	}
	return &exitError{code: 1, err: fmt.Errorf("billing of %s differs from the event log in %d places", rep.OrgID, len(rep.Differences))}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// replayAll replays every organization's billing, one at a time (each in
// its own short reads), with a progress bar; it prints the differences of
// each organization that has any.
func replayAll(ctx context.Context, store *eventstore.Store) error {
	ids, err := projections.OrgIDs(ctx, store)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := progressbar.NewOptions(len(ids), progressbar.OptionSetDescription("replay billing"),
		progressbar.OptionSetWriter(os.Stderr), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("orgs"), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }))
	differ := 0
	for _, id := range ids {
		rep, err := projections.ReplayBilling(ctx, store, id)
		if err != nil {
			return fmt.Errorf("replay billing of %s: %w", id, err)
		}
		if len(rep.Differences) > 0 {
			differ++
			_ = bar.Clear()
			for _, d := range rep.Differences {
				fmt.Printf("DIFFERENCE org %s: %s\n", id, d)
			}
		}
		_ = bar.Add(1)
	}
	_ = bar.Finish()
	fmt.Printf("%d organizations checked in %.1fs, %d differ\n", len(ids), time.Since(start).Seconds(), differ)
	if differ > 0 {
		return &exitError{code: 1, err: fmt.Errorf("the billing of %d of %d organizations differs from the event log", differ, len(ids))}
	}
	fmt.Println("OK: the read models agree with the event log")
	return nil
}

func runEventsTail(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("events tail", flag.ContinueOnError)
	orgID := orgFlag(fs)
	from := fs.Int64("from", 0, "start at the event with this global position (inclusive); 0 = from the beginning")
	follow := fs.Bool("follow", false, "keep waiting for new events")
	fs.BoolVar(follow, "f", false, "same as --follow")
	if helped, err := noArgs(fs, args, "events tail [--org ORG_ID] [--from POSITION] [--follow]\n\nPrints events as JSON lines in global order."); helped || err != nil {
		return err
	}
	if *orgID != "" {
		if err := checkOrg(*orgID); err != nil {
			return err
		}
	}
	if *from < 0 {
		return usageErr("events tail: --from must be 0 or more")
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := announcing(pool)
	var after event.Position
	if *from > 0 {
		p, ok, err := store.PositionOf(ctx, *from)
		if err != nil {
			return err
		}
		if !ok {
			return &exitError{code: 1, err: fmt.Errorf("events tail: no event at position %d", *from)}
		}
		after = event.Position{TransactionID: p.TransactionID, Global: p.Global - 1}
	}
	enc := json.NewEncoder(os.Stdout)
	for {
		events, err := store.ReadAll(ctx, pool, after, 1000, eventstore.Filter{OrgID: *orgID})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range events {
			if err := enc.Encode(map[string]any{"position": e.Position.Global, "transaction_id": e.Position.TransactionID,
				"event_id": e.ID, "stream_id": e.StreamID, "version": e.Version, "type": e.Type, "data": e.Data,
				"metadata": e.Metadata, "recorded_at": e.RecordedAt}); err != nil {
				return err
			}
			after = e.Position
		}
		if len(events) == 1000 {
			continue
		}
		if !*follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func runCreditsGrant(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("credits grant", flag.ContinueOnError)
	orgID := orgFlag(fs)
	amount := fs.Int64("credits", 0, "credits to grant (positive; 1,000 credits = 1 USD)")
	reason := fs.String("reason", "", "why (recorded with the grant)")
	if helped, err := noArgs(fs, args, "credits grant --org ORG_ID --credits N --reason TEXT\n\nAppends an operator credit grant (top-up)."); helped || err != nil {
		return err
	}
	if err := checkOrg(*orgID); err != nil {
		return err
	}
	if *amount <= 0 {
		return usageErr("credits grant: --credits must be a positive integer")
	}
	if *reason == "" {
		return usageErr("credits grant: --reason is required")
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := commands.NewGrantCreditsHandler(commands.NewRepositories(announcing(pool))).Handle(operatorContext(ctx),
		commands.GrantCredits{OrgID: *orgID, Amount: *amount, Reason: credit.ReasonOperator, Note: *reason})
	if errors.Is(err, org.ErrNotFound) {
		return &exitError{code: 1, err: fmt.Errorf("credits grant: no organization %s", *orgID)}
	}
	if err != nil {
		return err
	}
	fmt.Printf("granted %d credits to %s: balance %d (event position %d)\n", *amount, *orgID, res.Balance, res.Position.Global)
	return nil
}

func runOrgSetTier(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("org set-tier", flag.ContinueOnError)
	orgID := orgFlag(fs)
	tierName := fs.String("tier", "", "free, pro, team or enterprise")
	if helped, err := noArgs(fs, args, "org set-tier --org ORG_ID --tier free|pro|team|enterprise\n\nAppends a manual tier change (contracts signed outside the payment processor)."); helped || err != nil {
		return err
	}
	if err := checkOrg(*orgID); err != nil {
		return err
	}
	tier, err := org.ParseTier(*tierName)
	if err != nil {
		return usageErr("org set-tier: --tier: %v", err)
	}
	pool, _, err := openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := commands.NewChangeTierHandler(commands.NewRepositories(announcing(pool))).Handle(operatorContext(ctx),
		commands.ChangeTier{OrgID: *orgID, Tier: tier, Source: "operator"})
	if errors.Is(err, org.ErrNotFound) {
		return &exitError{code: 1, err: fmt.Errorf("org set-tier: no organization %s", *orgID)}
	}
	if err != nil {
		return err
	}
	if !res.Changed {
		fmt.Printf("%s is already on %s: nothing changed\n", *orgID, tier)
		return nil
	}
	fmt.Printf("%s: tier %s -> %s (event position %d)\n", *orgID, res.From, res.To, res.Position.Global)
	return nil
}

// announcing returns a store over pool whose every commit notifies the
// serving processes (eventstore.Channel), so that they apply an operator's
// change (a revoked key, a tier, a grant) at once.
func announcing(pool *pgxpool.Pool) *eventstore.Store {
	s := eventstore.New(pool)
	s.AnnounceEachCommit()
	return s
}
