// Command execload measures workflow execution against a running svc
// serve: it executes workflows (polling delivery) with a key of an
// Enterprise org, waits for every one to end, and reports failures, wall
// time and the orchestration overhead per step, read from the event log:
// a workflow's time from WorkflowStarted to its terminal event, less the
// time its LLM calls took, divided by its steps.
//
//	execload -base http://127.0.0.1:18090 -key svc_live_... -db postgres://... -n 100 -c 100
//
// Each of c clients executes a workflow and polls it to its end before it
// executes the next, so c is the number of workflows running at once. It
// prints one JSON object. Used by test/bench/run.sh.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:18090", "svc base URL")
	key := flag.String("key", "", "API key of an Enterprise org with enough credits")
	dbURL := flag.String("db", "", "DATABASE_URL of that svc (for the event log)")
	n := flag.Int("n", 100, "workflows to execute")
	c := flag.Int("c", 100, "executes in flight at once")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after")
	flag.Parse()
	if *key == "" || *dbURL == "" {
		fmt.Fprintln(os.Stderr, "execload: -key and -db are required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	out, err := run(ctx, *base, *key, *dbURL, *n, *c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "execload:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

type result struct {
	Workflows      int            `json:"workflows"`
	Concurrency    int            `json:"concurrency"`
	ExecuteErrors  int            `json:"execute_errors"`
	Statuses       map[string]int `json:"statuses"`
	WallSeconds    float64        `json:"wall_seconds"`
	Steps          int            `json:"steps"`
	OverheadP50MS  float64        `json:"overhead_per_step_p50_ms"`
	OverheadP95MS  float64        `json:"overhead_per_step_p95_ms"`
	OverheadMeanMS float64        `json:"overhead_per_step_mean_ms"`
	LLMPerStepMS   float64        `json:"llm_call_per_step_mean_ms"`
	// RunSeconds is the time from the first WorkflowStarted to the last
	// terminal event of the runs (the log's clock, so the clients' polling
	// interval is not in it); StepsPerSecond is Steps over it.
	RunSeconds     float64 `json:"run_seconds"`
	StepsPerSecond float64 `json:"steps_per_second"`
	// QueuedSeconds is the time from the first WorkflowQueued to the last
	// (how long the executes took to be accepted, on the log's clock).
	QueuedSeconds   float64 `json:"queued_seconds"`
	FirstErrorCause string  `json:"first_error,omitempty"`
}

func run(ctx context.Context, base, key, dbURL string, n, c int) (result, error) {
	out := result{Workflows: n, Concurrency: c, Statuses: map[string]int{}}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	ids := make([]string, n)
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, c)
	)
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			body, _ := json.Marshal(map[string]any{
				"task_description": fmt.Sprintf("compare our pricing with three competitors, load run %d at %d", i, start.UnixNano()),
				"task_type":        "competitive_analysis", "delivery": map[string]string{"method": "polling"}})
			id, err := execute(ctx, client, base, key, body)
			status := ""
			if err == nil {
				status, err = waitEnd(ctx, client, base, key, id, time.Duration(c)*20*time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out.ExecuteErrors++
				if out.FirstErrorCause == "" {
					out.FirstErrorCause = err.Error()
				}
				return
			}
			ids[i] = id
			out.Statuses[status]++
		}()
	}
	wg.Wait()
	out.WallSeconds = time.Since(start).Seconds()
	return out, overhead(ctx, dbURL, ids, &out)
}

func execute(ctx context.Context, client *http.Client, base, key string, body []byte) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/rigor/execute", bytes.NewReader(body))
	req.Header.Set("x-api-key", key)
	req.Header.Set("content-type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("execute: %d %s", resp.StatusCode, raw)
	}
	var r struct {
		WorkflowID string `json:"workflow_id"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.WorkflowID == "" {
		return "", fmt.Errorf("execute: %s", raw)
	}
	return r.WorkflowID, nil
}

// waitEnd polls a workflow every interval (spread over the clients so the
// org stays under its per-minute limit) until it ends.
func waitEnd(ctx context.Context, client *http.Client, base, key, id string, interval time.Duration) (string, error) {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/rigor/status/"+id, nil)
		req.Header.Set("x-api-key", key)
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		if resp.StatusCode == http.StatusTooManyRequests { // polling shares the per-minute limit
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		var r struct {
			Workflow struct {
				Status string `json:"status"`
			} `json:"workflow"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			return "", fmt.Errorf("status of %s: %w", id, err)
		}
		switch r.Workflow.Status {
		case "queued", "executing", "quality_review", "":
		default:
			return r.Workflow.Status, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s still %s: %w", id, r.Workflow.Status, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// overhead reads the runs from the event log.
func overhead(ctx context.Context, dbURL string, ids []string, out *result) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	var streams []string
	for _, id := range ids {
		if id != "" {
			streams = append(streams, "workflow-"+id)
		}
	}
	rows, err := pool.Query(ctx, `
		WITH ev AS (SELECT stream_id, type, recorded_at, data FROM events WHERE stream_id = ANY($1))
		SELECT s.stream_id,
			extract(epoch FROM (max(e.recorded_at) FILTER (WHERE e.type IN ('WorkflowCompleted', 'WorkflowFailed', 'WorkflowHalted'))
				- min(e.recorded_at) FILTER (WHERE e.type = 'WorkflowStarted'))) * 1000,
			coalesce((SELECT sum((c->>'latency_ms')::float8) FROM ev x, jsonb_array_elements(coalesce(x.data->'calls', '[]')) c
				WHERE x.stream_id = s.stream_id), 0),
			(SELECT count(*) FROM ev x WHERE x.stream_id = s.stream_id AND x.type = 'StepCompleted')
		FROM (SELECT DISTINCT stream_id FROM ev) s JOIN ev e ON e.stream_id = s.stream_id
		GROUP BY s.stream_id`, streams)
	if err != nil {
		return err
	}
	defer rows.Close()
	var per []float64
	var llm, total float64
	for rows.Next() {
		var (
			stream       string
			runMS, llmMS float64
			steps        int
		)
		if err := rows.Scan(&stream, &runMS, &llmMS, &steps); err != nil {
			return err
		}
		if steps == 0 {
			continue
		}
		out.Steps += steps
		per = append(per, (runMS-llmMS)/float64(steps))
		llm += llmMS
		total += runMS - llmMS
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var span, queued *float64
	if err := pool.QueryRow(ctx, `SELECT extract(epoch FROM
			max(recorded_at) FILTER (WHERE type IN ('WorkflowCompleted', 'WorkflowFailed', 'WorkflowHalted'))
			- min(recorded_at) FILTER (WHERE type = 'WorkflowStarted')),
			extract(epoch FROM max(recorded_at) FILTER (WHERE type = 'WorkflowQueued') - min(recorded_at) FILTER (WHERE type = 'WorkflowQueued'))
		FROM events WHERE stream_id = ANY($1)`, streams).Scan(&span, &queued); err != nil {
		return err
	}
	if queued != nil {
		out.QueuedSeconds = round(*queued)
	}
	if span != nil && *span > 0 {
		out.RunSeconds = round(*span)
		out.StepsPerSecond = round(float64(out.Steps) / *span)
	}
	if len(per) == 0 {
		return nil
	}
	sort.Float64s(per)
	out.OverheadP50MS = round(per[len(per)/2])
	out.OverheadP95MS = round(per[len(per)*95/100])
	out.OverheadMeanMS = round(total / float64(out.Steps))
	out.LLMPerStepMS = round(llm / float64(out.Steps))
	return nil
}

func round(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
