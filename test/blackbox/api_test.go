package blackbox

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var productNames = []string{"burnrate", "dedupq", "guardrail", "pitfalldb", "qualitygate", "rigor"}

func TestHealth(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	res := s.do(t, req{Path: "/api/health"})
	wantStatus(t, res, http.StatusOK)
	if got := str(t, res.Body, "status"); got != "ok" {
		t.Errorf("status %q, want ok", got)
	}
	ts := str(t, res.Body, "timestamp")
	when, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		t.Errorf("timestamp %q is not ISO 8601 / RFC 3339: %v", ts, err)
	} else if d := time.Since(when); d < -time.Minute || d > time.Minute {
		t.Errorf("timestamp %s is %v away from now", ts, d)
	}
	services := object(t, res.Body, "services")
	for _, name := range []string{"database", "cache"} {
		if services[name] != "ok" {
			t.Errorf("services.%s = %#v, want \"ok\"", name, services[name])
		}
	}
	products := object(t, res.Body, "products")
	var names []string
	for name, v := range products {
		names = append(names, name)
		if v != "ok" {
			t.Errorf("products.%s = %#v, want \"ok\"", name, v)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != strings.Join(productNames, ",") {
		t.Errorf("products %v, want exactly %v", names, productNames)
	}
	if v := str(t, res.Body, "version"); v == "" {
		t.Error("version is empty")
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
}

func TestHealthDegradedCache(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"REDIS_URL": "redis://127.0.0.1:1"})
	res := s.do(t, req{Path: "/api/health"})
	wantStatus(t, res, http.StatusOK)
	if got := str(t, res.Body, "status"); got != "degraded" {
		t.Errorf("status %q, want degraded", got)
	}
	services := object(t, res.Body, "services")
	if services["database"] != "ok" {
		t.Errorf("services.database = %#v, want \"ok\"", services["database"])
	}
	cache := object(t, services, "cache")
	if got := str(t, cache, "status"); got != "degraded" {
		t.Errorf("services.cache.status %q, want degraded", got)
	}
	if len(object(t, res.Body, "products")) != len(productNames) {
		t.Errorf("products %v, want %v", res.Body["products"], productNames)
	}
	str(t, res.Body, "version")

	// Limits degrade open: signups keep working without the cache store.
	a := s.signup(t, nil)
	if got := s.balance(t, a.Key); got != 2500 {
		t.Errorf("balance %d, want 2500", got)
	}
}

// checkSignupBody checks every field of a 201 from POST /api/keys.
func checkSignupBody(t *testing.T, res *response) {
	t.Helper()
	b := res.Body
	uuidField(t, b, "org_id")
	uuidField(t, b, "workspace_id")
	key := str(t, b, "key")
	if !strings.HasPrefix(key, "svc_live_") {
		t.Errorf("key %q does not start with svc_live_", key)
	}
	if apiKey := str(t, b, "api_key"); apiKey != key {
		t.Errorf("api_key %q != key %q", apiKey, key)
	}
	prefix := str(t, b, "prefix")
	if prefix == "" || !strings.HasPrefix(key, prefix) || prefix == key {
		t.Errorf("prefix %q is not a proper prefix of key %q", prefix, key)
	}
	if str(t, b, "message") == "" {
		t.Error("message is empty")
	}
	if boolean(t, b, "email_verified") {
		t.Error("email_verified is true at signup")
	}
	if c := integer(t, b, "credits"); c != 2500 {
		t.Errorf("credits %d, want 2500", c)
	}
	for _, f := range []string{"quickstart", "rate_limit"} {
		if v, ok := b[f]; !ok || v == nil {
			t.Errorf("field %q missing or null", f)
		}
	}
	if str(t, b, "docs") == "" {
		t.Error("docs is empty")
	}
	products, _ := b["products"].([]any)
	for _, p := range productNames {
		if !slices.Contains(products, any(p)) {
			t.Errorf("products lacks %s: %v", p, b["products"])
		}
	}
	if rl, _ := b["rate_limit"].(string); rl == "" {
		t.Errorf("rate_limit %#v, want a string (spec C)", b["rate_limit"])
	}
	ft := object(t, b, "free_tier")
	integer(t, ft, "calls_remaining")
	if ra := str(t, ft, "resets_at"); ra != "" {
		if _, err := time.Parse(time.RFC3339, ra); err != nil {
			t.Errorf("free_tier.resets_at %q is not a timestamp", ra)
		}
	} else {
		t.Error("free_tier.resets_at is empty")
	}
	if str(t, ft, "note") == "" {
		t.Error("free_tier.note is empty")
	}
}

func TestCreateKey(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	for _, tc := range []struct {
		name string
		body any
	}{
		{"empty body", nil},
		{"empty object", map[string]any{}},
		{"name only", map[string]any{"name": "Acme Research"}},
		{"email", map[string]any{"email": uniqueEmail("signup"), "name": "With Mail"}},
		{"empty email", map[string]any{"email": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: tc.body})
			wantStatus(t, res, http.StatusCreated)
			checkSignupBody(t, res)
			key := str(t, res.Body, "key")
			orgID := str(t, res.Body, "org_id")

			// read-your-writes: the key works at once.
			s.readYourWrites(t, res.RequestID, key, 2500)
			bal := s.do(t, req{Path: "/api/billing/balance", Key: key})
			wantStatus(t, bal, http.StatusOK)
			if got := str(t, bal.Body, "org_id"); got != orgID {
				t.Errorf("balance org_id %q, want %q", got, orgID)
			}
		})
	}
}

func TestCreateKeyErrors(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	post := func(t *testing.T, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: body})
	}
	t.Run("malformed JSON", func(t *testing.T) {
		wantError(t, post(t, `{"email": "a@b.co",`), http.StatusBadRequest, "invalid_body")
		wantError(t, post(t, `not json`), http.StatusBadRequest, "invalid_body")
		wantError(t, post(t, `[1,2]`), http.StatusBadRequest, "invalid_body")
	})
	t.Run("email of the wrong type", func(t *testing.T) {
		wantError(t, post(t, `{"email": 5}`), http.StatusBadRequest, "invalid_field")
	})
	t.Run("bad email", func(t *testing.T) {
		for _, e := range []string{"not-an-email", "a@", "@example.com", "two@@example.com"} {
			wantError(t, post(t, map[string]any{"email": e}), http.StatusBadRequest, "invalid_field")
		}
	})
	t.Run("name too long", func(t *testing.T) {
		wantError(t, post(t, map[string]any{"name": strings.Repeat("n", 201)}), http.StatusBadRequest, "invalid_field")
	})
	t.Run("duplicate email", func(t *testing.T) {
		local := "Dup-" + randomHex(4)
		first := post(t, map[string]any{"email": local + "@Example.com"})
		wantStatus(t, first, http.StatusCreated)
		again := post(t, map[string]any{"email": strings.ToLower(local) + "@example.COM"})
		wantError(t, again, http.StatusConflict, "duplicate_email")
	})
	t.Run("body too large", func(t *testing.T) {
		big := `{"name":"` + strings.Repeat("a", 1<<20+16) + `"}`
		wantError(t, post(t, big), http.StatusRequestEntityTooLarge, "body_too_large")
	})
	t.Run("4th signup from one IP", func(t *testing.T) {
		ip := nextIP()
		for i := 1; i <= 3; i++ {
			res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: ip})
			wantStatus(t, res, http.StatusCreated)
		}
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: ip})
		wantError(t, res, http.StatusTooManyRequests, "rate_limited")
		if got := integer(t, res.Body, "retry_after_seconds"); got != 86400 {
			t.Errorf("retry_after_seconds %d, want 86400", got)
		}
		// another address is not affected
		wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP()}), http.StatusCreated)
	})
}

// Without SVC_TRUSTED_PROXIES the peer address counts, whatever
// X-Forwarded-For says.
func TestSignupLimitIgnoresUntrustedForwardedFor(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"SVC_TRUSTED_PROXIES": ""})
	for i := 1; i <= 4; i++ {
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP()})
		if i <= 3 {
			wantStatus(t, res, http.StatusCreated)
			continue
		}
		wantError(t, res, http.StatusTooManyRequests, "rate_limited")
		if got := integer(t, res.Body, "retry_after_seconds"); got != 86400 {
			t.Errorf("retry_after_seconds %d, want 86400", got)
		}
	}
}

func TestEmailVerification(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	email := uniqueEmail("verify")
	a := s.signup(t, map[string]any{"email": email})
	link := s.verificationLink(t, email)
	if !strings.HasPrefix(link, s.base+"/api/keys/verify-email?token=") {
		t.Fatalf("link %q is not under the base URL %s", link, s.base)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	path := u.RequestURI()

	t.Run("tampered token", func(t *testing.T) {
		last := token[len(token)-1]
		repl := byte('0')
		if last == '0' {
			repl = '1'
		}
		bad := token[:len(token)-1] + string(repl)
		res := s.do(t, req{Path: "/api/keys/verify-email?token=" + url.QueryEscape(bad)})
		wantError(t, res, http.StatusBadRequest, "invalid_token")
		res = s.do(t, req{Path: "/api/keys/verify-email?token=garbage"})
		wantError(t, res, http.StatusBadRequest, "invalid_token")
		if got := s.balance(t, a.Key); got != 2500 {
			t.Errorf("balance after a tampered token %d, want 2500", got)
		}
	})
	t.Run("missing token", func(t *testing.T) {
		wantError(t, s.do(t, req{Path: "/api/keys/verify-email"}), http.StatusBadRequest, "missing_field")
		wantError(t, s.do(t, req{Path: "/api/keys/verify-email?token="}), http.StatusBadRequest, "missing_field")
	})

	res := s.do(t, req{Path: path})
	wantStatus(t, res, http.StatusOK)
	if !boolean(t, res.Body, "ok") {
		t.Error("ok is false")
	}
	if g := integer(t, res.Body, "credits_granted"); g != 2500 {
		t.Errorf("credits_granted %d, want 2500", g)
	}
	if b := integer(t, res.Body, "balance"); b != 5000 {
		if s.lagged(res.RequestID) {
			t.Logf("environment: verification answered balance %d while the read models lagged", b)
		} else {
			t.Errorf("balance %d, want 5000", b)
		}
	}
	if id := str(t, res.Body, "request_id"); id != res.RequestID {
		t.Errorf("request_id %q != X-Request-Id %q", id, res.RequestID)
	}
	if id := str(t, res.Body, "org_id"); id != a.OrgID {
		t.Errorf("org_id %q, want %q", id, a.OrgID)
	}
	s.readYourWrites(t, res.RequestID, a.Key, 5000)

	again := s.do(t, req{Path: path})
	wantStatus(t, again, http.StatusOK)
	if g := integer(t, again.Body, "credits_granted"); g != 0 {
		t.Errorf("second use: credits_granted %d, want 0", g)
	}
	if !boolean(t, again.Body, "already_verified") {
		t.Error("second use: already_verified is false")
	}
	if b := integer(t, again.Body, "balance"); b != 5000 && !s.lagged(res.RequestID) {
		t.Errorf("second use: balance %d, want 5000", b)
	}
	if got := s.balance(t, a.Key); got != 5000 {
		t.Errorf("balance endpoint after a second use %d, want 5000", got)
	}
}

func TestKeysVerify(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, map[string]any{"name": "verify key"})

	verify := func(t *testing.T) *response {
		res := s.do(t, req{Path: "/api/keys/verify", Key: a.Key})
		wantStatus(t, res, http.StatusOK)
		return res
	}
	res := verify(t)
	if got := str(t, res.Body, "org_id"); got != a.OrgID {
		t.Errorf("org_id %q, want %q", got, a.OrgID)
	}
	if boolean(t, res.Body, "is_paid") {
		t.Error("is_paid is true for a free org")
	}
	if id := str(t, res.Body, "request_id"); id != res.RequestID {
		t.Errorf("request_id %q != X-Request-Id %q", id, res.RequestID)
	}
	if n := integer(t, res.Body, "credits_used"); n != 0 {
		t.Errorf("credits_used %d, want 0", n)
	}
	if n := integer(t, res.Body, "credits_remaining"); n != 0 {
		t.Errorf("credits_remaining %d, want 0", n)
	}
	if fb := str(t, res.Body, "fallback_behavior"); fb != "none" {
		t.Errorf("fallback_behavior %q, want none", fb)
	}

	t.Run("no key", func(t *testing.T) {
		wantError(t, s.do(t, req{Path: "/api/keys/verify"}), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("bad key", func(t *testing.T) {
		wantError(t, s.do(t, req{Path: "/api/keys/verify", Key: "svc_live_" + randomHex(20)}), http.StatusUnauthorized, "unauthorized")
		wantError(t, s.do(t, req{Path: "/api/keys/verify", Key: "nonsense"}), http.StatusUnauthorized, "unauthorized")
	})
	t.Run("bearer is not read", func(t *testing.T) {
		res := s.do(t, req{Path: "/api/keys/verify", Header: map[string]string{"Authorization": "Bearer " + a.Key}})
		wantError(t, res, http.StatusUnauthorized, "unauthorized")
	})

	out := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "pro")
	if out.Code != 0 {
		t.Fatalf("svc org set-tier: %s", out)
	}
	// The key cache lives 10 s; the projections may lag a few more seconds
	// when another database on the shared PostgreSQL server holds a long
	// transaction (see readYourWrites).
	deadline := time.Now().Add(25 * time.Second)
	for !boolean(t, verify(t).Body, "is_paid") {
		if time.Now().After(deadline) {
			t.Fatal("is_paid still false 25 s after svc org set-tier --tier pro")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// setting the same tier again changes nothing
	if out := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "pro"); out.Code != 0 {
		t.Errorf("svc org set-tier (same tier): %s", out)
	}
}

func TestBalanceAuth(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	res := s.do(t, req{Path: "/api/billing/balance", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	if b := checkBalanceBody(t, res); b != 2500 {
		t.Errorf("balance %d, want 2500", b)
	}
	if got := str(t, res.Body, "org_id"); got != a.OrgID {
		t.Errorf("org_id %q, want %q", got, a.OrgID)
	}

	wantError(t, s.do(t, req{Path: "/api/billing/balance"}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Path: "/api/billing/balance", Key: "svc_live_" + randomHex(20)}), http.StatusUnauthorized, "invalid_api_key")
	wantError(t, s.do(t, req{Path: "/api/billing/balance", Key: "bogus"}), http.StatusUnauthorized, "invalid_api_key")
	bearer := s.do(t, req{Path: "/api/billing/balance", Header: map[string]string{"Authorization": "Bearer " + a.Key}})
	wantError(t, bearer, http.StatusUnauthorized, "missing_api_key")
}

func TestRouting(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	wantError(t, s.do(t, req{Path: "/api/no-such-thing"}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Path: "/"}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/nothing", Body: "{}"}), http.StatusNotFound, "not_found")

	for _, r := range []req{
		{Method: http.MethodDelete, Path: "/api/health"},
		{Method: http.MethodPost, Path: "/api/health", Body: "{}"},
		{Method: http.MethodGet, Path: "/api/keys"},
		{Method: http.MethodPut, Path: "/api/billing/balance", Body: "{}"},
	} {
		res := s.do(t, r)
		if res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d, want 405: %s", r.Method, r.Path, res.Status, res.Raw)
		}
	}
}

// Every answer carries a fresh request id, distinct per request.
func TestRequestIDsAreDistinct(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		res := s.do(t, req{Path: "/api/health"})
		if seen[res.RequestID] {
			t.Fatalf("request id %s repeated", res.RequestID)
		}
		seen[res.RequestID] = true
	}
}

// concurrently runs n copies of r and returns the answers.
func concurrently(t *testing.T, s *server, n int, mk func(i int) req) []*response {
	t.Helper()
	out := make([]*response, n)
	errs := make([]error, n)
	start := make(chan struct{})
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			out[i], errs[i] = s.try(mk(i))
		}()
	}
	close(start)
	for i := 0; i < n; i++ {
		<-done
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	return out
}

func statusCounts(res []*response) map[int]int {
	m := map[int]int{}
	for _, r := range res {
		m[r.Status]++
	}
	return m
}

// Races that a check-then-act implementation would lose.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	t.Run("same email at once", func(t *testing.T) {
		email := uniqueEmail("race")
		res := concurrently(t, s, 8, func(int) req {
			return req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: map[string]any{"email": email}}
		})
		if c := statusCounts(res); c[http.StatusCreated] != 1 || c[http.StatusConflict] != 7 {
			t.Fatalf("8 concurrent signups with one email: statuses %v, want one 201 and seven 409", c)
		}
		for _, r := range res {
			checkCommon(t, req{Method: http.MethodPost, Path: "/api/keys"}, r)
			if r.Status == http.StatusConflict {
				wantError(t, r, http.StatusConflict, "duplicate_email")
			}
		}
	})
	t.Run("signups from one IP at once", func(t *testing.T) {
		ip := nextIP()
		res := concurrently(t, s, 8, func(int) req {
			return req{Method: http.MethodPost, Path: "/api/keys", XFF: ip}
		})
		if c := statusCounts(res); c[http.StatusCreated] != 3 || c[http.StatusTooManyRequests] != 5 {
			t.Fatalf("8 concurrent signups from one IP: statuses %v, want three 201 and five 429", c)
		}
	})
	t.Run("one verification link opened at once", func(t *testing.T) {
		email := uniqueEmail("race-verify")
		a := s.signup(t, map[string]any{"email": email})
		u, err := url.Parse(s.verificationLink(t, email))
		if err != nil {
			t.Fatal(err)
		}
		res := concurrently(t, s, 6, func(int) req { return req{Path: u.RequestURI()} })
		var granted int64
		var grantID string
		for _, r := range res {
			checkCommon(t, req{Path: "/api/keys/verify-email"}, r)
			wantStatus(t, r, http.StatusOK)
			if g := integer(t, r.Body, "credits_granted"); g > 0 {
				granted += g
				grantID = r.RequestID
			}
		}
		if granted != 2500 {
			t.Fatalf("6 concurrent verifications granted %d credits in total, want 2500", granted)
		}
		s.readYourWrites(t, grantID, a.Key, 5000)
	})
}
