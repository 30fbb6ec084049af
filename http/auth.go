package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/projections"
)

// Role is an API key's workspace role.
type Role = apikey.Role

// Rate limits of workflow routes, per organization.
const (
	perMinute           = 120
	perMinuteEnterprise = 500
)

type authOptions struct {
	code        string // error code for a missing or invalid key; "" for missing_api_key / invalid_api_key
	floor       Role   // lowest role allowed; "" for any
	rateLimited bool
}

func principalOf(ctx context.Context) (projections.Principal, bool) {
	p, ok := ctx.Value(keyPrincipal).(projections.Principal)
	return p, ok
}

func principalOrg(ctx context.Context) string {
	p, _ := principalOf(ctx)
	return p.OrgID
}

// authenticated resolves x-api-key (Authorization: Bearer is not read),
// enforces the role floor and, for workflow routes, the per-org rate limit.
func (s *Server) authenticated(o authOptions, h handlerFunc) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		raw := r.Header.Get("x-api-key")
		// the dashboard's sub-requests act as the signed-in user (dashboard.go)
		dp, viaDashboard, err := s.dashboardCaller(r)
		if err != nil {
			return err
		}
		if raw == "" && !viaDashboard {
			code := o.code
			if code == "" {
				code = "missing_api_key"
			}
			return newError(http.StatusUnauthorized, code, "Send your API key in the x-api-key header.").
				withFix("Create a key with POST /api/keys and send it as x-api-key: svc_live_...; Authorization: Bearer is not read.")
		}
		p := dp
		if !viaDashboard {
			if p, err = s.principal(r.Context(), raw); err != nil {
				return err
			}
		}
		if p == nil {
			code := o.code
			if code == "" {
				code = "invalid_api_key"
			}
			return newError(http.StatusUnauthorized, code, "The API key is unknown or revoked.")
		}
		if o.floor != "" && !p.Role.AtLeast(o.floor) {
			return newError(http.StatusForbidden, "insufficient_permissions",
				"This operation needs the "+string(o.floor)+" role or above; this key is "+string(p.Role)+".").
				withDetail("required_role", string(o.floor)).withDetail("key_role", string(p.Role))
		}
		r = r.WithContext(withPrincipal(r.Context(), *p))
		if o.rateLimited {
			if err := s.rateLimit(w, r, *p); err != nil {
				return err
			}
		}
		return h(w, r)
	})
}

// principal returns the key's principal, nil for an unknown or revoked key.
// Before it returns a principal it waits for what the key wrote earlier
// to reach the read models the request reads (withReads): read-your-writes
// for the operations that answer without waiting for them (decision 230).
func (s *Server) principal(ctx context.Context, raw string) (*projections.Principal, error) {
	if !apikey.LooksValid(raw) {
		return nil, nil
	}
	hash := apikey.Hash(raw)
	cached, gen, ok := s.keys.get(hash)
	if ok {
		s.keyUsage.Touch(cached.KeyID)
		s.queries.AwaitFences(ctx, cached.Actor(), readsOf(ctx))
		return cached, nil
	}
	p, err := s.queries.Principal(ctx, hash)
	if errors.Is(err, projections.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p.Revoked {
		return nil, nil
	}
	s.keys.put(hash, &p, gen)
	s.keyUsage.Touch(p.KeyID)
	s.queries.AwaitFences(ctx, p.Actor(), readsOf(ctx))
	return &p, nil
}

// readsKey carries what a request reads (withReads).
type readsKey struct{}

// withReads narrows what the request's key waits for before it runs
// (principal: its caller's earlier writes, Queries.AwaitFences) to the
// read models fed by the event types reads; an empty list waits for none
// (a front door whose calls wait each for itself). Without it a request
// waits for every read model its caller's writes fed.
func withReads(ctx context.Context, reads []string) context.Context {
	if reads == nil {
		return ctx
	}
	return context.WithValue(ctx, readsKey{}, reads)
}

// readsOf is what withReads recorded: nil for every read model.
func readsOf(ctx context.Context) []string {
	r, _ := ctx.Value(readsKey{}).([]string)
	return r
}

// rateLimit applies the sliding per-minute window of the principal's org.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, p projections.Principal) error {
	limit := perMinute
	if p.Tier == org.Enterprise {
		limit = perMinuteEnterprise
	}
	return s.perMinute(w, r, "org:"+p.OrgID, limit, "this organization")
}

// perMinute counts a request against key's sliding 60 s window, sets the
// X-RateLimit headers and answers 429 rate_limit_exceeded past limit. It
// degrades open: a limiter failure lets the request through.
func (s *Server) perMinute(w http.ResponseWriter, r *http.Request, key string, limit int, who string) error {
	d, err := s.limiter.Allow(r.Context(), key, limit, time.Minute)
	if err != nil {
		s.log.WarnContext(r.Context(), "rate limiter unavailable; letting the request through", "error", err)
		return nil
	}
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	if d.Allowed {
		return nil
	}
	secs := retrySeconds(d.RetryAfter)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return newError(http.StatusTooManyRequests, "rate_limit_exceeded",
		"Rate limit of "+strconv.Itoa(limit)+" requests per minute for "+who+" reached.").
		withFix("Wait retry_after seconds before retrying.").
		withDetail("limit", limit).withDetail("window_seconds", 60).withDetail("retry_after", secs).
		withRetryAfterField(secs)
}

func retrySeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// keyCache keeps resolved principals briefly so that a busy key does not
// cost a database read per request. It is emptied whenever the keys or
// organizations read model changes, in any instance (watch): a revoked key
// or a tier change counts at once, not after the entries' ttl.
type keyCache struct {
	ttl time.Duration
	max int
	mu  sync.RWMutex
	m   map[string]keyEntry
	gen uint64 // counts the emptyings: a read older than one is not kept
}

type keyEntry struct {
	p       *projections.Principal
	expires time.Time
}

func newKeyCache(ttl time.Duration, max int) *keyCache {
	return &keyCache{ttl: ttl, max: max, m: map[string]keyEntry{}}
}

// get returns the entry of hash, and the generation to give put with what
// the caller reads instead when there is none.
func (c *keyCache) get(hash string) (*projections.Principal, uint64, bool) {
	c.mu.RLock()
	e, ok := c.m[hash]
	gen := c.gen
	c.mu.RUnlock()
	if !ok || time.Now().After(e.expires) {
		return nil, gen, false
	}
	return e.p, gen, true
}

// put keeps p for hash unless the cache was emptied since gen was read
// (p may predate the change that emptied it).
func (c *keyCache) put(hash string, p *projections.Principal, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= c.max {
		now := time.Now()
		for k, e := range c.m {
			if now.After(e.expires) || len(c.m) >= c.max {
				delete(c.m, k)
			}
		}
	}
	c.m[hash] = keyEntry{p: p, expires: time.Now().Add(c.ttl)}
}

// clear empties the cache.
func (c *keyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.gen++
}

// watch empties the cache on every signal of changed until stop closes.
func (c *keyCache) watch(changed <-chan struct{}, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-changed:
			c.clear()
		}
	}
}

// publicLimited serves a route that needs no key: with a valid key it counts
// toward the org's per-minute limit, without one toward the client IP's.
func (s *Server) publicLimited(h handlerFunc) http.Handler {
	authed := s.authenticated(authOptions{rateLimited: true}, h)
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if r.Header.Get("x-api-key") != "" {
			authed.ServeHTTP(w, r)
			return nil
		}
		if err := s.perMinute(w, r, "ip:"+clientIP(r.Context()), perMinute, "this address"); err != nil {
			return err
		}
		return h(w, r)
	})
}
