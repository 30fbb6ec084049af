package eventstore_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/eventstore/event"
)

// TestHundredThousandEventsRoundTrip appends 100,000 events (1,000 streams of
// 100, ten streams per transaction, four writers at once) and reads them back
// with ReadAll pages: all present, once, strictly increasing positions, each
// transaction's events contiguous and in the order appended, each stream's
// versions 0..99 in order, data and metadata intact.
func TestHundredThousandEventsRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 events")
	}
	const (
		streams       = 1000
		perStream     = 100
		streamsPerTx  = 10
		total         = streams * perStream
		pageSize      = 5000
		orgEveryNth   = 3
		streamPattern = "bulk-%04d"
		writers       = 4
	)
	s := newStore(t)
	ctx := testCtx(t, 120*time.Second)

	type payload struct {
		S    int       `json:"s"`
		V    int       `json:"v"`
		Text string    `json:"text"`
		Nums []float64 `json:"nums"`
		Obj  struct {
			Flag bool `json:"flag"`
			Nil  *int `json:"nil"`
		} `json:"obj"`
	}
	mk := func(st, v int) payload {
		p := payload{
			S:    st,
			V:    v,
			Text: "«ünïcödé» \"quoted\" \\ tab\t" + strconv.Itoa(st*perStream+v),
			Nums: []float64{float64(st), float64(v) / 4, -1e-3},
		}
		p.Obj.Flag = v%2 == 0
		return p
	}
	names := make([]string, streams)
	for st := range names {
		names[st] = fmt.Sprintf(streamPattern, st)
	}
	orgs := []string{org1, org2}
	typeNames := []string{"Bulk0", "Bulk1", "Bulk2"}

	// Four writers commit the batches concurrently.
	store := eventstore.New(widePool(t, writers))
	batches := make(chan int, streams/streamsPerTx)
	for first := 0; first < streams; first += streamsPerTx {
		batches <- first
	}
	close(batches)
	started := time.Now()
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range batches {
				err := store.Transact(ctx, func(tx pgx.Tx) error {
					for st := first; st < first+streamsPerTx; st++ {
						events := make([]event.New, perStream)
						for v := range events {
							events[v] = event.New{Data: data{typeNames[v%3], mk(st, v)}}
							if st%orgEveryNth == 0 {
								events[v].Metadata = event.Metadata{OrgID: orgs[st%2], Actor: "system", RequestID: "r-" + strconv.Itoa(st)}
							}
						}
						if _, err := store.AppendTx(ctx, tx, names[st], event.NewStream, events...); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs <- fmt.Errorf("transaction for streams %d..: %w", first, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	wrote := time.Since(started)

	settle(t)
	started = time.Now()
	all := readAllPages(t, ctx, s, testDB.Pool, event.Position{}, pageSize, eventstore.Filter{})
	read := time.Since(started)
	if len(all) != total {
		t.Fatalf("read %d events, want %d", len(all), total)
	}
	ids := make(map[uuid.UUID]struct{}, total)
	var (
		seenBatch   = map[int]bool{}
		firstStream int
		batchTx     uint64
	)
	for i, e := range all {
		if i > 0 && !all[i-1].Position.Less(e.Position) {
			t.Fatalf("event %d at %+v not after %+v", i, e.Position, all[i-1].Position)
		}
		// Each transaction's events are contiguous in the global order and
		// in the order appended: its ten streams, each at versions 0..99.
		if i%(streamsPerTx*perStream) == 0 {
			var err error
			if firstStream, err = strconv.Atoi(strings.TrimPrefix(e.StreamID, "bulk-")); err != nil || firstStream%streamsPerTx != 0 {
				t.Fatalf("event %d: transaction starts with stream %s", i, e.StreamID)
			}
			if seenBatch[firstStream] {
				t.Fatalf("event %d: streams %d.. read twice", i, firstStream)
			}
			seenBatch[firstStream] = true
			batchTx = e.Position.TransactionID
		} else if e.Position.TransactionID != batchTx {
			t.Fatalf("event %d: transaction %d inside the run of transaction %d", i, e.Position.TransactionID, batchTx)
		}
		st, v := firstStream+(i%(streamsPerTx*perStream))/perStream, i%perStream
		if e.StreamID != names[st] || e.Version != int64(v) {
			t.Fatalf("event %d is %s v%d, want %s v%d", i, e.StreamID, e.Version, names[st], v)
		}
		if want := typeNames[v%3]; e.Type != want {
			t.Fatalf("event %d type %q, want %q", i, e.Type, want)
		}
		var p payload
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatalf("event %d data %s: %v", i, e.Data, err)
		}
		wantP := mk(st, v)
		if p.S != wantP.S || p.V != wantP.V || p.Text != wantP.Text || len(p.Nums) != 3 ||
			p.Nums[0] != wantP.Nums[0] || p.Nums[1] != wantP.Nums[1] || p.Nums[2] != wantP.Nums[2] ||
			p.Obj != wantP.Obj {
			t.Fatalf("event %d data %+v, want %+v", i, p, wantP)
		}
		if st%orgEveryNth == 0 {
			if e.Metadata.OrgID != orgs[st%2] || e.Metadata.Actor != "system" || e.Metadata.CorrelationID != "r-"+strconv.Itoa(st) {
				t.Fatalf("event %d metadata %+v", i, e.Metadata)
			}
		} else if e.Metadata != (event.Metadata{}) {
			t.Fatalf("event %d metadata %+v, want none", i, e.Metadata)
		}
		if _, dup := ids[e.ID]; dup {
			t.Fatalf("event id %s repeated", e.ID)
		}
		ids[e.ID] = struct{}{}
	}

	// The org index serves the same events.
	org1Events := readAllPages(t, ctx, s, testDB.Pool, event.Position{}, pageSize, eventstore.Filter{OrgID: org1})
	want := 0
	for st := 0; st < streams; st++ {
		if st%orgEveryNth == 0 && orgs[st%2] == org1 {
			want += perStream
		}
	}
	if len(org1Events) != want {
		t.Errorf("org1 filter: %d events, want %d", len(org1Events), want)
	}
	assertStrictOrder(t, org1Events)
	loaded, err := s.Load(ctx, names[517])
	if err != nil || len(loaded) != perStream || loaded[99].ID != byStream(all, names[517])[99].ID {
		t.Errorf("Load of one stream: %d events, %v", len(loaded), err)
	}
	t.Logf("appended %d events in %v, read them in %v", total, wrote.Round(time.Millisecond), read.Round(time.Millisecond))
}

func byStream(events []event.Event, stream string) []event.Event {
	var out []event.Event
	for _, e := range events {
		if e.StreamID == stream {
			out = append(out, e)
		}
	}
	return out
}
