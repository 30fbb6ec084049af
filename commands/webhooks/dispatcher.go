// Package webhooks delivers the events of workflows executed with delivery
// method webhook to their registered URL (spec A), and the events of a
// workspace's workflows to the workspace webhook endpoints subscribed to
// them (spec B).
//
// Three parts, all in Dispatcher.Run:
//
//   - A watermill handler (consumer group "webhooks") on the events topic
//     schedules a delivery for each deliverable event of such a workflow: it
//     folds the workflow up to the event, renders the payload and appends
//     WebhookDeliveryScheduled to a new stream delivery-<delivery_id>. The
//     delivery id is derived from the event id, so a redelivered message
//     meets a stream that exists already (a version conflict) and is acked.
//     The handler makes no network call: one stream read and one append.
//   - A sender (a jobs.Runner of kind delivery) finds due deliveries in the
//     webhook_deliveries read model (or is told of a new one by the
//     handler), takes a lease per delivery in job_leases, makes one attempt
//     with webhook.Sender outside any transaction, and appends
//     WebhookDeliveryAttempted with the stream's expected version. Failed
//     attempts are retried on the webhook.Backoff schedule, up to
//     webhook.MaxAttempts.
//   - A fan-out (fanout.go) reads the log from its own offset and, in the
//     transaction that moves the offset, schedules a delivery per
//     workflow event and workspace endpoint subscribed to it; the sender
//     above makes its attempts like any other delivery's, signed with the
//     endpoint's secret (two during a rotation's overlap), and an
//     endpoint whose deliveries keep failing is disabled.
package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"

	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/jobs"
	"svc/domain/delivery"
	"svc/domain/hook"
	"svc/eventstore"
	"svc/projections"
)

// DefaultConsumerGroup is the watermill consumer group of the scheduler.
const DefaultConsumerGroup = "webhooks"

// Config tunes a Dispatcher. Zero values take the defaults.
type Config struct {
	// ID names this process in leases; default host:pid:random.
	ID string
	// ConsumerGroup is the watermill consumer group; default "webhooks".
	ConsumerGroup string
	// Concurrency bounds the attempts in flight in this process; default
	// 32 (an attempt mostly waits on its receiver and the database).
	Concurrency int
	// BackoffScale multiplies the retry pauses (webhook.ScaledBackoff); 1
	// in production (SVC_WEBHOOK_BACKOFF_SCALE in tests). A value that is
	// not a positive finite number counts as 1.
	BackoffScale float64
	// Poll is how often the read model is searched for due deliveries;
	// default 500 ms, or 10 s with Push.
	Poll time.Duration
	// Push says the store's Push runs: the subscription and the search
	// for due deliveries are woken by commits in every process, and the
	// polls are only a safety net.
	Push bool
	// SendTimeout bounds one attempt; default 15 s (the outbound client has
	// its own bound too, 10 s by default).
	SendTimeout time.Duration
	// Lease is how long a delivery's lease lasts without renewal (every
	// third of it, while the attempt runs and through StopGrace); default
	// jobs.Config's (10 s): how soon another process takes a dead one's
	// deliveries over.
	// An attempt whose lease is lost has its context ended, and a process
	// that stalls past its lease may make an attempt another makes too:
	// deliveries are at least once (receivers dedupe by delivery id).
	Lease time.Duration
	// StopGrace is how long attempts in flight may still take once Run's
	// context ends; past it they are abandoned unrecorded; default 5 s.
	StopGrace time.Duration
	// FanoutGroup names the workspace endpoints' fan-out's offset;
	// default FanoutGroup.
	FanoutGroup string
	// DisableAfter is how many deliveries to a workspace endpoint may give
	// up in a row before it is disabled; default hook.DisableAfter.
	DisableAfter int
}

func (c *Config) defaults() {
	if c.ID == "" {
		c.ID = jobs.DefaultID()
	}
	if c.ConsumerGroup == "" {
		c.ConsumerGroup = DefaultConsumerGroup
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if !(c.BackoffScale > 0) || math.IsInf(c.BackoffScale, 0) {
		c.BackoffScale = 1
	}
	if c.Poll <= 0 {
		c.Poll = 500 * time.Millisecond
		if c.Push {
			c.Poll = 10 * time.Second // due retries scheduled by a process that died
		}
	}
	if c.SendTimeout <= 0 {
		c.SendTimeout = 15 * time.Second
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 5 * time.Second
	}
	if c.FanoutGroup == "" {
		c.FanoutGroup = FanoutGroup
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = hook.DisableAfter
	}
}

// Dispatcher schedules and sends webhook deliveries.
type Dispatcher struct {
	store  *eventstore.Store
	repos  *commands.Repositories
	sender *webhook.Sender
	box    *secrets.Box
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	jobs   *jobs.Runner
	fanout *fanout

	unsubscribe func() // ends the jobs' wake-ups (Push)

	// methods remembers, per workflow stream, whether it wants webhooks.
	methodsMu sync.Mutex
	methods   map[string]bool
}

// New returns a dispatcher appending through repos, sending with sender
// and opening webhook secrets with box.
func New(repos *commands.Repositories, sender *webhook.Sender, box *secrets.Box, cfg Config, log *slog.Logger) *Dispatcher {
	if repos == nil || sender == nil || box == nil || log == nil {
		panic("webhooks: nil dependency")
	}
	cfg.defaults()
	d := &Dispatcher{store: repos.Store, repos: repos, sender: sender, box: box, cfg: cfg, log: log.With("dispatcher", cfg.ID),
		now: time.Now, methods: map[string]bool{}}
	var wake <-chan struct{}
	if cfg.Push {
		wake, d.unsubscribe = repos.Store.SubscribeTypes(projections.Moved(projections.WebhookDeliveries{}.Name()))
	}
	d.jobs = jobs.New(repos.Store.Pool(), jobs.Config{Kind: jobs.KindDelivery, ID: cfg.ID, Concurrency: cfg.Concurrency,
		Lease: cfg.Lease, Poll: cfg.Poll, Wake: wake, StopGrace: cfg.StopGrace, Find: d.due, Run: d.next}, d.log)
	d.fanout = newFanout(d, cfg.FanoutGroup)
	return d
}

// Run subscribes to the events topic and sends due deliveries until ctx
// ends; then it stops taking messages, lets attempts in flight finish
// within Config.StopGrace (or abandons them unrecorded) and hands every
// lease back. It returns an error only when the subscription cannot start.
func (d *Dispatcher) Run(ctx context.Context) error {
	wmLog := watermill.NewSlogLoggerWithLevelMapping(d.log.With("component", "watermill"),
		map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
	// The group's first start (an existing deployment upgrading, or a new
	// group) begins at the log's head: workflows that ended before it are
	// not delivered now. Later starts resume at the group's offset.
	head, started, err := eventstore.StartAtHead(ctx, d.store.Pool(), d.cfg.ConsumerGroup)
	if err != nil {
		if ctx.Err() != nil { // stopped before it started
			return nil
		}
		return fmt.Errorf("webhooks: subscription start: %w", err)
	}
	if started {
		d.log.Info("webhook consumer group starts at the head of the log", "group", d.cfg.ConsumerGroup,
			"transaction_id", head.TransactionID, "position", head.Global)
	}
	if d.unsubscribe != nil {
		defer d.unsubscribe()
	}
	var opts eventstore.SubscriberOptions
	if d.cfg.Push {
		wake, stop := d.store.SubscribeTypes(delivery.DeliveredTypes()...)
		defer stop()
		opts = eventstore.SubscriberOptions{Wake: wake, Done: ctx.Done()}
	}
	sub, err := eventstore.NewSubscriber(d.store.Pool(), d.cfg.ConsumerGroup, wmLog, opts)
	if err != nil {
		return fmt.Errorf("webhooks: subscriber: %w", err)
	}
	msgs, err := sub.Subscribe(ctx, eventstore.Topic)
	if err != nil {
		_ = sub.Close()
		return fmt.Errorf("webhooks: subscribe: %w", err)
	}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		d.consume(msgs)
	}()
	fannedOut := make(chan struct{})
	go func() {
		defer close(fannedOut)
		d.fanout.run(ctx)
	}()
	d.jobs.Run(ctx)
	if err := sub.Close(); err != nil {
		d.log.Warn("closing the webhook subscription", "error", err)
	}
	<-consumed
	<-fannedOut
	return nil
}
