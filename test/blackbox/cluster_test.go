package blackbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/projections"
	"svc/test/pgtest"
)

// ---------------------------------------------------------------------------
// A cluster: several "svc serve" processes on one database, with requests
// spread round-robin over the live ones, as a load balancer without sticky
// sessions would.

type cluster struct {
	dbURL string
	nodes []*server

	// gate is held shared by each execute until it is answered and alone
	// by a kill, so that no execute is in flight on the instance killed
	// (its outcome would be unknown to the client).
	gate sync.RWMutex

	mu   sync.Mutex
	dead map[int]bool
	next int
}

// startCluster starts n instances at once on one fresh database with the
// same environment (SVC_SECRET_KEY must be in env: every instance opens
// what another sealed). With create the database is created first, empty
// (the instances race on migrations, projection set-up and the webhook
// group's first start); without, the instances create it themselves. The
// live ones are stopped with SIGTERM (and must exit 0) and the database
// dropped when the test ends.
func startCluster(t *testing.T, n int, create bool, env map[string]string) *cluster {
	t.Helper()
	if env["SVC_SECRET_KEY"] == "" {
		t.Fatal("startCluster: the instances need one SVC_SECRET_KEY")
	}
	dbURL := pgtest.URL(fmt.Sprintf("blackbox_%d", dbSeq.Add(1)))
	dropDB(dbURL)
	t.Cleanup(func() { dropDB(dbURL) })
	if create {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := eventstore.EnsureDatabase(ctx, dbURL); err != nil {
			t.Fatalf("create %s: %v", dbURL, err)
		}
	}
	c := &cluster{dbURL: dbURL, nodes: make([]*server, n), dead: map[int]bool{}}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.nodes[i], errs[i] = launchOn(dbURL, env)
		}()
	}
	wg.Wait()
	t.Cleanup(func() { c.shutdown(t) }) // before the database is dropped
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start instance %d of %d at once on one database: %v", i, n, err)
		}
	}
	return c
}

// pick returns the next live instance other than not (-1: any), round-robin.
func (c *cluster) pick(not int) (int, *server) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range 2 * len(c.nodes) {
		i := c.next % len(c.nodes)
		c.next++
		if !c.dead[i] && i != not {
			return i, c.nodes[i]
		}
	}
	panic("cluster: no live instance to pick")
}

func (c *cluster) isDead(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead[i]
}

// live lists the instances not killed.
func (c *cluster) live() []*server {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*server
	for i, s := range c.nodes {
		if !c.dead[i] {
			out = append(out, s)
		}
	}
	return out
}

// try sends r to the next live instance; a request cut by a kill is sent
// again to another one (what a load balancer does for an idempotent read).
func (c *cluster) try(r req) (*response, int, error) {
	for {
		i, s := c.pick(-1)
		res, err := s.try(r)
		if err != nil && c.isDead(i) {
			continue
		}
		return res, i, err
	}
}

// kill ends instance i with SIGKILL (no lease handed back, streams cut)
// while no execute is being answered; requests go to the others from then.
func (c *cluster) kill(t *testing.T, i int) {
	t.Helper()
	c.gate.Lock()
	defer c.gate.Unlock()
	c.mu.Lock()
	c.dead[i] = true
	c.mu.Unlock()
	s := c.nodes[i]
	s.stopOnce.Do(func() {
		if err := s.cmd.Process.Kill(); err != nil {
			t.Errorf("SIGKILL instance %d: %v", i, err)
		}
		<-s.exited
		s.stopErr = nil
	})
}

// halt stops s with SIGTERM and requires exit status 0 within 30 s, without
// dropping the database the other instances use.
func (s *server) halt() error {
	s.stopOnce.Do(s.terminate)
	return s.stopErr
}

// shutdown halts the live instances (each must exit 0), keeps every log in
// $BLACKBOX_LOG_DIR (<database>_i<N>.log) when set, and shows their tails
// when the test failed.
func (c *cluster) shutdown(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, len(c.nodes))
	for i, s := range c.nodes {
		if s == nil || c.isDead(i) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.halt()
		}()
	}
	wg.Wait()
	name := c.dbURL[strings.LastIndex(c.dbURL, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	for i, s := range c.nodes {
		if s == nil {
			continue
		}
		if dir := os.Getenv("BLACKBOX_LOG_DIR"); dir != "" {
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s_i%d.log", name, i)), []byte(s.stderr.String()), 0o644)
		}
		if errs[i] != nil {
			t.Errorf("stop instance %d: %v\n%s", i, errs[i], s.stderr.tail(6000))
		} else if t.Failed() {
			t.Logf("instance %d (%s) log (tail):\n%s", i, s.addr, s.stderr.tail(4000))
		}
	}
}

// ---------------------------------------------------------------------------
// Event streams without a *testing.T (read from several goroutines)

// openStream sends r and returns the event stream, or the answer when it is
// not one.
func openStream(s *server, r req) (*sseConn, *response, error) {
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, nil, err
		}
		body = bytes.NewReader(raw)
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := http.NewRequestWithContext(ctx, method, s.base+r.Path, body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		hr.Header.Set("x-api-key", r.Key)
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	resp, err := sseClient.Do(hr)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return nil, &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw, RequestID: resp.Header.Get("X-Request-Id")}, nil
	}
	conn := &sseConn{Header: resp.Header, RequestID: resp.Header.Get("X-Request-Id"), msgs: make(chan sseMsg, 1024), cancel: cancel, opened: time.Now()}
	go conn.read(resp.Body)
	return conn, nil, nil
}

func terminalSSE(name string) bool { return name == "workflow_completed" || name == "workflow_error" }

// redisAnswers reports whether a Redis server answers PING at addr.
func redisAnswers(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// ---------------------------------------------------------------------------
// Read models

// dumpReadModels reads every row of every projection table through its view
// (what readers query), one sorted text line per row.
func dumpReadModels(ctx context.Context, db *pgx.Conn) (map[string][]string, error) {
	out := map[string][]string{}
	for _, p := range projections.All() {
		for _, tb := range p.Tables() {
			rows, err := db.Query(ctx, "SELECT t::text FROM "+pgx.Identifier{tb.Name}.Sanitize()+" t ORDER BY 1")
			if err != nil {
				return nil, fmt.Errorf("dump %s: %w", tb.Name, err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return nil, fmt.Errorf("dump %s: %w", tb.Name, err)
			}
			out[p.Name()+"/"+tb.Name] = lines
		}
	}
	return out, nil
}

// diffReadModels describes where two dumps differ (at most a few rows per
// table); "" when they are equal.
func diffReadModels(live, rebuilt map[string][]string) string {
	var b strings.Builder
	for name, l := range live {
		r := rebuilt[name]
		if strings.Join(l, "\n") == strings.Join(r, "\n") {
			continue
		}
		fmt.Fprintf(&b, "%s: %d rows live, %d rebuilt\n", name, len(l), len(r))
		in := map[string]int{}
		for _, row := range r {
			in[row]++
		}
		shown := 0
		for _, row := range l {
			if in[row] > 0 {
				in[row]--
				continue
			}
			if shown++; shown <= 3 {
				fmt.Fprintf(&b, "  only live:    %.400s\n", row)
			}
		}
		for row, n := range in {
			if n > 0 && shown < 6 {
				shown++
				fmt.Fprintf(&b, "  only rebuilt: %.400s\n", row)
			}
		}
	}
	for name := range rebuilt {
		if _, ok := live[name]; !ok {
			fmt.Fprintf(&b, "%s: only in the rebuilt dump\n", name)
		}
	}
	return b.String()
}
