package dedupq_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/domain/dedupq"
	"svc/domain/embedding"
)

var (
	benchVerbs   = strings.Fields("write draft summarize analyze translate review compare list extract classify plan audit fix generate explain")
	benchObjects = strings.Fields("report memo email post plan guide contract dashboard query script test invoice survey roadmap proposal")
	benchTopics  = strings.Fields("pricing churn onboarding hiring security latency billing marketing retention support compliance growth")
)

func benchTask(r *rand.Rand, i int) string {
	return fmt.Sprintf("%s the %s %s %s for client %d in region %d", benchVerbs[r.IntN(len(benchVerbs))],
		benchTopics[r.IntN(len(benchTopics))], benchTopics[r.IntN(len(benchTopics))], benchObjects[r.IntN(len(benchObjects))], i, r.IntN(40))
}

// BenchmarkIndexSearch: one search (embedding the query, sketch scan,
// rerank, guard) over 100,000 results of one organization, in process;
// reports p50 and p99 of a search (ms) and the index's heap bytes per
// result (with the query texts the benchmark keeps, about 60 bytes each).
//
//	go test -run '^$' -bench IndexSearch -benchtime 2000x ./domain/dedupq
func BenchmarkIndexSearch(b *testing.B) {
	const n = 100_000
	var l embedding.Local
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Now()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	texts := make([]string, n)
	items := make([]dedupq.Stored, n)
	for i := range n {
		texts[i] = benchTask(r, i)
		items[i] = stored(l, fmt.Sprint(i), texts[i], now.Add(time.Hour))
	}
	x := dedupq.NewIndex()
	for _, s := range items {
		x.Upsert(s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perResult := float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc)) / n
	lat := make([]time.Duration, 0, b.N)
	hits := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := texts[(i*7919)%n]
		if i%2 == 1 {
			q = benchTask(r, n+i) // new content: no match
		} else {
			q = "Please " + q + "."
		}
		t0 := time.Now()
		_, _, ok := x.Search(dedupq.Query{Vector: dedupq.Unit(l.Vector(dedupq.EmbedText(q, l.Name()))), Signature: dedupq.Sign(q),
			Threshold: dedupq.DefaultThreshold, Now: now})
		lat = append(lat, time.Since(t0))
		if ok {
			hits++
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(hits)/float64(len(lat)), "hit-ratio")
	b.ReportMetric(perResult, "index-bytes/result")
}
