package eventstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Channel is the PostgreSQL channel on which every process of the service
// announces, after each commit that appended events, what it appended:
// the payload is "<process id> <types> <streams>", each list
// comma-separated, "*" for unknown (every subscriber) and "-" for none.
// Processes sharing a database wake their readers on it instead of
// polling.
const Channel = "svc_events"

const (
	anyOne  = "*" // a payload list: unknown, so every subscriber
	noneOne = "-" // a payload list: none
	// maxStreams bounds the streams one notification names; a burst of
	// commits to more streams wakes every stream subscriber instead.
	maxStreams = 80
)

// QuickLooks bounds the quick looks a woken reader makes when it found
// nothing: the event that woke it is committed but still hidden behind an
// older transaction that has not ended (the xmin rule); the head check
// wakes it again once that transaction ends.
const QuickLooks = 7

// QuickLook is the pause before quick look n (1 to QuickLooks): 1, 2,
// 4 ... 64 ms, about 127 ms in all.
func QuickLook(n int) time.Duration { return time.Duration(1<<(n-1)) * time.Millisecond }

// PushOptions tune Store.Push.
type PushOptions struct {
	// HeadEvery is how often Push reads the visible head of the log and
	// wakes every subscriber when it moved without a notification (one
	// was lost, or a commit that hid events ended): the safety net of
	// push. Default 5 s.
	HeadEvery time.Duration
	// Log receives reconnects and failures; default slog.Default().
	Log *slog.Logger
}

// push is the state of a store whose commits are announced on Channel.
type push struct {
	id string // this process, in payloads

	mu         sync.Mutex
	types      map[string]bool // to announce
	allTypes   bool
	streams    map[string]bool
	allStreams bool
	kick       chan struct{}
	running    bool // Push runs: its publisher goroutine sends
	each       bool // AnnounceEachCommit: every commit sends its own
}

func newPush() *push {
	return &push{id: uuid.NewString(), types: map[string]bool{}, streams: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// list encodes one payload list.
func list(all bool, set []string) string {
	switch {
	case all:
		return anyOne
	case len(set) == 0:
		return noneOne
	}
	set = slices.Clone(set)
	slices.Sort(set)
	return strings.Join(slices.Compact(set), ",")
}

// payload encodes c for Channel.
func (p *push) payload(c commit) string {
	return p.id + " " + list(c.types == nil, c.types) + " " + list(c.streams == nil || len(c.streams) > maxStreams, c.streams)
}

// parsePayload decodes a notification: its sender and what it committed.
func parsePayload(s string) (sender string, c commit) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", commit{}
	}
	field := func(i int) []string {
		switch {
		case i >= len(f) || f[i] == anyOne:
			return nil
		case f[i] == noneOne:
			return []string{}
		}
		return strings.Split(f[i], ",")
	}
	return f[0], commit{types: field(1), streams: field(2)}
}

// AnnounceEachCommit makes every commit of this store notify Channel
// itself, in the committing goroutine, when Push does not run: for a
// short-lived process (an operator command) whose appends the serving
// processes should see at once. Without it and without Push, commits are
// not announced (the serving processes' head check finds them).
func (s *Store) AnnounceEachCommit() {
	s.push.mu.Lock()
	s.push.each = true
	s.push.mu.Unlock()
}

// announce queues c for the publisher, sends it at once
// (AnnounceEachCommit), or does nothing.
func (s *Store) announce(c commit) {
	p := s.push
	p.mu.Lock()
	if !p.running {
		each := p.each
		p.mu.Unlock()
		if !each {
			return
		}
		_ = s.send(context.Background(), c) // best effort: the head checks cover a lost notice
		return
	}
	if c.types == nil {
		p.allTypes = true
	}
	for _, t := range c.types {
		p.types[t] = true
	}
	if c.streams == nil {
		p.allStreams = true
	}
	for _, st := range c.streams {
		if len(p.streams) >= maxStreams {
			p.allStreams = true
			break
		}
		p.streams[st] = true
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// take returns what is queued to announce and empties the queue; false
// when nothing is.
func (p *push) take() (commit, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.allTypes && len(p.types) == 0 && !p.allStreams && len(p.streams) == 0 {
		return commit{}, false
	}
	c := commit{types: []string{}, streams: []string{}}
	if p.allTypes {
		c.types = nil
	} else {
		for t := range p.types {
			c.types = append(c.types, t)
		}
	}
	if p.allStreams {
		c.streams = nil
	} else {
		for st := range p.streams {
			c.streams = append(c.streams, st)
		}
	}
	clear(p.types)
	clear(p.streams)
	p.allTypes, p.allStreams = false, false
	return c, true
}

// Push announces this process's commits to the others and wakes this
// process's subscribers (Subscribe, SubscribeTypes, SubscribeStream) on
// theirs, until ctx ends. It holds one connection of its own for LISTEN.
// Without Push, a store's subscribers hear only their own process, and its
// commits are announced only with AnnounceEachCommit.
func (s *Store) Push(ctx context.Context, opts PushOptions) error {
	if opts.HeadEvery <= 0 {
		opts.HeadEvery = 5 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	p := s.push
	p.mu.Lock()
	if p.running {
		p.mu.Unlock()
		return errors.New("eventstore: Push is running already")
	}
	p.running = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.running = false
		p.mu.Unlock()
	}()

	// the head before the listener's first signal (watchHead)
	head := int64(-1)
	if pos, _, err := Head(ctx, s.pool); err == nil {
		head = pos.Global
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.publish(ctx, opts.Log)
	}()
	go func() {
		defer wg.Done()
		s.watchHead(ctx, opts, head)
	}()
	s.listen(ctx, opts)
	wg.Wait()
	return nil
}

// watchHead reads the visible head of the log every opts.HeadEvery and
// wakes every subscriber when it moved since the last look: the safety net
// for a notification lost (a listener reconnecting, a process that does
// not announce) and for events that were hidden when a reader looked. head
// is the head Push read before its listener's first signal woke every
// subscriber, so what a silent writer appended after that read is a move
// at the first look; -1 when that read failed (the first look then wakes
// every subscriber).
func (s *Store) watchHead(ctx context.Context, opts PushOptions, head int64) {
	t := time.NewTicker(opts.HeadEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pos, _, err := Head(ctx, s.pool)
		if err != nil {
			if ctx.Err() == nil {
				opts.Log.Warn("reading the head of the log", "error", err)
			}
			continue
		}
		if h := pos.Global; h != head {
			s.signal(commit{})
			head = h
		}
	}
}

// send notifies Channel of c, within 5 s.
func (s *Store) send(ctx context.Context, c commit) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, $2)", Channel, s.push.payload(c))
	return err
}

// publish sends the queued types, one notification per burst of commits,
// until ctx ends (then it sends what is left).
func (s *Store) publish(ctx context.Context, log *slog.Logger) {
	p := s.push
	send := func() {
		c, ok := p.take()
		if !ok {
			return
		}
		if err := s.send(context.WithoutCancel(ctx), c); err != nil && ctx.Err() == nil {
			log.Warn("announcing appended events failed; the others find them at their next head check", "error", err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			send()
			return
		case <-p.kick:
			send()
		}
	}
}

// listen keeps a LISTEN connection until ctx ends, waking subscribers on
// other processes' notifications.
func (s *Store) listen(ctx context.Context, opts PushOptions) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		listened, err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened { // a connection that worked: a fresh start
			backoff = 100 * time.Millisecond
		}
		opts.Log.Warn("event notifications lost; reconnecting", "error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// listenOnce listens on one connection until it fails or ctx ends;
// listened says it got as far as LISTEN.
func (s *Store) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	// Anything may have been appended while nobody listened.
	s.signal(commit{})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return true, nil
			}
			return true, err
		}
		if sender, c := parsePayload(n.Payload); sender != s.push.id { // our own commits signalled already
			s.signal(c)
		}
	}
}
