package dedupq_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"svc/domain/dedupq"
	"svc/domain/embedding"
	"svc/eventstore/event"
)

func fold(t *testing.T, e *dedupq.Entry, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := e.Apply(event.Recorded("s", e.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNormalizeAndHash(t *testing.T) {
	same := []string{"Summarize the Q3 report.", "  summarize   the q3 REPORT ", "Summarize the Q3 report!"}
	for _, s := range same[1:] {
		if dedupq.Hash(s) != dedupq.Hash(same[0]) {
			t.Errorf("%q and %q hash apart (%q, %q)", s, same[0], dedupq.Normalize(s), dedupq.Normalize(same[0]))
		}
	}
	if dedupq.Hash("Summarize the Q3 report") == dedupq.Hash("Summarize the Q4 report") {
		t.Error("different contents hash alike")
	}
	if !dedupq.ValidHash(dedupq.Hash("x")) || dedupq.ValidHash("xyz") {
		t.Error("ValidHash")
	}
	long := strings.Repeat("é", dedupq.MaxKeptContent)
	if k := dedupq.Keep(long); len(k) > dedupq.MaxKeptContent || !strings.HasPrefix(long, k) || len(k)%2 != 0 {
		t.Errorf("Keep cut inside a character: %d bytes", len(k))
	}
}

func TestEntryDecides(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	e := dedupq.New()
	c := dedupq.Check{CheckID: "c1", OrgID: "o", Hash: "h", TaskID: "t1", Content: "do it", Threshold: 0.92, Credits: 1, Now: now}
	// a miss claims the content
	got, claim := e.Decide(c)
	if got.Outcome != dedupq.OutcomeMiss || claim == nil || claim.Holder != "task:t1" || !claim.Until.Equal(now.Add(dedupq.ClaimWindow)) {
		t.Fatalf("first check %+v %+v", got, claim)
	}
	if got.Content != "do it" {
		t.Errorf("content kept with a task id: %q", got.Content)
	}
	fold(t, e, *claim)
	// the same task again: a miss again (its own claim)
	if got, claim := e.Decide(c); got.Outcome != dedupq.OutcomeMiss || claim == nil {
		t.Fatalf("same task %+v", got)
	}
	// another task within the window: locked
	other := c
	other.TaskID, other.Now = "t2", now.Add(time.Minute)
	got, claim = e.Decide(other)
	if got.Outcome != dedupq.OutcomeLocked || claim != nil || got.LockedBy != "t1" || !got.LockedUntil.Equal(now.Add(dedupq.ClaimWindow)) {
		t.Fatalf("other task %+v %+v", got, claim)
	}
	// after the window: a miss, claimed by the other
	other.Now = now.Add(dedupq.ClaimWindow)
	if got, claim := e.Decide(other); got.Outcome != dedupq.OutcomeMiss || claim.Holder != "task:t2" {
		t.Fatalf("after the window %+v", got)
	}
	// a completion ends the claim and answers exact hits until it expires
	done, err := e.Complete(dedupq.Completion{OrgID: "o", Hash: "h", TaskID: "t1", Result: json.RawMessage(`{"a":1}`), ActualCost: 0.5,
		TTLSeconds: 60, Now: now, Credits: 2})
	if err != nil || done.ResultType != "json" || !done.ExpiresAt.Equal(now.Add(time.Minute)) || done.Tags == nil {
		t.Fatalf("complete %+v %v", done, err)
	}
	fold(t, e, done)
	other.Now = now.Add(30 * time.Second)
	got, claim = e.Decide(other)
	if got.Outcome != dedupq.OutcomeHit || got.Tier != dedupq.TierDBExact || got.MatchType != dedupq.MatchExact ||
		got.CostSaved != 0.5 || got.MatchTaskID != "t1" || got.Similarity != 1 || claim != nil {
		t.Fatalf("exact hit %+v", got)
	}
	// a semantic match when the entry has no fresh result
	other.Now = now.Add(2 * time.Minute)
	other.Semantic = &dedupq.Match{Result: &dedupq.Result{Hash: "h2", TaskID: "t9", ActualCost: 1, ExpiresAt: now.Add(time.Hour)}, Similarity: 0.95}
	if got, _ := e.Decide(other); got.Tier != dedupq.TierVector || got.MatchHash != "h2" || got.Similarity != 0.95 {
		t.Fatalf("semantic hit %+v", got)
	}
	// without a task id the holder is the key and agent
	anon := dedupq.Check{OrgID: "o", Hash: "h3", KeyID: "k", AgentID: "a", Now: now}
	if _, claim := dedupq.New().Decide(anon); claim.Holder != "key:k/a" || claim.TaskID != "" {
		t.Fatalf("anonymous claim %+v", claim)
	}
}

func TestCompletionLimits(t *testing.T) {
	ok := dedupq.Completion{OrgID: "o", Hash: "h", TaskID: "t", Result: json.RawMessage(`"x"`), Now: time.Now()}
	for name, tc := range map[string]struct {
		mut  func(c *dedupq.Completion)
		want error
	}{
		"too large": {func(c *dedupq.Completion) {
			c.Result = json.RawMessage(`"` + strings.Repeat("x", dedupq.MaxResultBytes) + `"`)
		}, dedupq.ErrResultTooLarge},
		"type":       {func(c *dedupq.Completion) { c.ResultType = "xml" }, dedupq.ErrResultType},
		"ttl":        {func(c *dedupq.Completion) { c.TTLSeconds = dedupq.MaxTTL + 1 }, dedupq.ErrTTL},
		"tags":       {func(c *dedupq.Completion) { c.Tags = make([]string, dedupq.MaxTags+1) }, dedupq.ErrTags},
		"empty tag":  {func(c *dedupq.Completion) { c.Tags = []string{" "} }, dedupq.ErrTags},
		"task":       {func(c *dedupq.Completion) { c.TaskID = "" }, dedupq.ErrTaskID},
		"cost":       {func(c *dedupq.Completion) { c.ActualCost = -1 }, dedupq.ErrCost},
		"summary":    {func(c *dedupq.Completion) { c.Summary = strings.Repeat("s", dedupq.MaxSummary+1) }, dedupq.ErrSummary},
		"a good one": {func(c *dedupq.Completion) { c.ResultType = "text"; c.Tags = []string{" a "} }, nil},
	} {
		c := ok
		tc.mut(&c)
		done, err := dedupq.New().Complete(c)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
		if err == nil && (done.Tags[0] != "a" || done.TTLSeconds != dedupq.DefaultTTL) {
			t.Errorf("%s: %+v", name, done)
		}
	}
}

func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		a, b, want string
	}{
		{"Enable SSO for Acme", "Turn on SSO for Acme", ""},
		{"Enable SSO for Acme", "Disable SSO for Acme", dedupq.ConflictPolarity},
		{"List the top 10 results", "List the top ten results", ""},
		{"List the top 10 results", "List the top 20 results", dedupq.ConflictNumbers},
		{"Refund $1,000 to Bob", "Refund $1000 to Bob", ""},
		{"Deploy on Friday", "Do not deploy on Friday", dedupq.ConflictNegation},
		{"Don't deploy on Friday", "Do not deploy on Friday", ""},
		{"Summarize the report for Acme", "Summarize the report for Globex", dedupq.ConflictEntities},
		{"Translate the README into French", "French translation of the README", ""},
		{"Report the sales of March", "Report the sales of April", dedupq.ConflictEntities},
		{"you may go", "you may leave", ""},
		{"Move the site from WordPress to Ghost", "Move the site from Ghost to WordPress", dedupq.ConflictDirection},
		{"Fix the iOS build", "Fix the Android build", dedupq.ConflictEntities},
	} {
		sa, sb := dedupq.Sign(tc.a), dedupq.DecodeSignature(dedupq.Sign(tc.b).Encode())
		if got := dedupq.Conflict(sa, sb); got != tc.want {
			t.Errorf("%q ~ %q: %q, want %q (%+v / %+v)", tc.a, tc.b, got, tc.want, sa, sb)
		}
	}
}

func TestQuantizeAndSketch(t *testing.T) {
	var l embedding.Local
	a := dedupq.Unit(l.Vector("analyse the churn data of last quarter"))
	b := dedupq.Unit(l.Vector("analyse the churn data of the last quarter"))
	q, scale := dedupq.Quantize(b)
	exact := embedding.Cosine(a, b)
	if got := dedupq.Dot(a, q, scale); got < exact-0.01 || got > exact+0.01 {
		t.Fatalf("quantised cosine %f, exact %f", got, exact)
	}
	sa, sb := dedupq.SketchOf(a), dedupq.SketchOf(b)
	far := dedupq.SketchOf(dedupq.Unit(l.Vector("book a flight to Lisbon on Monday")))
	if dedupq.Hamming(&sa, &sb) >= dedupq.Hamming(&sa, &far) {
		t.Fatalf("near %d, far %d", dedupq.Hamming(&sa, &sb), dedupq.Hamming(&sa, &far))
	}
	if back, ok := dedupq.SketchFromBytes(sa.Bytes()); !ok || back != sa {
		t.Fatal("sketch bytes round trip")
	}
	if _, ok := dedupq.SketchFromBytes([]byte{1}); ok {
		t.Fatal("a short sketch was read")
	}
	if z, s := dedupq.Quantize(make([]float32, 4)); s != 0 || len(z) != 4 {
		t.Fatal("zero vector")
	}
}

func stored(l embedding.Local, hash, text string, expires time.Time) dedupq.Stored {
	q, s := dedupq.Quantize(dedupq.Unit(l.Vector(dedupq.EmbedText(text, l.Name()))))
	return dedupq.Stored{Hash: hash, TaskID: "task-" + hash, ExpiresAt: expires, Vector: q, Scale: s, Guard: dedupq.Sign(text).Encode()}
}

func TestIndexSearch(t *testing.T) {
	var l embedding.Local
	now := time.Now()
	x := dedupq.NewIndex()
	for i := range 2000 {
		x.Upsert(stored(l, fmt.Sprintf("n%d", i), fmt.Sprintf("Write report number %d about topic %d for team %d", i, i*7, i%13), now.Add(time.Hour)))
	}
	x.Upsert(stored(l, "a", "Summarise the Q3 sales report for Acme", now.Add(time.Hour)))
	x.Upsert(stored(l, "b", "Enable SSO for the Globex workspace", now.Add(time.Hour)))
	x.Upsert(stored(l, "old", "Translate the README into French", now.Add(-time.Second)))
	search := func(text string, th float64, exclude string) (dedupq.Hit, string, bool) {
		return x.Search(dedupq.Query{Vector: dedupq.Unit(l.Vector(dedupq.EmbedText(text, l.Name()))), Signature: dedupq.Sign(text),
			Threshold: th, Now: now, Exclude: exclude})
	}
	if h, _, ok := search("Please summarize the Q3 sales report for Acme.", 0.92, ""); !ok || h.Hash != "a" || h.Similarity < 0.92 {
		t.Fatalf("paraphrase: %+v %v", h, ok)
	}
	if _, _, ok := search("Summarise the Q3 sales report for Acme", 0.92, "a"); ok {
		t.Fatal("the excluded hash was returned")
	}
	if h, refused, ok := search("Disable SSO for the Globex workspace", 0.5, ""); ok || refused != dedupq.ConflictPolarity {
		t.Fatalf("look-alike: %+v %q %v", h, refused, ok)
	}
	if _, _, ok := search("Translate the README into French", 0.9, ""); ok {
		t.Fatal("an expired result was returned")
	}
	if !x.Fresh("a", now) || x.Fresh("old", now) || x.Fresh("nope", now) {
		t.Fatal("Fresh")
	}
	// a new result of the same hash replaces the old one
	x.Upsert(stored(l, "old", "Translate the README into French", now.Add(time.Hour)))
	if h, _, ok := search("Translate the README into French", 0.9, ""); !ok || h.Hash != "old" || x.Len() != 2003 {
		t.Fatalf("replaced: %+v %v %d", h, ok, x.Len())
	}
	// compaction drops what has expired, and searches go on
	x.Upsert(stored(l, "gone", "Plan the offsite", now.Add(-time.Minute)))
	if dropped := x.Compact(now); dropped != 1 || x.Len() != 2003 || x.Fresh("gone", now) {
		t.Fatalf("compact dropped %d, %d left", dropped, x.Len())
	}
	if h, _, ok := search("Please summarize the Q3 sales report for Acme.", 0.92, ""); !ok || h.Hash != "a" {
		t.Fatalf("after compaction: %+v %v", h, ok)
	}
	x.Upsert(stored(l, "a", "Summarise the Q3 sales report for Acme", now.Add(time.Hour)))
	if x.Len() != 2003 {
		t.Fatalf("an upsert after compaction added a slot: %d", x.Len())
	}
}

// TestIndexManyCandidates: more candidates within the Hamming bound than
// are reranked (identical results): the search still answers, from the
// closest.
func TestIndexManyCandidates(t *testing.T) {
	var l embedding.Local
	now := time.Now()
	x := dedupq.NewIndex()
	for i := range 3 * dedupq.MaxCandidates {
		st := stored(l, fmt.Sprintf("same%d", i), "Audit the IAM roles in the production account", now.Add(time.Hour))
		if i%2 == 0 { // half with their stored sketch, as loaded from the read model
			sk := dedupq.SketchOf(dedupq.Dequantize(st.Vector, st.Scale))
			st.Sketch = sk.Bytes()
		}
		x.Upsert(st)
	}
	x.Upsert(stored(l, "exact", "Audit IAM roles in the production account!", now.Add(time.Hour)))
	q := "Please audit the IAM roles in the production account."
	h, _, ok := x.Search(dedupq.Query{Vector: dedupq.Unit(l.Vector(dedupq.EmbedText(q, l.Name()))), Signature: dedupq.Sign(q),
		Threshold: 0.9, Now: now})
	if !ok || h.Similarity < 0.99 {
		t.Fatalf("%+v %v", h, ok)
	}
}
