package blackbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/test/pgtest"
)

// Operator commands run as a separate process against the server's database;
// the server sees their events through its projections.
func TestOperatorCLI(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, map[string]any{"email": uniqueEmail("cli")})
	want := int64(2500)

	// credits grant
	out := cli(t, s.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", "1000", "--reason", "test")
	if out.Code != 0 {
		t.Fatalf("svc credits grant: %s", out)
	}
	want += 1000
	s.waitBalance(t, a.Key, want, 30*time.Second)

	// replay billing
	out = cli(t, s.dbURL, "replay", "billing", "--org", a.OrgID)
	if out.Code != 0 || !strings.Contains(out.Stdout, "OK") {
		t.Fatalf("svc replay billing: want exit 0 and OK: %s", out)
	}

	// projections list
	out = cli(t, s.dbURL, "projections", "list")
	if out.Code != 0 {
		t.Fatalf("svc projections list: %s", out)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(out.Stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			listed[f[0]] = true
		}
	}
	for _, name := range []string{"billing", "keys", "organizations", "workspaces"} {
		if !listed[name] {
			t.Errorf("svc projections list does not list %s:\n%s", name, out.Stdout)
		}
	}

	// events tail
	out = cli(t, s.dbURL, "events", "tail", "--org", a.OrgID)
	if out.Code != 0 {
		t.Fatalf("svc events tail: %s", out)
	}
	types := map[string]bool{}
	var last float64
	for i, line := range strings.Split(strings.TrimSpace(out.Stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("svc events tail: line %d is not JSON: %q", i+1, line)
		}
		typ, _ := ev["type"].(string)
		types[typ] = true
		if pos, ok := ev["position"].(float64); ok {
			if pos <= last {
				t.Errorf("svc events tail: position %v after %v: not in global order", pos, last)
			}
			last = pos
		}
	}
	for _, typ := range []string{"OrganizationCreated", "ApiKeyCreated", "WorkspaceCreated", "CreditsGranted"} {
		if !types[typ] {
			t.Errorf("svc events tail --org: no %s event (types %v)", typ, types)
		}
	}

	// rebuild every projection while the API answers balance requests
	t.Run("rebuild under load", func(t *testing.T) {
		var (
			stop     atomic.Bool
			wg       sync.WaitGroup
			mu       sync.Mutex
			failures []string
			answers  atomic.Int64
		)
		// more events, so that the rebuild takes a while: 40 more orgs
		seeded := concurrently(t, s, 40, func(int) req {
			return req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP()}
		})
		type probe struct {
			key  string
			want int64
		}
		probes := []probe{{a.Key, want}}
		for _, r := range seeded {
			wantStatus(t, r, http.StatusCreated)
			key := str(t, r.Body, "key")
			s.readYourWrites(t, r.RequestID, key, 2500)
			probes = append(probes, probe{key, 2500})
		}
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; !stop.Load(); i++ {
					p := probes[i%len(probes)]
					res, err := s.try(req{Path: "/api/billing/balance", Key: p.key})
					answers.Add(1)
					var msg string
					switch {
					case err != nil:
						msg = err.Error()
					case res.Status != http.StatusOK:
						msg = fmt.Sprintf("%s key %s…: status %d: %s", time.Now().UTC().Format("15:04:05.000000"), p.key[:16], res.Status, res.Raw)
					case fmt.Sprint(res.Body["balance"]) != fmt.Sprint(p.want):
						msg = fmt.Sprintf("%s key %s…: balance %v, want %d", time.Now().UTC().Format("15:04:05.000000"), p.key[:16], res.Body["balance"], p.want)
					}
					if msg != "" {
						mu.Lock()
						if len(failures) < 10 {
							failures = append(failures, msg)
						}
						mu.Unlock()
					}
				}
			}()
		}
		// a signup during the rebuild must still work at once
		type result struct {
			res, bal *response
			err      error
		}
		signupDone := make(chan result, 1)
		go func() {
			time.Sleep(20 * time.Millisecond)
			var r result
			r.res, r.err = s.try(req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP()})
			if r.err == nil && r.res.Status == http.StatusCreated {
				key, _ := r.res.Body["key"].(string)
				r.bal, r.err = s.try(req{Path: "/api/billing/balance", Key: key})
			}
			signupDone <- r
		}()
		time.Sleep(50 * time.Millisecond)
		out := cli(t, s.dbURL, "projections", "rebuild", "--all", "--batch", "1")
		signup := <-signupDone
		time.Sleep(300 * time.Millisecond)
		stop.Store(true)
		wg.Wait()
		if out.Code != 0 {
			t.Fatalf("svc projections rebuild --all: %s", out)
		}
		for _, f := range failures {
			t.Errorf("balance during rebuild: %s", f)
		}
		t.Logf("%d balance answers during the rebuild:\n%s", answers.Load(), out.Stdout)
		if signup.err != nil {
			t.Fatalf("signup during the rebuild: %v", signup.err)
		}
		wantStatus(t, signup.res, http.StatusCreated)
		switch {
		case signup.bal.Status == http.StatusOK && checkBalanceBody(t, signup.bal) == 2500:
		case s.lagged(signup.res.RequestID):
			t.Logf("environment: read models lagged behind the signup made during the rebuild: %d %s", signup.bal.Status, signup.bal.Raw)
		default:
			t.Errorf("balance of an org created during the rebuild, read at once: %d %s, want 200 with 2500", signup.bal.Status, signup.bal.Raw)
		}
		s.readYourWrites(t, signup.res.RequestID, str(t, signup.res.Body, "key"), 2500)
		if out := cli(t, s.dbURL, "projections", "rebuild", "--all"); out.Code != 0 {
			t.Fatalf("svc projections rebuild --all (second time): %s", out)
		}
		if got := s.balance(t, a.Key); got != want {
			t.Errorf("balance after rebuild %d, want %d", got, want)
		}
		// the server keeps projecting new events into the rebuilt models
		if out := cli(t, s.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", "1000", "--reason", "after rebuild"); out.Code != 0 {
			t.Fatalf("svc credits grant: %s", out)
		}
		want += 1000
		s.waitBalance(t, a.Key, want, 30*time.Second)
		if out := cli(t, s.dbURL, "replay", "billing", "--org", a.OrgID); out.Code != 0 || !strings.Contains(out.Stdout, "OK") {
			t.Errorf("svc replay billing after rebuild: %s", out)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		out := cli(t, s.dbURL, "credits", "grant", "--org", "not-a-uuid", "--credits", "10", "--reason", "x")
		wantUsageError(t, out)
		out = cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "gold")
		wantUsageError(t, out)
		out = cli(t, s.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", "-5", "--reason", "x")
		wantUsageError(t, out)
		out = cli(t, s.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", "5")
		wantUsageError(t, out)
		out = cli(t, s.dbURL, "projections", "rebuild", "nosuchprojection")
		wantUsageError(t, out)
		out = cli(t, s.dbURL, "no-such-command")
		if out.Code != 2 {
			t.Errorf("svc no-such-command: %s", out)
		}
		s.waitBalance(t, a.Key, want, time.Second) // nothing was granted
	})

	t.Run("unknown org", func(t *testing.T) {
		out := cli(t, s.dbURL, "credits", "grant", "--org", "00000000-0000-4000-8000-000000000000", "--credits", "10", "--reason", "x")
		if out.Code != 1 {
			t.Errorf("svc credits grant for an unknown org: want exit 1: %s", out)
		}
		out = cli(t, s.dbURL, "org", "set-tier", "--org", "00000000-0000-4000-8000-000000000000", "--tier", "pro")
		if out.Code != 1 {
			t.Errorf("svc org set-tier for an unknown org: want exit 1: %s", out)
		}
	})
}

// wantUsageError requires exit 2 and a one-line error on stderr.
func wantUsageError(t *testing.T, out cliResult) {
	t.Helper()
	if out.Code != 2 {
		t.Errorf("want exit 2: %s", out)
		return
	}
	if lines := nonEmptyLines(out.Stderr); len(lines) != 1 {
		t.Errorf("want a one-line error on stderr, got %d lines: %q", len(lines), out.Stderr)
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

var operatorCommands = [][]string{
	{"serve"},
	{"migrate"},
	{"projections", "list"},
	{"projections", "rebuild"},
	{"replay", "billing"},
	{"events", "tail"},
	{"credits", "grant"},
	{"org", "set-tier"},
}

// --help and bad flags never reach the database: DATABASE_URL names a
// database that does not exist.
func TestCLIHelpAndBadFlags(t *testing.T) {
	t.Parallel()
	db := pgtest.URL("blackbox_never_created")
	top := cli(t, db, "--help")
	if top.Code != 0 || !strings.Contains(strings.ToLower(top.Stdout), "usage") {
		t.Errorf("svc --help: %s", top)
	}
	for _, c := range operatorCommands {
		name := strings.Join(c, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := cli(t, db, append(append([]string{}, c...), "--help")...)
			if out.Code != 0 {
				t.Errorf("svc %s --help: want exit 0: %s", name, out)
			}
			if !strings.Contains(strings.ToLower(out.Stdout+out.Stderr), "usage") {
				t.Errorf("svc %s --help prints no usage: %s", name, out)
			}
			if !strings.Contains(top.Stdout, name) {
				t.Errorf("svc --help does not list %q", name)
			}
			out = cli(t, db, append(append([]string{}, c...), "--no-such-flag")...)
			wantUsageError(t, out)
		})
	}
}

// TestReplayBillingAll: `svc replay billing --all` checks every
// organization of the log and agrees when the read models do.
func TestReplayBillingAll(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	var last account
	for range 3 {
		last = s.signup(t, nil)
	}
	if out := cli(t, s.dbURL, "credits", "grant", "--org", last.OrgID, "--credits", "700", "--reason", "replay all"); out.Code != 0 {
		t.Fatalf("svc credits grant: %s", out)
	}
	s.waitBalance(t, last.Key, 3200, 30*time.Second)
	out := cli(t, s.dbURL, "replay", "billing", "--all")
	if out.Code != 0 || !strings.Contains(out.Stdout, "3 organizations checked") || !strings.Contains(out.Stdout, "OK") {
		t.Fatalf("svc replay billing --all: want exit 0, 3 organizations and OK: %s", out)
	}
	wantUsageError(t, cli(t, s.dbURL, "replay", "billing", "--all", "--org", last.OrgID))
}
