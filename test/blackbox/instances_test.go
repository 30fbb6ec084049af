package blackbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	deliveries "svc/domain/delivery"
	"svc/projections"
	"svc/test/fakellm"
)

// instRun is one workflow of TestThreeInstances and what its client saw.
type instRun struct {
	n      int
	org    int
	key    string
	mode   string // polling, sse, webhook
	id     string
	node   int  // the instance that accepted the execute
	free   bool // the org's free first workflow
	cutAt  int  // sse: the client closes its first connection after this many events (0: never)
	events []sseMsg
	nodes  []int // sse: the instance of each connection
	err    error
}

// TestThreeInstances: three "svc serve" on one database behave as one
// service. 50 workflows of 5 organizations are executed through requests
// spread round-robin over the instances (polling, SSE and webhook delivery
// mixed), and one instance is killed (SIGKILL) half way while it runs
// workflows and serves streams. Every workflow completes, every step is
// charged once, "svc replay billing" agrees for every org, every read model
// rebuilt from the log equals the live one, an SSE client whose connection
// is cut (by itself or by the kill) resumes on another instance with
// Last-Event-ID and sees every event once and in order, and every webhook
// workflow's events reach the receiver. With Redis (REDIS_URL) the
// instances share their rate-limit counts.
func TestThreeInstances(t *testing.T) {
	t.Parallel()
	began := time.Now()
	const (
		orgs      = 5
		workflows = 50
		victim    = 1 // the instance killed
		grant     = 50_000
	)
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Delay: 150 * time.Millisecond})
	rc, ca := newReceiver(t, false)
	env := map[string]string{
		"SVC_LLM_BASE_URL":          llm.URL(),
		"SVC_SECRET_KEY":            randomHex(32), // one key: an instance opens webhook secrets another sealed
		"SVC_WORKER_LEASE":          "2s",
		"SVC_ALLOW_PRIVATE_URLS":    "true",
		"SVC_OUTBOUND_CA_FILE":      ca,
		"SVC_WEBHOOK_BACKOFF_SCALE": "0.01",
	}
	shared := redisAnswers("127.0.0.1:6379")
	if shared {
		env["REDIS_URL"] = "redis://127.0.0.1:6379/0"
	} else {
		t.Log("environment: no Redis answers on 127.0.0.1:6379: each instance counts rate limits alone; the shared-limit check is skipped")
	}
	c := startCluster(t, 3, true, env)
	t.Logf("3 instances answering %v after the start: %s, %s, %s", time.Since(began).Round(time.Millisecond), c.nodes[0].base, c.nodes[1].base, c.nodes[2].base)

	db, err := pgx.Connect(context.Background(), c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })

	// A signup answered by one instance works at once on another; with
	// Redis, one org's requests are counted once across the instances.
	probe, made := signupOn(t, c.nodes[0])
	if res := c.nodes[1].do(t, req{Path: "/api/billing/balance", Key: probe.Key}); res.Status != http.StatusOK || checkBalanceBody(t, res) != 2500 {
		if !c.nodes[0].lagged(made) {
			t.Errorf("a key made on instance 0, used at once on instance 1: %d %s, want 200 and balance 2500", res.Status, res.Raw)
		} else {
			t.Logf("environment: instance 0 reported read models lagging behind the signup %s: not checked on instance 1", made)
		}
	}
	var remaining []string
	for i := range 6 {
		res := c.nodes[i%3].do(t, req{Path: "/api/rigor/workflows", Key: probe.Key}) // a rate-limited route
		wantStatus(t, res, http.StatusOK)
		remaining = append(remaining, res.Header.Get("X-RateLimit-Remaining"))
	}
	if shared {
		for i := 1; i < len(remaining); i++ {
			var a, b int
			fmt.Sscan(remaining[i-1], &a)
			fmt.Sscan(remaining[i], &b)
			if b != a-1 {
				t.Errorf("with REDIS_URL, X-RateLimit-Remaining of one org on instances 0,1,2,0,1,2 is %v: want one count shared by the instances", remaining)
				break
			}
		}
	}

	// The organizations: enterprise (no concurrency limit), topped up.
	accounts := make([]account, orgs)
	for o := range accounts {
		accounts[o], _ = signupOn(t, c.nodes[o%3])
	}
	for _, a := range accounts {
		if out := cli(t, c.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "enterprise"); out.Code != 0 {
			t.Fatalf("svc org set-tier: %s", out)
		}
		if out := cli(t, c.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", fmt.Sprint(grant), "--reason", "three instances"); out.Code != 0 {
			t.Fatalf("svc credits grant: %s", out)
		}
	}
	// no instance has looked the keys up yet: once the read models have
	// the tier, none caches the free tier
	waitApplied(t, db, 20*time.Second)
	for _, a := range accounts {
		for i, s := range c.nodes {
			res := s.do(t, req{Path: "/api/keys/verify", Key: a.Key})
			if paid, _ := res.Body["is_paid"].(bool); res.Status != http.StatusOK || !paid {
				t.Fatalf("instance %d: /api/keys/verify of an enterprise org: %d %s", i, res.Status, res.Raw)
			}
		}
	}
	setup := time.Since(began)

	// 50 executes, round-robin over the live instances, ~80 ms apart; the
	// victim is killed after the 25th, once it holds workflow leases.
	var (
		runs           []*instRun
		wg             sync.WaitGroup
		killedAt       time.Time
		heldByVic      []string // workflows whose lease the victim held when killed
		heldDeliveries []string
		sseCount       int
	)
	deadline := time.Now().Add(90 * time.Second)
	modes := []string{"polling", "sse", "webhook"}
	hook := rc.srv.URL + "/hooks/three-instances"
	for n := range workflows {
		if n >= workflows/2 && killedAt.IsZero() {
			// half way, as soon as the victim is running workflows
			if heldByVic = leasesOf(t, db, c.nodes[victim], "workflow"); len(heldByVic) > 0 || n == workflows*4/5 {
				c.kill(t, victim)
				killedAt = time.Now()
				heldDeliveries = leasesOf(t, db, c.nodes[victim], "delivery")
				t.Logf("killed instance %d (SIGKILL) after %d executes, %v into the run, holding the leases of workflows %v and of deliveries %v",
					victim, n, killedAt.Sub(began.Add(setup)).Round(time.Millisecond), heldByVic, heldDeliveries)
			}
		}
		r := &instRun{n: n, org: n % orgs, key: accounts[n%orgs].Key, mode: modes[n%3]}
		body := competitive(fmt.Sprintf("instance run %d %s", n, randomHex(4)), nil)
		switch r.mode {
		case "polling":
			body["delivery"] = polling
		case "webhook":
			body["delivery"] = map[string]any{"method": "webhook", "webhook_url": hook}
		}
		c.gate.RLock()
		i, s := c.pick(-1)
		r.node = i
		var conn *sseConn
		if r.mode == "sse" {
			var res *response
			conn, res, err = openStream(s, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: r.key, Body: body})
			if err != nil || conn == nil {
				c.gate.RUnlock()
				t.Fatalf("execute %d (sse) on instance %d: %v %+v", n, i, err, res)
			}
			r.id = wantSSEHeaders(t, conn)
			if sseCount%2 == 0 {
				r.cutAt = 2 + sseCount%5 // the client drops this connection itself
			}
			sseCount++
		} else {
			res := s.execute(t, r.key, body)
			r.id, _ = wantQueued(t, s, res, r.mode)
			r.free = boolean(t, res.Body, "free")
		}
		c.gate.RUnlock()
		runs = append(runs, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch r.mode {
			case "sse":
				r.err = c.followStream(r, conn, deadline)
			case "polling":
				r.err = c.followPolling(r, deadline)
			case "webhook":
				r.err = waitDelivered(rc, r.id, "workflow_completed", deadline)
			}
		}()
		time.Sleep(80 * time.Millisecond)
	}
	wg.Wait()
	ran := time.Since(began) - setup
	for _, r := range runs {
		if r.err != nil {
			t.Errorf("workflow %d %s (%s, accepted by instance %d): %v", r.n, r.id, r.mode, r.node, r.err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every workflow completed; its status reads the same on every live
	// instance.
	final := map[string]map[string]any{}
	for _, r := range runs {
		for _, s := range c.live() {
			wf := s.waitTerminal(t, r.key, r.id, 20*time.Second)
			if wf["status"] != "completed" {
				t.Errorf("workflow %d %s (%s, accepted by instance %d) ended %v: %v", r.n, r.id, r.mode, r.node, wf["status"], wf["error"])
			}
			if prev, ok := final[r.id]; ok && fmt.Sprint(prev["credits_used"], prev["status"]) != fmt.Sprint(wf["credits_used"], wf["status"]) {
				t.Errorf("workflow %s reads %v/%v on one instance, %v/%v on another", r.id, prev["status"], prev["credits_used"], wf["status"], wf["credits_used"])
			}
			final[r.id] = wf
		}
	}

	// SSE: what each client saw across its connections is the whole run,
	// every event once and in order: the same as a replay from the log.
	// And in every workflow's replay each event has an id of its own (a
	// client resumes after the first event of the id it sends).
	reconnected, onVictim := 0, 0
	for _, r := range runs {
		_, s := c.pick(-1)
		full := progress(s.openSSE(t, req{Path: "/api/rigor/status/" + r.id, Key: r.key, Header: map[string]string{"Accept": "text/event-stream"}}).rest(t, 20*time.Second))
		ids := map[string]int{}
		for _, e := range full {
			if ids[e.ID]++; ids[e.ID] == 2 {
				again := progress(s.openSSE(t, req{Path: "/api/rigor/status/" + r.id, Key: r.key, Header: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": e.ID}}).rest(t, 20*time.Second))
				t.Errorf("workflow %s (%s, accepted by instance %d, leased by the killed one: %v): two events of its stream have the SSE id %s, so a client resuming from the second is sent it again: the replay after it is %s; the whole stream %s; the log:\n%s",
					r.id, r.mode, r.node, slices.Contains(heldByVic, r.id), e.ID, names(again), names(full), streamLog(t, db, "workflow-"+r.id))
			}
		}
		if r.mode != "sse" {
			continue
		}
		if len(r.nodes) > 1 {
			reconnected++
		}
		if r.nodes[0] == victim {
			onVictim++
		}
		if len(r.events) > 0 && r.events[0].Event == "workflow_started" {
			r.free, _ = r.events[0].Data["free"].(bool)
		}
		if got, want := names(r.events), names(full); got != want {
			t.Errorf("sse workflow %s over connections to instances %v (cut after %d): the client saw\n%s\nthe log replays\n%s", r.id, r.nodes, r.cutAt, got, want)
		}
		seen := map[string]int{}
		for _, e := range r.events {
			seen[e.ID]++
		}
		for step := 1; step <= int(integer(t, final[r.id], "total_steps")); step++ {
			if n := seen[fmt.Sprintf("%s:step-%d.completed", r.id, step)]; n != 1 {
				t.Errorf("sse workflow %s: step_completed of step %d seen %d times: %s", r.id, step, n, names(r.events))
			}
		}
	}
	if reconnected == 0 {
		t.Error("no SSE client reconnected: the cut streams were not exercised")
	}

	// Charges: each step of a charged workflow once, one fee, the sum its
	// credits_used and estimate; the free ones nothing.
	charges := map[string][]map[string]any{}
	rows, err := db.Query(context.Background(), `SELECT data FROM events WHERE type = 'CreditsCharged' AND data->>'workflow_id' IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range must(pgx.CollectRows(rows, pgx.RowTo[map[string]any]))(t) {
		id, _ := d["workflow_id"].(string)
		charges[id] = append(charges[id], d)
	}
	spent := make([]int64, orgs)
	frees := make([]int, orgs)
	for _, r := range runs {
		wf := final[r.id]
		total, used, est := int(integer(t, wf, "total_steps")), integer(t, wf, "credits_used"), integer(t, wf, "estimated_credits")
		perStep, fees, sum := map[int]int{}, 0, int64(0)
		for _, d := range charges[r.id] {
			amount, _ := d["amount"].(float64)
			sum += int64(amount)
			if d["reason"] == "orchestration_fee" {
				fees++
				continue
			}
			step, _ := d["step"].(float64)
			perStep[int(step)]++
		}
		spent[r.org] += sum
		if r.free {
			frees[r.org]++
			if len(charges[r.id]) != 0 || used != 0 {
				t.Errorf("free workflow %s: %d charges, credits_used %d; want none", r.id, len(charges[r.id]), used)
			}
			continue
		}
		ok := fees == 1 && sum == used && used == est && len(perStep) == total-1
		for step := 1; step < total; step++ {
			ok = ok && perStep[step] == 1
		}
		if !ok {
			t.Errorf("workflow %s (%s, accepted by instance %d): charges per step %v, %d fees, %d credits charged; credits_used %d, estimate %d, %d steps: want steps 1-%d once, one fee, all equal",
				r.id, r.mode, r.node, perStep, fees, sum, used, est, total, total-1)
		}
	}
	for o, a := range accounts {
		if frees[o] != 1 {
			t.Errorf("org %d has %d free workflows, want 1", o, frees[o])
		}
		for _, s := range c.live() {
			s.waitSettled(t, a.Key, 2500+grant-spent[o])
		}
		if out := cli(t, c.dbURL, "replay", "billing", "--org", a.OrgID); out.Code != 0 || !strings.Contains(out.Stdout, "OK") {
			t.Errorf("svc replay billing --org %s: want exit 0 and OK: %s", a.OrgID, out)
		}
	}

	// Webhooks: each webhook workflow's step_completed and
	// workflow_completed reached the receiver (at least once), and its
	// deliveries read delivered.
	for _, r := range runs {
		if r.mode != "webhook" {
			continue
		}
		got := map[string]int{}
		for _, d := range rc.deliveries() {
			if d.Event["workflow_id"] == r.id {
				got[fmt.Sprintf("%v %v", d.Event["event"], d.Event["step"])]++
			}
		}
		total := int(integer(t, final[r.id], "total_steps"))
		// deliveries are independent: the steps' may follow the last one
		for wait := time.Now().Add(30 * time.Second); len(got) < total+1 && time.Now().Before(wait); time.Sleep(100 * time.Millisecond) {
			got = map[string]int{}
			for _, d := range rc.deliveries() {
				if d.Event["workflow_id"] == r.id {
					got[fmt.Sprintf("%v %v", d.Event["event"], d.Event["step"])]++
				}
			}
		}
		if got["workflow_completed <nil>"] == 0 || len(got) != total+1 {
			t.Errorf("webhook workflow %s: deliveries received %v, want step_completed of steps 1-%d and workflow_completed", r.id, got, total)
		}
		waitDeliveriesLogged(t, c, r, total+1)
	}

	// Takeover: the victim's workflows and deliveries were taken over by
	// the others (or had just ended when it was killed).
	takeover, taken := time.Duration(0), 0
	for _, id := range heldByVic {
		var resumed *time.Time
		var after int
		err := db.QueryRow(context.Background(), `SELECT min(recorded_at) FILTER (WHERE type = 'WorkflowStarted' AND (data->>'resumed')::boolean),
			count(*) FILTER (WHERE recorded_at > $2) FROM events WHERE stream_id = $1`, "workflow-"+id, killedAt).Scan(&resumed, &after)
		switch {
		case err != nil:
			t.Fatal(err)
		case resumed != nil:
			taken++
			takeover = max(takeover, resumed.Sub(killedAt))
		case after > 0:
			t.Errorf("workflow %s, leased by the killed instance, went on after the kill (%d events) without a resumed WorkflowStarted", id, after)
		default:
			t.Logf("workflow %s, leased by the killed instance, had ended before the kill (its lease not yet handed back)", id)
		}
	}
	if len(heldByVic) > 0 {
		t.Logf("%d of the %d workflows leased by the killed instance were taken over, at most %v after the kill (SVC_WORKER_LEASE=2s)", taken, len(heldByVic), takeover.Round(time.Millisecond))
	}
	for _, id := range heldDeliveries {
		var at *time.Time
		if err := db.QueryRow(context.Background(), `SELECT min(recorded_at) FROM events WHERE stream_id = $1 AND type = 'WebhookDeliveryAttempted' AND recorded_at > $2`,
			deliveries.Stream(id), killedAt).Scan(&at); err != nil {
			t.Fatal(err)
		}
		if at == nil {
			t.Logf("delivery %s, leased by the killed instance: no attempt recorded after the kill (it had been recorded before)", id)
			continue
		}
		t.Logf("delivery %s, leased by the killed instance, attempted again %v after the kill", id, at.Sub(killedAt).Round(time.Millisecond))
	}
	perDelivery := map[string]int{}
	for _, d := range rc.deliveries() {
		perDelivery[d.Header.Get("X-Svc-Delivery")]++
	}
	for id, n := range perDelivery {
		if n > 1 {
			t.Logf("delivery %s reached the receiver %d times (at least once: receivers dedupe by X-Svc-Delivery)", id, n)
		}
	}

	// Read models: caught up, then rebuilt from the log while the two
	// instances serve; every table equals the live one.
	waitApplied(t, db, 20*time.Second)
	// the operators' view agrees once the instances are idle: no lag
	// (events a projection does not read are passed over, too)
	idle := time.Now()
	if lag := idleLag(t, c.dbURL, 10*time.Second); lag != "" {
		t.Errorf("svc projections list on idle instances: lag %s after 10 s, want 0 (every event applied or passed over)", lag)
	} else {
		t.Logf("svc projections list shows no lag %v after the run", time.Since(idle).Round(time.Millisecond))
	}
	live, err := dumpReadModels(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if out := cli(t, c.dbURL, "projections", "rebuild", "--all"); out.Code != 0 {
		t.Fatalf("svc projections rebuild --all: %s", out)
	}
	rebuilt, err := dumpReadModels(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffReadModels(live, rebuilt); d != "" {
		t.Errorf("read models rebuilt from the log differ from the live ones built by three instances:\n%s", d)
	}
	rowsIn := 0
	for _, l := range live {
		rowsIn += len(l)
	}

	// An operator's command is a process of its own too: the instances
	// apply its grant, and every projection moves past it (the grant is
	// no event most of them read).
	if out := cli(t, c.dbURL, "credits", "grant", "--org", accounts[0].OrgID, "--credits", "100", "--reason", "after the run"); out.Code != 0 {
		t.Fatalf("svc credits grant: %s", out)
	}
	for _, s := range c.live() {
		s.waitSettled(t, accounts[0].Key, 2500+grant+100-spent[0])
	}
	granted := time.Now()
	if lag := idleLag(t, c.dbURL, 10*time.Second); lag != "" {
		t.Errorf("svc projections list after an operator's grant: lag %s after 10 s, want 0 (every event applied or passed over)", lag)
	} else {
		t.Logf("svc projections list shows no lag %v after an operator's grant", time.Since(granted).Round(time.Millisecond))
	}

	// The two live instances stop cleanly (exit 0).
	for i, s := range c.nodes {
		if !c.isDead(i) {
			if err := s.halt(); err != nil {
				t.Errorf("instance %d: %v", i, err)
			}
		}
	}
	t.Logf("%d workflows (%d sse: %d reconnected, %d begun on the killed instance) in %v after a %v setup; %d read-model rows rebuilt equal; %d webhook deliveries received; provider calls %d; whole test %v",
		len(runs), sseCount, reconnected, onVictim, ran.Round(time.Millisecond), setup.Round(time.Millisecond), rowsIn, len(rc.deliveries()), llm.Calls(""), time.Since(began).Round(time.Millisecond))
}

// TestInstancesStartTogether: several instances started at once on a
// database that does not exist yet (a first deployment of three replicas)
// all come up: one creates the database, the others use it.
func TestInstancesStartTogether(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, false, map[string]string{"SVC_SECRET_KEY": randomHex(32)})
	for i, s := range c.nodes {
		wantStatus(t, s.do(t, req{Path: "/api/health"}), http.StatusOK)
		if i > 0 {
			continue
		}
		a, _ := signupOn(t, s)
		for _, other := range c.nodes {
			if res := other.do(t, req{Path: "/api/billing/balance", Key: a.Key}); res.Status != http.StatusOK {
				t.Errorf("a key made on %s, used on %s: %d %s", s.addr, other.addr, res.Status, res.Raw)
			}
		}
	}
}

// signupOn creates an organization through s from a client address of its
// own (an IPv6 one at random: with Redis the per-IP signup count outlives
// the run) without looking its key up, so no instance caches its tier yet.
// It returns the account and the signup's request id.
func signupOn(t *testing.T, s *server) (account, string) {
	t.Helper()
	ip := fmt.Sprintf("2001:db8:%s:%s::1", randomHex(2), randomHex(2))
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: ip})
	wantStatus(t, res, http.StatusCreated)
	return account{OrgID: str(t, res.Body, "org_id"), Key: str(t, res.Body, "key"), WorkspaceID: str(t, res.Body, "workspace_id")}, res.RequestID
}

// waitApplied waits until every projection's live generation has applied
// every stored event of the types it reads (its checkpoint is past them).
func waitApplied(t *testing.T, db *pgx.Conn, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var pending []string
		for _, p := range projections.All() {
			var n int64
			err := db.QueryRow(context.Background(), `SELECT count(*) FROM events e, projection_checkpoints c
				WHERE c.name = $1 AND c.active AND (e.transaction_id, e.position) > (c.transaction_id, c.position) AND e.type = ANY($2)`,
				p.Name(), p.EventTypes()).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				pending = append(pending, fmt.Sprintf("%s %d", p.Name(), n))
			}
		}
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("projections have not applied their events after %v: %v", within, pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamLog lists the events of stream, one line each, for messages.
func streamLog(t *testing.T, db *pgx.Conn, stream string) string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT format('%s v%s %s %s %s', position, version, type, left(data::text, 160), recorded_at) FROM events WHERE stream_id = $1 ORDER BY version`, stream)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(must(pgx.CollectRows(rows, pgx.RowTo[string]))(t), "\n")
}

// idleLag waits until "svc projections list" shows every active projection
// without lag, and returns "" then, or the lags it still shows after within.
func idleLag(t *testing.T, dbURL string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		out := cli(t, dbURL, "projections", "list", "--json")
		if out.Code != 0 {
			t.Fatalf("svc projections list: %s", out)
		}
		lagging := []string{}
		for _, line := range nonEmptyLines(out.Stdout) {
			var p struct {
				Name  string `json:"name"`
				State string `json:"state"`
				Lag   int64  `json:"lag"`
			}
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("svc projections list --json: %q: %v", line, err)
			}
			if p.State == "active" && p.Lag != 0 {
				lagging = append(lagging, fmt.Sprintf("%s %d", p.Name, p.Lag))
			}
		}
		if len(lagging) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprint(lagging)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leasesOf lists the jobs of kind (workflow, delivery) whose live lease
// instance s holds (owner "host:pid:n").
func leasesOf(t *testing.T, db *pgx.Conn, s *server, kind string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT job_id FROM job_leases WHERE kind = $1 AND split_part(owner, ':', 2) = $2 AND expires_at > now() ORDER BY 1`,
		kind, fmt.Sprint(s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return must(pgx.CollectRows(rows, pgx.RowTo[string]))(t)
}

// followStream reads r's event stream until the run ends, reconnecting to
// another live instance with Last-Event-ID whenever the connection ends
// first (cut by the client at r.cutAt events, or by a kill).
func (c *cluster) followStream(r *instRun, conn *sseConn, deadline time.Time) error {
	node, cutAt := r.node, r.cutAt
	for {
		r.nodes = append(r.nodes, node)
		n := 0
		timeout := time.NewTimer(time.Until(deadline))
	read:
		for {
			select {
			case m, ok := <-conn.msgs:
				if !ok {
					break read
				}
				if m.Event == "processing" || m.Event == "stream_timeout" {
					continue
				}
				r.events = append(r.events, m)
				if n++; cutAt > 0 && n == cutAt && !terminalSSE(m.Event) {
					conn.cancel() // what was parsed already still arrives; the rest is lost to this connection
					cutAt = 0
				}
			case <-timeout.C:
				conn.cancel()
				return fmt.Errorf("no end of the run before the deadline; events so far over instances %v: %s", r.nodes, names(r.events))
			}
		}
		timeout.Stop()
		conn.cancel()
		if len(r.events) > 0 && terminalSSE(r.events[len(r.events)-1].Event) {
			return nil
		}
		for {
			if time.Now().After(deadline) {
				return fmt.Errorf("could not reconnect before the deadline; events so far: %s", names(r.events))
			}
			var s *server
			node, s = c.pick(node)
			h := map[string]string{"Accept": "text/event-stream"}
			if len(r.events) > 0 {
				h["Last-Event-ID"] = r.events[len(r.events)-1].ID
			}
			var res *response
			var err error
			conn, res, err = openStream(s, req{Path: "/api/rigor/status/" + r.id, Key: r.key, Header: h})
			switch {
			case err != nil && c.isDead(node):
				continue
			case err != nil:
				return fmt.Errorf("reconnect to instance %d: %v", node, err)
			case conn == nil && res.Status == http.StatusTooManyRequests:
				time.Sleep(time.Second)
				continue
			case conn == nil:
				return fmt.Errorf("reconnect to instance %d: %d %s", node, res.Status, res.Raw)
			case conn.Header.Get("X-Svc-Workflow-Id") != r.id:
				conn.cancel()
				return fmt.Errorf("reconnect to instance %d: X-Svc-Workflow-Id %q", node, conn.Header.Get("X-Svc-Workflow-Id"))
			}
			break
		}
	}
}

// followPolling polls r's status round-robin until it is terminal.
func (c *cluster) followPolling(r *instRun, deadline time.Time) error {
	for {
		res, node, err := c.try(req{Path: "/api/rigor/status/" + r.id, Key: r.key})
		switch {
		case err != nil:
			return fmt.Errorf("status on instance %d: %v", node, err)
		case res.Status == http.StatusTooManyRequests:
			time.Sleep(time.Second)
			continue
		case res.Status != http.StatusOK:
			return fmt.Errorf("status on instance %d: %d %s", node, res.Status, res.Raw)
		}
		wf, _ := res.Body["workflow"].(map[string]any)
		if st, _ := wf["status"].(string); terminalStatuses[st] {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not terminal before the deadline: %s", res.Raw)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// waitDelivered waits until the receiver holds an event of type typ for id.
func waitDelivered(rc *receiver, id, typ string, deadline time.Time) error {
	for {
		for _, d := range rc.deliveries() {
			if d.Event["workflow_id"] == id && d.Event["event"] == typ {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s delivered before the deadline", typ)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDeliveriesLogged waits until the delivery log of r (read round-robin)
// lists want deliveries, every one delivered.
func waitDeliveriesLogged(t *testing.T, c *cluster, r *instRun, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, _, err := c.try(req{Path: "/api/rigor/webhooks/deliveries?workflow_id=" + r.id, Key: r.key})
		if err != nil {
			t.Fatal(err)
		}
		list, _ := res.Body["deliveries"].([]any)
		states := []string{}
		for _, raw := range list {
			d, _ := raw.(map[string]any)
			states = append(states, fmt.Sprint(d["status"]))
		}
		if res.Status == http.StatusOK && len(list) == want && !slices.ContainsFunc(states, func(s string) bool { return s != "delivered" }) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("webhook workflow %s: delivery log %d %v, want %d delivered: %.2000s", r.id, res.Status, states, want, res.Raw)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// must returns a function giving v, or failing t with err.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
