// Command webhookload measures POST /api/billing/webhook: signed Stripe
// credit purchases (checkout.session.completed) for organizations it
// creates, posted at a concurrency, each answered only once its grant is
// in the read models; beside it, in the same run, the same requests with a
// wrong signature (refused before any database work: the HTTP and
// signature cost alone) as the baseline. Every purchase is then delivered
// again (Stripe's retries), and the balances must show each grant once.
//
//	webhookload -base http://127.0.0.1:18090 -db postgres://... -secret whsec_bench
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
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stripe/stripe-go/v86/webhook"

	"svc/commands"
	"svc/eventstore"
)

// result is what the tool prints, as JSON.
type result struct {
	Events          int     `json:"events"`
	Concurrency     int     `json:"concurrency"`
	Orgs            int     `json:"orgs"`
	EventsPerSecond float64 `json:"events_per_second"`
	P50Ms           float64 `json:"p50_ms"`
	P99Ms           float64 `json:"p99_ms"`
	RefusedPerSec   float64 `json:"refused_per_second"` // the baseline: bad signatures
	RefusedP50Ms    float64 `json:"refused_p50_ms"`
	RedeliveredOK   int     `json:"redelivered_ok"`
	GrantedOnce     bool    `json:"granted_once"`
	Errors          int     `json:"errors"`
}

func main() {
	base := flag.String("base", "http://127.0.0.1:18090", "svc serve's base URL")
	dbURL := flag.String("db", "", "its DATABASE_URL")
	secret := flag.String("secret", "whsec_bench", "its STRIPE_WEBHOOK_SECRET")
	events := flag.Int("events", 2000, "purchases to post")
	orgs := flag.Int("orgs", 50, "organizations they are spread over")
	conc := flag.Int("c", 16, "concurrent requests")
	flag.Parse()
	if *dbURL == "" {
		fmt.Fprintln(os.Stderr, "webhookload: -db is required")
		os.Exit(2)
	}
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, *dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close()
	store := eventstore.New(pool)
	store.AnnounceEachCommit()
	signup := commands.NewCreateOrganizationHandler(commands.NewRepositories(store))
	ids := make([]string, *orgs)
	for i := range ids {
		o, err := signup.Handle(ctx, commands.CreateOrganization{Name: "webhook bench " + strconv.Itoa(i)})
		if err != nil {
			fail(err)
		}
		ids[i] = o.OrgID
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	payloads := make([][]byte, *events)
	for i := range payloads {
		payloads[i] = purchase(fmt.Sprintf("evt_%s_%d", run, i), fmt.Sprintf("cs_%s_%d", run, i), ids[i%len(ids)], 1000)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}
	res := result{Events: *events, Concurrency: *conc, Orgs: *orgs}

	// the baseline: the same requests, refused for their signature
	refused, rlat, _ := post(client, *base, "whsec_wrong", payloads, *conc, http.StatusBadRequest)
	res.RefusedPerSec, res.RefusedP50Ms = refused, pct(rlat, 50)
	// the purchases
	rate, lat, errs := post(client, *base, *secret, payloads, *conc, http.StatusOK)
	res.EventsPerSecond, res.P50Ms, res.P99Ms, res.Errors = rate, pct(lat, 50), pct(lat, 99), errs
	// Stripe's retries: every event again
	_, _, errs = post(client, *base, *secret, payloads, *conc, http.StatusOK)
	res.RedeliveredOK = *events - errs
	// each grant once: signup's 2,500 plus 1,000 a purchase
	var total int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(balance), 0) FROM balances WHERE org_id = ANY($1::uuid[])`, ids).Scan(&total); err != nil {
		fail(err)
	}
	res.GrantedOnce = total == int64(*orgs)*2500+int64(*events)*1000
	_ = json.NewEncoder(os.Stdout).Encode(res)
}

// purchase is a paid credit checkout of org.
func purchase(eventID, session, org string, credits int64) []byte {
	b, _ := json.Marshal(map[string]any{"id": eventID, "object": "event", "api_version": "2026-06-24.dahlia",
		"created": time.Now().Unix(), "livemode": false, "pending_webhooks": 1, "type": "checkout.session.completed",
		"data": map[string]any{"object": map[string]any{"id": session, "object": "checkout.session", "mode": "payment",
			"payment_status": "paid", "status": "complete", "customer": "cus_" + session, "amount_total": credits / 10,
			"currency": "usd", "metadata": map[string]any{"org_id": org, "credits": strconv.FormatInt(credits, 10)}}}})
	return b
}

// post sends every payload signed with secret from conc workers and
// returns the rate, each request's latency, and how many did not answer
// want.
func post(client *http.Client, base, secret string, payloads [][]byte, conc int, want int) (float64, []time.Duration, int) {
	var next atomic.Int64
	var errs atomic.Int64
	lat := make([]time.Duration, len(payloads))
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(payloads) {
					return
				}
				sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payloads[i], Secret: secret})
				req, _ := http.NewRequest(http.MethodPost, base+"/api/billing/webhook", bytes.NewReader(payloads[i]))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Stripe-Signature", sig.Header)
				t0 := time.Now()
				resp, err := client.Do(req)
				lat[i] = time.Since(t0)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return float64(len(payloads)) / time.Since(start).Seconds(), lat, int(errs.Load())
}

func pct(d []time.Duration, p int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return float64(s[min(len(s)-1, len(s)*p/100)].Microseconds()) / 1000
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "webhookload:", err)
	os.Exit(1)
}
